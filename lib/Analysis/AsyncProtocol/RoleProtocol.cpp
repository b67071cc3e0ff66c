//===- RoleProtocol.cpp - The roles of a kernel over shared mbarriers -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The threads of a block of known size, grouped into roles, run concurrently
// against a model of the mbarrier hardware (PTX ISA, "Parallel
// Synchronization and Communication Instructions: mbarrier"):
//
//  - Roles. Threads that agree on every i1 value computable from the thread
//    id alone (`thread_id x == c`, the warpgroup index, `lane == 0`,
//    elect_sync, ...) and on every barrier operand, bound or carried value of
//    a loop that takes part in the protocol and ring stage index computed so
//    take the same branches: one representative of each class is
//    interpreted and its arrivals are counted once per thread of the class.
//    tile.warp_specialize runs its producer region in warpgroup 0 and
//    consumer i in warpgroup i + 1; tile.tma_copy acts in thread 0 only.
//  - Traces. Each role is interpreted on concrete values into a trace of
//    barrier events: loops run iteration by iteration with their iter_args
//    (stage counters, phase bits), scf.if takes the branch its condition
//    selects. Values a kernel cannot know statically (scalar arguments,
//    memref sizes and strides, loaded data) take one sample value, the same in
//    every role, so that loops all roles bound by the same expression run
//    equally often; the kernel is simulated once per sample (kSamples). Block
//    ids are 0 and the grid is one cluster.
//  - Barriers. A barrier has a phase, the arrivals the phase still waits for
//    (its init count at each phase) and a transaction count; the phase
//    completes when both reach zero. A parity wait returns once the phase of
//    that parity has completed, i.e. while the current phase's parity
//    differs: a fresh barrier is in phase 0, so a wait for parity 1 returns
//    at once (the phase before it counts as complete). Bulk copies and TMA
//    loads deliver their bytes when issued. Clusters are taken as symmetric:
//    a multicast load delivers its box once per CTA of its mask to this
//    CTA's barrier, and a remote arrive of a peer arrives here. What an op
//    does to its barrier comes from BarrierOpInterface.
//  - Stages. A buffer that TMA or bulk copies fill is a ring when every copy
//    fills one whole stage named by its leading indices (see getSharedCopy);
//    else it is one stage. Reads of it (memref/vector loads, ldmatrix via
//    getElementAccess; wgmma operands until a wgmma wait retires them) are
//    checked against the copy that last wrote their stage.
//  - Collectives. Aligned warp and warpgroup instructions (wgmma, mma.sync,
//    ldmatrix, stmatrix, named barriers) are passed together by all the roles
//    connected through shared warps or warpgroups, gpu.barrier and
//    cluster_wait by all; roles passing one together share what each has
//    waited for.
//  - Schedules. One event at a time of the first role in a priority order
//    that can proceed. Each sample runs four schedules: the roles in thread
//    order and reversed, each with a fixed order (the first roles run as far
//    ahead as they can: a producer fills the whole ring before a consumer
//    starts) and with a role woken by a phase completion moved to the front
//    (a consumer reads, a producer refills, as soon as it may).
//
// Reported (the first finding ends the analysis of the kernel):
//  - T-PROTO-11: every role is blocked or done while some wait for a phase
//    that no role can complete any more: a deadlock (a hang on the GPU).
//  - T-PROTO-7: a wait returns on a phase its role already saw on that
//    barrier: the parity did not flip when the ring came back to it (or
//    flipped twice), so the wait waits for nothing; or on a phase two or
//    more past the one it saw before: the role fell behind the ring (threads
//    that only wait on it) and its parity matched a later phase.
//  - T-PROTO-12: a role reads a stage of a buffer filled by copies that
//    complete on barriers when the copy that last wrote the stage is not
//    complete, or belongs to a phase of its barrier the role has not waited
//    for (a wait that returned too early, a stage refilled before its
//    readers released it); or a copy overwrites a stage that a wgmma of
//    another role may still read.
// Kernels with constructs the model does not follow (barrier indices or loop
// bounds it cannot evaluate, scf.while, try/test waits, traces over
// kMaxEvents) are left to the other analyses.
//===----------------------------------------------------------------------===//

#include "IndexEvaluation.h"
#include "ProtocolAnalyses.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

#include <deque>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Sample values of what a kernel cannot know statically: small, medium and
/// ragged problem sizes.
constexpr int64_t kSamples[] = {1, 200, 520};
/// Iterations of one loop, and events of one role's trace, beyond which the
/// kernel is not modeled.
constexpr int64_t kMaxTrip = 4096;
constexpr size_t kMaxEvents = 200000;
/// Ops interpreted per role (nested loops of arithmetic), and the largest
/// count or byte amount followed.
constexpr int64_t kMaxSteps = 2000000;
constexpr int64_t kMaxAmount = int64_t(1) << 40;

/// A barrier: its group (the mbarrier_alloc result) and index.
using BarrierId = std::pair<void *, int64_t>;
/// A stage of a shared buffer: the root buffer and the first index for
/// buffers of rank >= 2 (-1 for others).
using Stage = std::pair<void *, SmallVector<int64_t, 2>>;

/// "stage (0, 1)" or "a buffer" (one filled in one piece) for messages.
std::string describeStage(const Stage &stage) {
  if (stage.second.empty())
    return "a buffer";
  std::string text = "stage ";
  if (stage.second.size() > 1)
    text += "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(stage.second, os);
  if (stage.second.size() > 1)
    os << ")";
  return text;
}

enum class EventKind {
  Init,       ///< amount: the count
  Arrive,     ///< amount: arrivals per thread
  ArriveDrop, ///< one arrival, and one fewer expected from the next phase on
  ExpectTx,   ///< amount: bytes per thread
  Deliver,    ///< amount: bytes per thread; `stage` written (or none)
  Wait,       ///< amount: the parity
  Inval,
  Read,      ///< a synchronous read of `stage`
  AsyncRead, ///< a wgmma operand: read until a later wgmma wait retires it
  AsyncCommit,
  AsyncWait, ///< amount: the groups kept in flight
  Sync,      ///< a CTA-wide barrier (gpu.barrier, cluster_wait)
  /// An aligned collective (wgmma, mma.sync, ldmatrix, a named barrier):
  /// the roles sharing a unit of `amount` warps with this one meet at it.
  Collective,
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
  /// whole stage, named by its leading indices) the number of those
  /// indices; 0 for a buffer whose copies may write any part of it (one
  /// stage: the whole buffer).
  llvm::DenseMap<void *, unsigned> filledBuffers;
};

/// Whether `op` or an op nested in it takes part in the protocol.
bool involvesProtocol(Operation *op) {
  auto isBarrier = [](Type t) { return isa<MBarrierType>(t); };
  WalkResult result = op->walk([&](Operation *nested) {
    if (llvm::any_of(nested->getOperandTypes(), isBarrier) ||
        llvm::any_of(nested->getResultTypes(), isBarrier) ||
        isa<gpu::BarrierOp, ClusterWaitOp, WgmmaDescriptorOp, WgmmaOp,
            WgmmaRsOp, WarpgroupMmaOp, WarpgroupMmaRsOp, TmaCopyOp>(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// An aligned instruction (PTX `.sync.aligned`): the warps that pass it
/// together, and how many threads must execute the same instruction (the
/// warpgroup for wgmma, the warp for mma.sync, ldmatrix, stmatrix and
/// named barriers).
struct AlignedCollective {
  int64_t warps;
  int64_t threads;
};

std::optional<AlignedCollective> getAlignedCollective(Operation *op) {
  if (isa<WgmmaFenceOp, WgmmaOp, WgmmaRsOp, WgmmaCommitGroupOp,
          WgmmaWaitGroupOp, WarpgroupMmaOp, WarpgroupMmaRsOp>(op))
    return AlignedCollective{4, kWarpgroupThreads};
  if (isa<MmaSyncOp, MmaOp, LdMatrixOp, StMatrixOp>(op))
    return AlignedCollective{1, 32};
  if (auto named = dyn_cast<NVVM::BarrierOp>(op);
      (named && named.getNumberOfThreads()) || isa<NamedBarrierSyncOp>(op))
    return AlignedCollective{4, 32};
  return std::nullopt;
}

/// Interprets one role of a kernel for one sample into its trace.
class RoleInterpreter {
public:
  RoleInterpreter(const KernelFacts &facts, int64_t thread, int64_t sample,
                  Role &role)
      : facts(facts), thread(thread), sample(sample), role(role) {}

  /// False when the kernel uses a construct the model does not follow;
  /// `reason` says which.
  bool run() {
    gpu::GPUFuncOp kernel = facts.kernel;
    visitBlock(kernel.getBody().front());
    return modeled;
  }

  std::string reason;

  /// The value of `value` in `thread`, from thread ids alone (no samples).
  static std::optional<int64_t> threadValue(const KernelFacts &facts,
                                            int64_t thread, Value value) {
    return evaluateIndex(value,
                         [&](Value v) { return threadLeaf(facts, thread, v); });
  }

private:
  const KernelFacts &facts;
  int64_t thread;
  int64_t sample;
  Role &role;
  llvm::DenseMap<Value, int64_t> values;
  /// sameInWarpgroup of each load's indices, once per load (it evaluates
  /// them from thread ids alone, so no iteration changes it).
  llvm::DenseMap<Operation *, bool> uniformLoads;
  bool modeled = true;

  void giveUp(Operation *op, StringRef why) {
    if (!modeled)
      return;
    modeled = false;
    std::string location;
    llvm::raw_string_ostream os(location);
    op->getLoc().print(os);
    reason =
        (why + " (" + op->getName().getStringRef() + " at " + location + ")")
            .str();
  }

  static std::optional<int64_t> threadLeaf(const KernelFacts &facts,
                                           int64_t thread, Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    int64_t x = facts.blockDims[0], y = facts.blockDims[1];
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(def)) {
      switch (tid.getDimension()) {
      case gpu::Dimension::x:
        return thread % x;
      case gpu::Dimension::y:
        return thread / x % y;
      case gpu::Dimension::z:
        return thread / (x * y);
      }
    }
    if (auto dim = dyn_cast<gpu::BlockDimOp>(def))
      return facts.blockDims[static_cast<int>(dim.getDimension())];
    if (isa<gpu::LaneIdOp>(def))
      return thread % 32;
    if (isa<gpu::SubgroupIdOp>(def))
      return thread / 32;
    if (isa<gpu::SubgroupSizeOp>(def))
      return 32;
    if (isa<gpu::NumSubgroupsOp>(def))
      return (facts.blockDims[0] * facts.blockDims[1] * facts.blockDims[2] +
              31) /
             32;
    if (isa<ElectSyncOp>(def))
      return thread % 32 == 0;
    return std::nullopt;
  }

  /// Whether sample values may stand for unknown ones (not for counts).
  bool samplesAllowed = true;

  std::optional<int64_t> sampled() {
    return samplesAllowed ? std::optional<int64_t>(sample) : std::nullopt;
  }

  std::optional<int64_t> leaf(Value v) {
    if (auto it = values.find(v); it != values.end())
      return it->second;
    if (std::optional<int64_t> known = threadLeaf(facts, thread, v))
      return known;
    if (!v.getType().isIntOrIndex())
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner()->isEntryBlock() &&
                     arg.getOwner()->getParentOp() == facts.kernel
                 ? sampled()
                 : std::nullopt;
    Operation *def = v.getDefiningOp();
    if (isa<gpu::BlockIdOp, gpu::ClusterIdOp, gpu::ClusterBlockIdOp,
            ClusterCtaRankOp>(def))
      return 0;
    if (auto grid = dyn_cast<gpu::GridDimOp>(def))
      return grid.getDimension() == gpu::Dimension::x ? facts.clusterSize : 1;
    if (isa<ClusterSizeOp>(def))
      return facts.clusterSize;
    // Loaded data: sample - 1, so that a loaded flag is false in one
    // sample and true in the others (tile.split_k_reduce's "last": the
    // CTA that sums and the ones that do not). From an address that
    // depends on the thread only if all threads of the warpgroup read the
    // same word (that flag is the warpgroup's); else unknown.
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      std::optional<int64_t> value = sampled();
      auto [it, inserted] = uniformLoads.try_emplace(load, false);
      if (inserted)
        it->second = sameInWarpgroup(load.getIndices());
      if (!value || !it->second)
        return std::nullopt;
      return *value - 1;
    }
    // Sizes, strides, ...: anything but arithmetic, and never a value
    // computed from the thread id (its threads would all get the sample).
    if (!isa<arith::ArithDialect>(def->getDialect()) && !isScheduleOp(def) &&
        !dependsOnThreadId(def))
      return sampled();
    return std::nullopt;
  }

  std::optional<int64_t> evaluate(Value value) {
    return evaluateIndex(value, [&](Value v) { return leaf(v); });
  }

  /// Whether every index that depends on the thread id takes one value in
  /// all threads of this thread's warpgroup.
  bool sameInWarpgroup(ValueRange indices) const {
    int64_t threads =
        facts.blockDims[0] * facts.blockDims[1] * facts.blockDims[2];
    int64_t begin = thread / kWarpgroupThreads * kWarpgroupThreads;
    int64_t end = std::min(threads, begin + kWarpgroupThreads);
    return llvm::all_of(indices, [&](Value index) {
      Operation *def = index.getDefiningOp();
      if (!def || !dependsOnThreadId(def))
        return true;
      std::optional<int64_t> first = threadValue(facts, begin, index);
      if (!first)
        return false;
      for (int64_t t = begin + 1; t < end; ++t)
        if (threadValue(facts, t, index) != first)
          return false;
      return true;
    });
  }

  /// The value of `value`, or gives up on the kernel.
  int64_t require(Value value) {
    std::optional<int64_t> known = evaluate(value);
    if (!known)
      giveUp(current, "a value it cannot evaluate");
    else if (*known > kMaxAmount || *known < -kMaxAmount)
      giveUp(current, "a value too large to follow");
    return modeled ? *known : 0;
  }

  /// The value of an arrival count, a byte count or a multicast mask: a
  /// sample would be no plausible count (200 arrivals from 128 threads), so
  /// a count the kernel only knows at run time is not followed.
  int64_t requireCount(Value value) {
    samplesAllowed = false;
    std::optional<int64_t> known = evaluate(value);
    samplesAllowed = true;
    if (!known && modeled && evaluate(value))
      giveUp(current, "a count known only at run time");
    return require(value);
  }

  void bind(Value value, std::optional<int64_t> known) {
    if (known)
      values[value] = *known;
    else
      values.erase(value);
  }

  SmallVector<std::optional<int64_t>> evaluateAll(ValueRange range) {
    return llvm::map_to_vector(range, [&](Value v) { return evaluate(v); });
  }

  void emit(Event event) {
    if (role.trace.size() >= kMaxEvents)
      giveUp(event.op, "too many events");
    else
      role.trace.push_back(event);
  }

  BarrierId barrier(Value group, Value index) {
    return {group.getAsOpaquePointer(), require(index)};
  }

  /// The stage `memref[indices]` is in, for buffers copies fill.
  /// Accesses through a view of a ring name no stage: not checked.
  std::optional<Stage> stageOf(Value memref, ValueRange indices) {
    Value root = getRootBuffer(memref);
    auto it = facts.filledBuffers.find(root.getAsOpaquePointer());
    if (it == facts.filledBuffers.end())
      return std::nullopt;
    Stage stage{root.getAsOpaquePointer(), {}};
    if (it->second == 0)
      return stage;
    if (memref != root || indices.size() < it->second)
      return std::nullopt;
    for (Value index : indices.take_front(it->second))
      stage.second.push_back(require(index));
    return stage;
  }

  void visitBlock(Block &block) {
    for (Operation &op : block) {
      if (!modeled)
        return;
      visit(&op);
    }
  }

  void visitFor(scf::ForOp forOp) {
    int64_t lb = require(forOp.getLowerBound());
    int64_t ub = require(forOp.getUpperBound());
    int64_t step = require(forOp.getStep());
    if (modeled && (step <= 0 || (ub - lb) / step > kMaxTrip))
      giveUp(forOp, "a loop of more than kMaxTrip iterations");
    if (!modeled)
      return;
    SmallVector<std::optional<int64_t>> carried =
        evaluateAll(forOp.getInitArgs());
    for (int64_t i = lb; i < ub && modeled; i += step) {
      current = forOp;
      values[forOp.getInductionVar()] = i;
      for (auto [arg, value] : llvm::zip(forOp.getRegionIterArgs(), carried))
        bind(arg, value);
      visitBlock(*forOp.getBody());
      carried = evaluateAll(forOp.getBody()->getTerminator()->getOperands());
    }
    for (auto [result, value] : llvm::zip(forOp.getResults(), carried))
      bind(result, value);
  }

  void visitIf(scf::IfOp ifOp) {
    int64_t condition = require(ifOp.getCondition());
    if (!modeled)
      return;
    Region &taken = condition ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (taken.empty())
      return;
    visitBlock(taken.front());
    for (auto [result, yielded] : llvm::zip(
             ifOp.getResults(), taken.front().getTerminator()->getOperands()))
      bind(result, evaluate(yielded));
  }

  void visitWarpSpecialize(WarpSpecializeOp op) {
    int64_t warpgroup = thread / 128;
    if (warpgroup == 0)
      return visitBlock(op.getProducer().front());
    if (warpgroup > static_cast<int64_t>(op.getConsumers()))
      return;
    Block &consumer = op.getConsumer().front();
    if (consumer.getNumArguments() == 1)
      values[consumer.getArgument(0)] = warpgroup - 1;
    visitBlock(consumer);
  }

  int64_t requireCount(OpFoldResult count) {
    if (auto value = dyn_cast<Value>(count))
      return requireCount(value);
    return getConstantIntValue(count).value_or(0);
  }

  /// The multicast mask of a copy into this CTA, if it has one.
  static Value getMulticastMask(Operation *op) {
    if (auto load = dyn_cast<TmaLoadOp>(op))
      return load.getMulticastMask();
    if (auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(op))
      return bulk.getMulticastMask();
    return nullptr;
  }

  /// The stage a copy into this CTA's shared memory writes.
  std::optional<Stage> getCopyStage(Operation *op) {
    if (std::optional<SharedCopy> copy = getSharedCopy(op))
      return stageOf(copy->dst, copy->dstIndices);
    return std::nullopt;
  }

  /// The events of an op on a barrier, from what BarrierOpInterface says it
  /// does: init, inval, a parity wait, expected bytes, arrivals, completed
  /// bytes (with the stage a copy writes). Clusters are symmetric: a remote
  /// arrive of a peer arrives here, a multicast copy delivers its bytes once
  /// per CTA of its mask.
  void visitBarrierOp(BarrierOpInterface op) {
    Operation *raw = op.getOperation();
    // One elected thread, thread 0, acts for the executing threads.
    bool once = op.isIssuedOnce();
    if (once && thread != 0)
      return;
    BarrierId id = barrier(op.getBarrierGroup(), op.getBarrierIndex());
    if (Value count = op.getInitCount())
      return emit({EventKind::Init, raw, id, requireCount(count)});
    if (op.isInval())
      return emit({EventKind::Inval, raw, id});
    if (op.isWait()) {
      // Try and test waits return a flag a loop decides on: not followed.
      if (!isa<MBarrierWaitParityOp>(raw))
        return giveUp(raw, "a try/test wait (the loop around it decides)");
      return emit({EventKind::Wait, raw, id, require(op.getWaitParity())});
    }
    if (int64_t bytes = requireCount(op.getExpectedTxBytes()))
      emit({EventKind::ExpectTx, raw, id, bytes, std::nullopt, !once});
    if (int64_t arrivals = requireCount(op.getArrivalCount()))
      emit({isa<MBarrierArriveDropOp>(raw) ? EventKind::ArriveDrop
                                           : EventKind::Arrive,
            raw, id, arrivals, std::nullopt, !once});
    if (int64_t bytes = requireCount(op.getCompletedTxBytes())) {
      if (Value mask = getMulticastMask(raw))
        bytes *= llvm::popcount(static_cast<uint16_t>(requireCount(mask)));
      emit({EventKind::Deliver, raw, id, bytes, getCopyStage(raw), !once});
    }
  }

  /// The op being interpreted, for the reason of giving up.
  Operation *current = nullptr;

  int64_t steps = 0;

  void visit(Operation *op) {
    current = op;
    if (++steps > kMaxSteps)
      return giveUp(op, "too many steps");
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return visitFor(forOp);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return visitIf(ifOp);
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      return visitWarpSpecialize(ws);
    if (op->getNumRegions() != 0) {
      if (involvesProtocol(op))
        giveUp(op, "a region op it does not follow");
      return;
    }
    if (auto barrierOp = dyn_cast<BarrierOpInterface>(op))
      return visitBarrierOp(barrierOp);
    // A wgmma reads the tiles its descriptors address when it is issued
    // (building a descriptor only computes an address).
    // An MN-major descriptor's tile spans `extent` (M or N) in chunks of
    // one span each. (A K-major one reads its own chunk: each K step has
    // its descriptor; B rows that continue over the chunk dimension are
    // the halves a cluster multicasts, which this CTA's copies do not
    // fill, so the first stands for both.)
    SmallVector<std::pair<Value, int64_t>, 2> descriptors;
    if (auto wgmma = dyn_cast<WgmmaOp>(op))
      descriptors = {{wgmma.getDescA(), 64}, {wgmma.getDescB(), wgmma.getN()}};
    else if (auto wgmma = dyn_cast<WgmmaRsOp>(op))
      descriptors = {{wgmma.getDescB(), wgmma.getN()}};
    for (auto [descriptor, extent] : descriptors)
      if (auto tile = descriptor.getDefiningOp<WgmmaDescriptorOp>()) {
        int64_t span = tile.getBuffer().getType().getShape().back();
        emitChunkReads(op, tile.getBuffer(), tile.getIndices(),
                       tile.getMnMajor() ? llvm::divideCeil(extent, span) : 1);
      }
    visitEffects(op);
    // Aligned collectives: the warp's or warpgroup's threads pass them
    // together (after their effects: a wgmma wait retires in all threads).
    if (std::optional<AlignedCollective> aligned = getAlignedCollective(op))
      emit({EventKind::Collective, op, {}, aligned->warps});
  }

  /// Async reads of the tile at `buffer[indices]` that covers `chunks`
  /// entries of the dimension before its last two (a tile's MN-major
  /// chunks, K-major rows or K spans that continue there), each its own
  /// stage where a ring's stages name that dimension.
  void emitChunkReads(Operation *op, Value buffer, ValueRange indices,
                      int64_t chunks) {
    std::optional<Stage> stage = stageOf(buffer, indices);
    if (!stage)
      return;
    size_t chunkDim = indices.size() >= 3 ? indices.size() - 3 : indices.size();
    for (int64_t c = 0; c < (chunkDim < stage->second.size() ? chunks : 1);
         ++c) {
      Stage read = *stage;
      if (chunkDim < read.second.size())
        read.second[chunkDim] += c;
      emit({EventKind::AsyncRead, op, {}, 0, read});
    }
  }

  /// Reads of the A and B tiles of a tile-level MMA.
  template <typename MmaLikeOp>
  void emitOperandReads(MmaLikeOp mma, EventKind kind) {
    for (auto [buffer, indices] : {std::pair(mma.getA(), mma.getAIndices()),
                                   std::pair(mma.getB(), mma.getBIndices())})
      if (std::optional<Stage> stage = stageOf(buffer, indices))
        emit({kind, mma.getOperation(), {}, 0, stage});
  }

  /// The events of a wgmma, copy or shared read op.
  void visitEffects(Operation *op) {
    if (isa<WgmmaCommitGroupOp>(op))
      return emit({EventKind::AsyncCommit, op});
    if (auto wait = dyn_cast<WgmmaWaitGroupOp>(op))
      return emit({EventKind::AsyncWait, op, {}, wait.getPending()});
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      emitOperandReads(mma, EventKind::AsyncRead);
      emit({EventKind::AsyncCommit, op});
      return emit({EventKind::AsyncWait, op, {}, mma.getWait()});
    }
    if (auto mma = dyn_cast<WarpgroupMmaRsOp>(op)) {
      // B's N (MN-major) or K (K-major) over chunks of one span.
      int64_t span = mma.getB().getType().getShape().back();
      int64_t chunks =
          llvm::divideCeil(mma.getShape()[mma.getTransposeB() ? 1 : 2], span);
      emitChunkReads(op, mma.getB(), mma.getBIndices(), chunks);
      emit({EventKind::AsyncCommit, op});
      return emit({EventKind::AsyncWait, op, {}, mma.getWait()});
    }
    if (auto mma = dyn_cast<MmaOp>(op))
      return emitOperandReads(mma, EventKind::Read);
    if (isa<gpu::BarrierOp, ClusterWaitOp>(op))
      return emit({EventKind::Sync, op});
    // Generic reads (memref/vector loads, ldmatrix) of filled stages.
    for (OpOperand &use : op->getOpOperands())
      if (std::optional<ElementAccess> access = getElementAccess(use);
          access && !access->writes)
        if (std::optional<Stage> stage =
                stageOf(access->memref->get(), OperandRange(access->indices)))
          emit({EventKind::Read, op, {}, 0, stage});
  }
};

/// The state of one barrier in the simulation.
struct BarrierState {
  bool initialized = false;
  int64_t count = 0;
  int64_t pending = 0;
  int64_t tx = 0;
  int64_t phase = 0;
  Operation *init = nullptr;
};

/// The copy that last wrote a stage: its barrier and the phase it completes.
struct StageWrite {
  BarrierId barrier;
  int64_t phase;
  Operation *copy;
};

/// Runs the roles' traces against the barriers.
class Simulation {
public:
  /// With `promoteWoken`, a role woken by a phase completion moves to the
  /// front of the priority order; without, the order stays fixed.
  Simulation(ArrayRef<Role> roles, bool promoteWoken)
      : roles(roles), promoteWoken(promoteWoken) {
    cursors.resize(roles.size());
  }

  /// A finding, std::nullopt when every role ran to its end, or a finding
  /// with a null op when the run is not modeled.
  std::optional<Finding> run(SmallVector<unsigned> order) {
    priority = std::move(order);
    while (true) {
      bool progressed = false;
      for (unsigned r : SmallVector<unsigned>(priority)) {
        Step step = advance(r);
        if (finding)
          return finding;
        if (step == Step::Advanced) {
          progressed = true;
          break;
        }
      }
      if (!progressed)
        break;
    }
    return deadlock();
  }

private:
  enum class Step { Advanced, Blocked, Done };

  /// Per role: the next event, the phase last seen per barrier, and the
  /// stages its wgmmas may still read.
  struct Cursor {
    size_t next = 0;
    std::map<BarrierId, int64_t> seen;
    std::set<Stage> asyncOpen;
    std::deque<std::set<Stage>> asyncGroups;
  };

  ArrayRef<Role> roles;
  bool promoteWoken;
  std::vector<Cursor> cursors;
  SmallVector<unsigned> priority;
  std::map<BarrierId, BarrierState> barriers;
  std::map<Stage, StageWrite> writes;
  std::optional<Finding> finding;

  const Event *current(unsigned r) const {
    const Cursor &cursor = cursors[r];
    if (cursor.next >= roles[r].trace.size())
      return nullptr;
    return &roles[r].trace[cursor.next];
  }

  void fail(Operation *op, std::string message) {
    if (!finding)
      finding = Finding{op, std::move(message), {}};
  }

  /// Completes phases while nothing is pending, waking their waiters.
  void settle(const BarrierId &id) {
    BarrierState &state = barriers[id];
    if (state.pending <= 0 && state.tx == 0) {
      // One or more phases complete (arrivals beyond a phase's count go to
      // the next ones; a count dropped to zero completes just this one).
      int64_t phases = state.count > 0 ? -state.pending / state.count + 1 : 1;
      state.phase += phases;
      state.pending += phases * state.count;
      if (!promoteWoken)
        return;
      SmallVector<unsigned> woken;
      for (unsigned r : priority)
        if (const Event *event = current(r);
            event && event->kind == EventKind::Wait && event->barrier == id)
          woken.push_back(r);
      for (unsigned r : woken)
        llvm::erase(priority, r);
      priority.insert(priority.begin(), woken.begin(), woken.end());
    }
  }

  static std::string describe(const BarrierId &id) {
    return "barrier " + std::to_string(id.second);
  }

  /// T-PROTO-12 for a read of `stage` by role `r`.
  void checkRead(unsigned r, const Event &event) {
    auto it = writes.find(*event.stage);
    if (it == writes.end()) {
      fail(event.op, "reads " + describeStage(*event.stage) + " (" +
                         roles[r].describe() +
                         ") that copies fill before any copy into it "
                         "completed: its wait returned too early (T-PROTO-12)");
      return;
    }
    const StageWrite &write = it->second;
    const BarrierState &state = barriers[write.barrier];
    const Cursor &cursor = cursors[r];
    auto seen = cursor.seen.find(write.barrier);
    if (state.phase > write.phase && seen != cursor.seen.end() &&
        seen->second >= write.phase)
      return;
    std::string message =
        "reads " + describeStage(*event.stage) + " (" + roles[r].describe() +
        ") written by a copy that completes phase " +
        std::to_string(write.phase) + " of " + describe(write.barrier) + ", ";
    if (state.phase <= write.phase)
      message += "which has not completed";
    else if (seen == cursor.seen.end())
      message += "which this role never waited for";
    else
      message += "but this role's last wait on it saw phase " +
                 std::to_string(seen->second);
    message += ": the stage is read before its data arrived or after it was "
               "refilled (T-PROTO-12)";
    fail(event.op, message);
    finding->notes.push_back({write.copy, "the copy"});
  }

  /// T-PROTO-12 for a copy into `stage` that a wgmma of another role reads.
  void checkOverwrite(unsigned r, const Event &event) {
    for (auto [other, cursor] : llvm::enumerate(cursors)) {
      if (other == r)
        continue;
      bool reading = cursor.asyncOpen.count(*event.stage) ||
                     llvm::any_of(cursor.asyncGroups, [&](const auto &group) {
                       return group.count(*event.stage) != 0;
                     });
      if (!reading)
        continue;
      fail(event.op, "overwrites " + describeStage(*event.stage) +
                         " while a wgmma of " + roles[other].describe() +
                         " may still read it: the stage was released before "
                         "the wgmma reading it was waited for (T-PROTO-12)");
      return;
    }
  }

  Step advance(unsigned r) {
    const Event *event = current(r);
    if (!event)
      return Step::Done;
    Cursor &cursor = cursors[r];
    int64_t times = event->perThread ? roles[r].threads : 1;
    switch (event->kind) {
    case EventKind::Init: {
      BarrierState &state = barriers[event->barrier];
      state = BarrierState{true, event->amount, event->amount, 0, 0, event->op};
      for (Cursor &each : cursors)
        each.seen.erase(event->barrier);
      break;
    }
    case EventKind::Inval:
      barriers[event->barrier].initialized = false;
      break;
    case EventKind::Arrive:
    case EventKind::ArriveDrop: {
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      for (int64_t t = 0; t < times; ++t) {
        state.pending -= event->amount;
        // arrive_drop: this phase gets the arrival, later phases expect one
        // fewer.
        if (event->kind == EventKind::ArriveDrop)
          --state.count;
        settle(event->barrier);
      }
      break;
    }
    case EventKind::ExpectTx: {
      BarrierState &state = barriers[event->barrier];
      state.tx += event->amount * times;
      if (state.tx > kMaxAmount * 1024)
        return notModeled();
      break;
    }
    case EventKind::Deliver: {
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      if (event->stage) {
        checkOverwrite(r, *event);
        writes[*event->stage] = {event->barrier, state.phase, event->op};
      }
      state.tx -= event->amount * times;
      if (state.tx < -kMaxAmount * 1024)
        return notModeled();
      settle(event->barrier);
      break;
    }
    case EventKind::Wait: {
      BarrierState &state = barriers[event->barrier];
      if (!state.initialized)
        return notModeled();
      if ((state.phase & 1) == (event->amount & 1))
        return Step::Blocked;
      int64_t observed = state.phase - 1;
      // Before its first wait a role has seen "phase -2": the first wait
      // returns on the phase before the first (-1: parity 1 on a fresh
      // barrier) or on the first.
      auto [seen, fresh] = cursor.seen.try_emplace(event->barrier, -2);
      (void)fresh;
      if (observed <= seen->second) {
        fail(event->op,
             "waits for parity " + std::to_string(event->amount & 1) + " of " +
                 describe(event->barrier) + " (" + roles[r].describe() +
                 "), which returns at once on phase " +
                 std::to_string(observed) +
                 " that this role already saw: the parity must flip each "
                 "time the ring comes back to the barrier (T-PROTO-7)");
        return Step::Advanced;
      }
      if (observed > std::max<int64_t>(seen->second, -1) + 1) {
        fail(event->op,
             "waits for parity " + std::to_string(event->amount & 1) + " of " +
                 describe(event->barrier) + " (" + roles[r].describe() +
                 ") and returns on phase " + std::to_string(observed) +
                 (seen->second == -2
                      ? std::string(", though this is its first wait on it")
                      : ", but its previous wait saw phase " +
                            std::to_string(seen->second)) +
                 ": the role fell two phases behind the ring and a parity "
                 "names a phase only modulo 2 (threads that only wait on a "
                 "ring must not lag: let one thread run it) (T-PROTO-7)");
        return Step::Advanced;
      }
      cursor.seen[event->barrier] = observed;
      break;
    }
    case EventKind::Read:
      checkRead(r, *event);
      break;
    case EventKind::AsyncRead:
      checkRead(r, *event);
      cursor.asyncOpen.insert(*event->stage);
      break;
    case EventKind::AsyncCommit:
      cursor.asyncGroups.push_back(std::move(cursor.asyncOpen));
      cursor.asyncOpen.clear();
      break;
    case EventKind::AsyncWait:
      while (static_cast<int64_t>(cursor.asyncGroups.size()) > event->amount)
        cursor.asyncGroups.pop_front();
      if (event->amount == 0)
        cursor.asyncOpen.clear();
      break;
    case EventKind::Collective: {
      // Every running role connected to this one through shared units of
      // warps must be at the same op; they pass it together and share what
      // they have waited for.
      int64_t unit = event->amount;
      auto shareUnit = [&](unsigned a, unsigned b) {
        for (int w : roles[a].warps.set_bits())
          for (int v : roles[b].warps.set_bits())
            if (w / unit == v / unit)
              return true;
        return false;
      };
      SmallVector<unsigned> group = {r};
      for (size_t i = 0; i < group.size(); ++i)
        for (unsigned other = 0; other < roles.size(); ++other)
          if (current(other) && !llvm::is_contained(group, other) &&
              shareUnit(group[i], other))
            group.push_back(other);
      for (unsigned other : group) {
        const Event *at = current(other);
        if (at->kind != EventKind::Collective || at->op != event->op)
          return Step::Blocked;
      }
      meet(group);
      return Step::Advanced;
    }
    case EventKind::Sync: {
      // Every role still running must be at a CTA barrier.
      SmallVector<unsigned> group;
      for (unsigned other = 0; other < roles.size(); ++other) {
        const Event *at = current(other);
        if (at && at->kind != EventKind::Sync)
          return Step::Blocked;
        if (at)
          group.push_back(other);
      }
      meet(group);
      return Step::Advanced;
    }
    }
    ++cursor.next;
    return Step::Advanced;
  }

  /// Roles passing a barrier or collective together: each has seen what
  /// any of them has waited for (a thread that waited, then a bar.sync,
  /// orders the others' reads after the wait too).
  void meet(ArrayRef<unsigned> group) {
    std::map<BarrierId, int64_t> seen;
    for (unsigned r : group)
      for (const auto &[id, phase] : cursors[r].seen)
        seen[id] = std::max(seen.count(id) ? seen[id] : phase, phase);
    for (unsigned r : group) {
      for (const auto &[id, phase] : seen)
        cursors[r].seen[id] = std::max(
            cursors[r].seen.count(id) ? cursors[r].seen[id] : phase, phase);
      ++cursors[r].next;
    }
  }

  Step notModeled() {
    if (!finding)
      finding =
          Finding{nullptr, "a barrier used before its initialization", {}};
    return Step::Blocked;
  }

  /// Why a role's blocked wait names a phase that never comes when the
  /// barrier is already past the phase the role meant (the next after the
  /// one its previous wait saw; for a first wait, the phase before the
  /// first for parity 1, the first for parity 0); empty otherwise.
  std::string lagging(unsigned r, const Event &wait,
                      const BarrierState &state) const {
    auto seen = cursors[r].seen.find(wait.barrier);
    bool first = seen == cursors[r].seen.end() || seen->second == -2;
    int64_t meant = first ? ((wait.amount & 1) ? -1 : 0) : seen->second + 1;
    if (state.phase <= meant)
      return "";
    return std::string("; the barrier is past the phase this role meant (") +
           (first ? "this is its first wait on it"
                  : "its previous wait saw phase " +
                        std::to_string(seen->second)) +
           "): threads that only wait on a ring fall behind it and a parity "
           "names a phase only modulo 2; let one thread run the ring";
  }

  /// T-PROTO-11: roles blocked at waits that no role can complete. Roles
  /// blocked at collectives only (whose partners took another path) are not
  /// modeled.
  std::optional<Finding> deadlock() {
    bool running = llvm::any_of(llvm::seq<unsigned>(0, roles.size()),
                                [&](unsigned r) { return current(r); });
    bool waiting =
        llvm::any_of(llvm::seq<unsigned>(0, roles.size()), [&](unsigned r) {
          const Event *event = current(r);
          return event && event->kind == EventKind::Wait;
        });
    if (running && !waiting)
      return Finding{nullptr,
                     "threads of one warp or warpgroup that do not "
                     "meet at an aligned collective op",
                     {}};
    std::optional<Finding> result;
    for (unsigned r : priority) {
      const Event *event = current(r);
      if (!event || event->kind != EventKind::Wait)
        continue;
      if (result) {
        result->notes.push_back(
            {event->op, roles[r].describe() + " is blocked here"});
        continue;
      }
      const BarrierState &state = barriers[event->barrier];
      result = Finding{
          event->op,
          "waits for parity " + std::to_string(event->amount & 1) + " of " +
              describe(event->barrier) + " (" + roles[r].describe() +
              ") in phase " + std::to_string(state.phase) +
              ", which never completes: every role is blocked or done with " +
              std::to_string(std::max<int64_t>(state.pending, 0)) + " of " +
              std::to_string(state.count) + " arrivals missing and " +
              (state.tx >= 0 ? std::to_string(state.tx) +
                                   " transaction bytes still expected"
                             : std::to_string(-state.tx) +
                                   " transaction bytes more delivered than "
                                   "expected") +
              lagging(r, *event, state) + " (T-PROTO-11)",
          {}};
      if (state.init)
        result->notes.push_back({state.init, "barrier initialized here"});
    }
    return result;
  }
};

/// The constant cluster size of the launches of `kernel` (1 without).
int64_t getClusterSize(gpu::GPUFuncOp kernel) {
  int64_t size = 1;
  for (gpu::LaunchFuncOp launch : getLaunches(kernel)) {
    if (!launch.hasClusterSize())
      continue;
    int64_t product = 1;
    for (Value dim : {launch.getClusterSizeX(), launch.getClusterSizeY(),
                      launch.getClusterSizeZ()})
      if (std::optional<int64_t> value = getConstantIntValue(dim))
        product *= *value;
    size = std::max(size, product);
  }
  return size;
}

/// Groups the threads of the block into roles.
std::vector<Role> findRoles(const KernelFacts &facts) {
  // The values whose agreement makes threads take the same path.
  SmallVector<Value> deciding;
  bool specialized = false;
  facts.kernel.walk([&](Operation *op) {
    specialized |= isa<WarpSpecializeOp>(op);
    for (Value result : op->getResults())
      if (result.getType().isInteger(1))
        deciding.push_back(result);
    // Barrier operands, the bounds and carried values of loops that take
    // part in the protocol, and the stage indices of rings: threads that
    // differ in one of them follow different traces.
    if (llvm::any_of(op->getOperandTypes(),
                     [](Type t) { return isa<MBarrierType>(t); }))
      llvm::append_range(deciding, op->getOperands().drop_front());
    if (auto forOp = dyn_cast<scf::ForOp>(op); forOp && involvesProtocol(op)) {
      deciding.append(
          {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()});
      for (Value init : forOp.getInitArgs())
        if (init.getType().isIntOrIndex())
          deciding.push_back(init);
    }
    auto stageIndices = [&](Value memref, ValueRange indices) {
      auto it =
          facts.filledBuffers.find(getRootBuffer(memref).getAsOpaquePointer());
      if (it != facts.filledBuffers.end())
        llvm::append_range(deciding, indices.take_front(it->second));
    };
    for (OpOperand &use : op->getOpOperands())
      if (std::optional<ElementAccess> access = getElementAccess(use))
        stageIndices(access->memref->get(), OperandRange(access->indices));
    if (auto tile = dyn_cast<WgmmaDescriptorOp>(op))
      stageIndices(tile.getBuffer(), tile.getIndices());
    if (std::optional<SharedCopy> copy = getSharedCopy(op))
      stageIndices(copy->dst, copy->dstIndices);
  });
  int64_t threads =
      facts.blockDims[0] * facts.blockDims[1] * facts.blockDims[2];
  std::map<std::vector<std::optional<int64_t>>, Role> classes;
  std::vector<Role> roles;
  for (int64_t t = 0; t < threads; ++t) {
    std::vector<std::optional<int64_t>> key;
    key.reserve(deciding.size() + 1);
    for (Value value : deciding)
      key.push_back(RoleInterpreter::threadValue(facts, t, value));
    if (specialized)
      key.push_back(t / 128);
    Role &role = classes[key];
    if (role.threads++ == 0) {
      role.firstThread = t;
      role.warps.resize((threads + 31) / 32);
    }
    role.warps.set(t / 32);
  }
  for (auto &[key, role] : classes)
    roles.push_back(role);
  llvm::sort(roles, [](const Role &a, const Role &b) {
    return a.firstThread < b.firstThread;
  });
  return roles;
}

} // namespace

/// How many threads must execute `op` as one instruction (PTX
/// `.sync.aligned`; `bar.sync` and `bar.arrive` are `barrier.*.aligned`).
static std::optional<int64_t> getAlignedThreads(Operation *op) {
  if (std::optional<AlignedCollective> aligned = getAlignedCollective(op))
    return aligned->threads;
  if (isa<NamedBarrierArriveOp, gpu::BarrierOp, NVVM::BarrierOp>(op))
    return 32;
  return std::nullopt;
}

/// The i1 values whose and/or/xor `condition` is.
static void collectConditionLeaves(Value condition,
                                   SmallVectorImpl<Value> &leaves) {
  Operation *def = condition.getDefiningOp();
  if (def && isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(def)) {
    for (Value operand : def->getOperands())
      collectConditionLeaves(operand, leaves);
    return;
  }
  leaves.push_back(condition);
}

LogicalResult tile::checkAlignedUniformity(gpu::GPUFuncOp kernel) {
  std::optional<std::array<int64_t, 3>> dims = getBlockShape(kernel);
  if (!dims)
    return success();
  KernelFacts facts{kernel, *dims, getClusterSize(kernel),
                    llvm::DenseMap<void *, unsigned>()};
  int64_t blockThreads = (*dims)[0] * (*dims)[1] * (*dims)[2];
  auto value = [&](int64_t thread, Value v) {
    return RoleInterpreter::threadValue(facts, thread, v);
  };
  WalkResult result = kernel.walk([&](Operation *op) {
    std::optional<int64_t> unit = getAlignedThreads(op);
    if (!unit)
      return WalkResult::advance();
    for (auto branch = op->getParentOfType<scf::IfOp>();
         branch && kernel->isProperAncestor(branch);
         branch = branch->getParentOfType<scf::IfOp>()) {
      // Whether `thread` gets to `branch` as far as the branches around it
      // are known from thread ids (a warp_specialize role, thread 0's
      // work): warps that never run the op do not count.
      auto reaches = [&](int64_t thread) {
        for (auto outer = branch->getParentOfType<scf::IfOp>();
             outer && kernel->isProperAncestor(outer);
             outer = outer->getParentOfType<scf::IfOp>()) {
          std::optional<int64_t> taken = value(thread, outer.getCondition());
          bool inThen =
              outer.getThenRegion().isAncestor(branch->getParentRegion());
          if (taken && (*taken != 0) != inThen)
            return false;
        }
        return true;
      };
      // The whole condition where thread ids decide it; else each and/or/xor
      // part of it that they decide (`later && lane == 0`: the lane part).
      Value condition = branch.getCondition();
      SmallVector<Value> parts;
      collectConditionLeaves(condition, parts);
      if (parts.size() == 1 || value(0, condition))
        parts = {condition};
      for (Value part : parts) {
        Operation *def = part.getDefiningOp();
        if (!def || !dependsOnThreadId(def))
          continue;
        for (int64_t begin = 0; begin < blockThreads; begin += *unit) {
          if (!reaches(begin))
            continue;
          std::optional<int64_t> first = value(begin, part);
          if (!first)
            break;
          int64_t end = std::min(blockThreads, begin + *unit);
          for (int64_t t = begin + 1; t < end; ++t) {
            std::optional<int64_t> other = value(t, part);
            if (!other || *other == *first)
              continue;
            InFlightDiagnostic diag =
                op->emitError()
                << "an aligned instruction under a condition that differs "
                   "between threads "
                << begin << " and " << t << " of one "
                << (*unit == kWarpgroupThreads ? "warpgroup" : "warp")
                << ": all " << *unit
                << " must execute the same instruction (PTX .sync.aligned), "
                   "or they hang (T-PROTO-13)";
            diag.attachNote(branch.getLoc())
                << (part == condition ? "the condition ("
                                      : "a part of the condition (")
                << (*first ? "true" : "false") << " in thread " << begin << ", "
                << (*other ? "true" : "false") << " in thread " << t << ")";
            return WalkResult::interrupt();
          }
        }
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

RoleVerdict tile::checkRoleProtocol(gpu::GPUFuncOp kernel, bool explain) {
  auto skip = [&](const Twine &reason) {
    if (explain)
      kernel.emitRemark() << "role protocol not modeled: " << reason;
    return RoleVerdict::notModeled;
  };
  bool waits = false;
  kernel.walk([&](MBarrierWaitParityOp wait) { waits = true; });
  if (!waits)
    return skip("no mbarrier_wait_parity");
  std::optional<std::array<int64_t, 3>> dims = getBlockShape(kernel);
  if (!dims || (*dims)[0] * (*dims)[1] * (*dims)[2] > 1024)
    return skip("no known block size");

  KernelFacts facts{kernel, *dims, getClusterSize(kernel),
                    llvm::DenseMap<void *, unsigned>()};
  kernel.walk([&](Operation *op) {
    std::optional<SharedCopy> copy = getSharedCopy(op);
    if (!copy)
      return;
    void *root = getRootBuffer(copy->dst).getAsOpaquePointer();
    unsigned ringIndices = copy->fillsRingStage ? copy->dstIndices.size() : 0;
    auto [it, inserted] = facts.filledBuffers.try_emplace(root, ringIndices);
    if (it->second != ringIndices)
      it->second = 0;
  });

  std::vector<Role> roles = findRoles(facts);
  SmallVector<int64_t> modeledSamples;
  std::string reason;
  for (int64_t sample : kSamples) {
    std::vector<Role> sampled = roles;
    bool complete = llvm::all_of(sampled, [&](Role &role) {
      RoleInterpreter interpreter(facts, role.firstThread, sample, role);
      if (interpreter.run())
        return true;
      reason = interpreter.reason;
      return false;
    });
    if (!complete)
      continue;
    SmallVector<unsigned> order;
    for (unsigned r = 0; r < sampled.size(); ++r)
      order.push_back(r);
    bool clean = true;
    for (auto [reversed, promote] : {std::pair(false, true),
                                     {true, true},
                                     {false, false},
                                     {true, false}}) {
      SmallVector<unsigned> ordered = order;
      if (reversed)
        std::reverse(ordered.begin(), ordered.end());
      std::optional<Finding> finding =
          Simulation(sampled, promote).run(ordered);
      if (!finding)
        continue;
      clean = false;
      if (!finding->op) {
        reason = finding->message;
        break;
      }
      InFlightDiagnostic diag = finding->op->emitError() << finding->message;
      for (auto &[op, note] : finding->notes)
        diag.attachNote(op->getLoc()) << note;
      return RoleVerdict::failed;
    }
    if (clean)
      modeledSamples.push_back(sample);
  }
  if (modeledSamples.empty())
    return skip(reason);
  if (explain) {
    InFlightDiagnostic remark =
        kernel.emitRemark() << "role protocol: " << roles.size() << " roles (";
    llvm::interleaveComma(roles, remark, [&](const Role &role) {
      remark << role.threads << " from thread " << role.firstThread;
    });
    remark << ") simulated with sample values ";
    llvm::interleaveComma(modeledSamples, remark);
    remark << ": nothing to report";
  }
  return RoleVerdict::clean;
}
