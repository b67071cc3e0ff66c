//===- RoleProtocol.h - The role model of a kernel --------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// What the parts of the role protocol (RoleProtocol.cpp) share: the facts
// about a kernel, its roles and their traces of barrier events, and the
// entry points of role discovery (RoleDiscovery.cpp), the interpreter
// (RoleInterpreter.cpp), the simulation (RoleSimulation.cpp) and the aligned
// collectives (AlignedUniformity.cpp).
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_ANALYSIS_ASYNCPROTOCOL_ROLEPROTOCOL_H
#define TILE_LIB_ANALYSIS_ASYNCPROTOCOL_ROLEPROTOCOL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallBitVector.h"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace mlir::tile::role_protocol {

/// The largest count or byte amount followed.
constexpr int64_t kMaxAmount = int64_t(1) << 40;

/// A barrier: its group (the mbarrier_alloc result) and index.
using BarrierId = std::pair<void *, int64_t>;
/// A stage of a shared buffer: the root buffer and the leading indices that
/// name the stage in a ring (none for a buffer filled in one piece).
using Stage = std::pair<void *, SmallVector<int64_t, 2>>;

enum class EventKind {
  Init,       ///< amount: the count
  Arrive,     ///< amount: arrivals per thread
  ArriveDrop, ///< one arrival, and one fewer expected from the next phase on
  ExpectTx,   ///< amount: bytes per thread
  Deliver,    ///< amount: bytes per thread; `stage` written (or none)
  /// A cp.async copy into `stage` of a filled buffer, complete with the
  /// role's next cp.async mbarrier arrive (Gathered).
  Gather,
  /// The role's cp.async mbarrier arrive on `barrier`: its Gather stages
  /// are written by copies that complete the barrier's current phase.
  Gathered,
  Wait, ///< amount: the parity
  Inval,
  Read,      ///< a synchronous read of `stage`
  AsyncRead, ///< a wgmma operand: read until a later wgmma wait retires it
  AsyncCommit,
  AsyncWait,  ///< amount: the groups kept in flight
  Sync,       ///< a CTA-wide barrier (gpu.barrier, cluster_wait)
  BulkRead,   ///< a bulk store (TMA store or reduce, bulk copy to global)
              ///< reads `stage` until a bulk wait retires its group
  BulkCommit, ///< the role's open bulk stores become a bulk group
  BulkWait,   ///< amount: the bulk groups kept in flight
  Write,      ///< a synchronous write of `stage` (generic store, stmatrix)
  /// An aligned collective (wgmma, mma.sync, ldmatrix, a named barrier):
  /// the roles sharing a unit of `amount` warps with this one meet at it.
  Collective,
  /// A generic write of `stage` of a buffer that roles exchange
  /// (KernelFacts::exchangedBuffers).
  ExchangeWrite,
  /// A read of `stage` of an exchanged buffer: amount 1 a wgmma's (until a
  /// wgmma wait retires it), 0 a generic load.
  ExchangeRead,
  /// A named barrier's bar.sync (waits) or bar.arrive (does not): barrier
  /// (nullptr, id), amount: the threads it expects. Followed only in
  /// kernels that exchange buffers.
  NamedSync,
  NamedArrive,
};

struct Event {
  Event(EventKind kind, Operation *op, BarrierId barrier = {nullptr, 0},
        int64_t amount = 0, std::optional<Stage> stage = std::nullopt,
        bool perThread = true)
      : kind(kind), op(op), barrier(barrier), amount(amount), stage(stage),
        perThread(perThread) {}

  EventKind kind;
  Operation *op;
  BarrierId barrier;
  int64_t amount;
  std::optional<Stage> stage;
  /// Done by every thread of the role (counted per thread), or by one.
  bool perThread;
};

/// A class of threads that take the same branches.
struct Role {
  int64_t firstThread = 0;
  int64_t threads = 0;
  /// The warps the role's threads are in.
  llvm::SmallBitVector warps;
  std::vector<Event> trace;

  std::string describe() const {
    if (threads == 1)
      return "thread " + std::to_string(firstThread);
    return "the " + std::to_string(threads) + " threads of thread " +
           std::to_string(firstThread) + "'s role";
  }
};

/// A finding to report: the rule's message at an op, with optional notes.
struct Finding {
  Operation *op;
  std::string message;
  SmallVector<std::pair<Operation *, std::string>> notes;
};

/// The static facts about a kernel the interpretation needs.
struct KernelFacts {
  mutable gpu::GPUFuncOp kernel;
  std::array<int64_t, 3> blockDims;
  int64_t clusterSize = 1;
  /// Root buffers that bulk copies or TMA loads write, whose reads are
  /// checked against the copies' barriers: for a ring (every copy fills one
  /// whole stage, named by its leading indices, or part of one) the number
  /// of those indices (the fewest, where copies on one barrier group name
  /// stages by different numbers: their common prefix); 0 for a buffer
  /// whose copies may write any part of it (one stage: the whole buffer).
  /// Copies in an scf.if branch that a constant condition never takes do
  /// not count. In a kernel whose cp.async copies complete
  /// on mbarriers (cp.async.mbarrier.arrive) and none by commit and wait
  /// groups, their buffers too: a ring's stage is named by all indices but
  /// the last two (a tile's rows and columns).
  llvm::DenseMap<void *, unsigned> filledBuffers;
  /// Root buffers that bulk stores (TMA stores and reduces, bulk copies to
  /// global memory) read, whose writes are checked against the stores' bulk
  /// groups: the leading indices that name the tile a TMA store reads (the
  /// same for all of its stores), else 0 (the whole buffer).
  llvm::DenseMap<void *, unsigned> storedBuffers;
  /// Root shared buffers that generic stores write and wgmmas read, and that
  /// no copy fills and no bulk store reads (e.g. a tile of registers one
  /// warpgroup writes and another's wgmma reads): 1 for a ring (rank 3 or
  /// more: a stage is named by the first index), 0 for one piece. Each read
  /// is checked against the other roles' writes and each write against
  /// their reads (T-PROTO-15).
  llvm::DenseMap<void *, unsigned> exchangedBuffers;
  /// The CTAs of the grid (`gpu.grid_dim x`; block ids are 0): one cluster,
  /// or a sample's clusters where a loop over the grid's work would run too
  /// long on one (a persistent kernel's units: block 0 takes its share).
  int64_t gridBlocks = clusterSize;
};

//===----------------------------------------------------------------------===//
// Role discovery (RoleDiscovery.cpp)
//===----------------------------------------------------------------------===//

/// The constant cluster size of the launches of `kernel` (1 without).
int64_t getClusterSize(gpu::GPUFuncOp kernel);

/// Fills `facts.filledBuffers` from the copies of `facts.kernel`.
void collectFilledBuffers(KernelFacts &facts);

/// Fills `facts.storedBuffers` from the bulk stores of `facts.kernel`.
void collectStoredBuffers(KernelFacts &facts);

/// Fills `facts.exchangedBuffers` (after the filled and stored buffers).
void collectExchangedBuffers(KernelFacts &facts);

/// The shared buffer a bulk store reads (TMA store or reduce, bulk copy to
/// global memory) with its indices and the leading ones that name the tile
/// it reads, or std::nullopt for other ops.
struct BulkStoreSource {
  Value src;
  ValueRange indices;
  unsigned stageIndices;
};
std::optional<BulkStoreSource> getBulkStoreSource(Operation *op);

/// Whether `op` or an op nested in it takes part in the protocol.
bool involvesProtocol(Operation *op);

/// Groups the threads of the block into roles, in thread order.
std::vector<Role> findRoles(const KernelFacts &facts);

//===----------------------------------------------------------------------===//
// The interpreter (RoleInterpreter.cpp)
//===----------------------------------------------------------------------===//

/// The value of `value` in `thread`, from thread ids alone (no samples).
std::optional<int64_t> evaluateInThread(const KernelFacts &facts,
                                        int64_t thread, Value value);

/// Interprets `role` (as its first thread) with unknown values at `sample`
/// into its trace. False when the kernel uses a construct the model does not
/// follow; `reason` says which.
bool interpretRole(const KernelFacts &facts, int64_t sample, Role &role,
                   std::string &reason);

//===----------------------------------------------------------------------===//
// The simulation (RoleSimulation.cpp)
//===----------------------------------------------------------------------===//

/// Runs the traces of `roles` against the barriers, one event at a time of
/// the first role in `order` that can proceed. With `promoteWoken`, a role
/// woken by a phase completion moves to the front of the order; without, the
/// order stays fixed. Returns a finding, std::nullopt when every role ran to
/// its end, or a finding with a null op when the run is not modeled.
std::optional<Finding> simulateRoles(ArrayRef<Role> roles, bool promoteWoken,
                                     SmallVector<unsigned> order);

//===----------------------------------------------------------------------===//
// Aligned collectives (AlignedUniformity.cpp)
//===----------------------------------------------------------------------===//

/// An aligned instruction (PTX `.sync.aligned`): the warps that pass it
/// together, and how many threads must execute the same instruction (the
/// warpgroup for wgmma, the warp for mma.sync, ldmatrix, stmatrix and
/// named barriers).
struct AlignedCollective {
  int64_t warps;
  int64_t threads;
};

std::optional<AlignedCollective> getAlignedCollective(Operation *op);

} // namespace mlir::tile::role_protocol

#endif // TILE_LIB_ANALYSIS_ASYNCPROTOCOL_ROLEPROTOCOL_H
