//===- RoleDiscovery.cpp - The roles of a kernel and the facts they need --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Groups the threads of a block of known size into roles: threads that agree
// on every i1 value computable from the thread id alone (`thread_id x == c`,
// the warpgroup index, `lane == 0`, elect_sync, ...) and on every barrier
// operand, bound or carried value of a loop that takes part in the protocol,
// ring stage index and index of a tile that bulk stores read computed so
// take the same branches (values in a branch of a constant condition that
// no thread takes decide nothing). One representative of each class is interpreted and its arrivals are counted
// once per thread of the class; under tile.warp_specialize, threads of
// different warpgroups are in different roles.
//===----------------------------------------------------------------------===//

#include "ProtocolAnalyses.h"
#include "RoleProtocol.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::role_protocol;

int64_t role_protocol::getClusterSize(gpu::GPUFuncOp kernel) {
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

/// Whether `op` lies in a branch of an scf.if whose condition is a constant
/// that does not take it.
static bool isStaticallyDead(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       op = parent, parent = parent->getParentOp()) {
    auto branch = dyn_cast<scf::IfOp>(parent);
    if (!branch)
      continue;
    std::optional<int64_t> condition =
        getConstantIntValue(branch.getCondition());
    if (condition && op->getParentRegion() != (*condition != 0
                                                   ? &branch.getThenRegion()
                                                   : &branch.getElseRegion()))
      return true;
  }
  return false;
}

/// The barrier group a TMA or bulk copy completes on.
static Value getCopyBarriers(Operation *op) {
  if (auto load = dyn_cast<TmaLoadOp>(op))
    return load.getBarriers();
  if (auto copy = dyn_cast<TmaCopyOp>(op))
    return copy.getBarriers();
  if (auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(op))
    return bulk.getBarriers();
  return Value();
}

void role_protocol::collectFilledBuffers(KernelFacts &facts) {
  // Copies that name their stages by different numbers of leading indices
  // (a chunk's box at (stage, group, chunk), a page's row groups at
  // (stage) and a row) fill the stages their common prefix names: parts of
  // one stage, as the copies into a stage's rows, when they complete on
  // one barrier group; else the buffer is one stage. Copies in a branch
  // that never runs (an scf.if on a constant: a kernel variant's folded
  // path) fill nothing. Per root buffer: the fewest and most leading
  // indices its copies name stages by, and the barrier group they all
  // complete on (null: several, or none).
  struct Fills {
    unsigned fewest, most;
    Value barriers;
  };
  llvm::MapVector<void *, Fills> fills;
  auto fill = [&](Value dst, unsigned ringIndices, Value barriers) {
    void *root = getRootBuffer(dst).getAsOpaquePointer();
    auto [it, inserted] =
        fills.try_emplace(root, Fills{ringIndices, ringIndices, barriers});
    Fills &f = it->second;
    f.fewest = std::min(f.fewest, ringIndices);
    f.most = std::max(f.most, ringIndices);
    if (f.barriers != barriers)
      f.barriers = Value();
  };
  bool arrives = false, groups = false;
  SmallVector<AsyncCopyOp> asyncCopies;
  facts.kernel.walk([&](Operation *op) {
    arrives |= isa<AsyncCopyMBarrierArriveOp>(op);
    groups |= isa<AsyncCommitGroupOp, AsyncWaitGroupOp>(op);
    if (isStaticallyDead(op))
      return;
    if (auto copy = dyn_cast<AsyncCopyOp>(op))
      asyncCopies.push_back(copy);
    if (std::optional<SharedCopy> copy = getSharedCopy(op))
      fill(copy->dst, copy->fillsRingStage ? copy->dstIndices.size() : 0,
           getCopyBarriers(op));
  });
  // In a kernel whose cp.async copies complete on mbarriers (each thread's
  // copies with its next cp.async arrive), they fill what they write like
  // a TMA copy (a piece of a stage: a tile's rows and columns are its last
  // two indices). A kernel that also completes copies by commit and wait
  // groups is left to the thread protocol: which arrive completes which
  // copy is not followed there.
  if (arrives && !groups) {
    for (AsyncCopyOp copy : asyncCopies) {
      auto type = cast<MemRefType>(copy.getDst().getType());
      bool ring =
          getRootBuffer(copy.getDst()) == copy.getDst() && type.getRank() >= 3;
      fill(copy.getDst(), ring ? type.getRank() - 2 : 0, Value());
    }
  }
  for (auto &[root, f] : fills)
    facts.filledBuffers[root] =
        f.fewest == f.most || f.barriers ? f.fewest : 0;
}

std::optional<BulkStoreSource>
role_protocol::getBulkStoreSource(Operation *op) {
  // A TMA store reads the tile its source indices name (the box is the
  // rest); a bulk copy reads bytes from its indices on: the whole buffer.
  if (auto store = dyn_cast<TmaStoreOp>(op))
    return BulkStoreSource{store.getSrc(), store.getSrcIndices(),
                           unsigned(store.getSrcIndices().size())};
  if (auto reduce = dyn_cast<TmaReduceOp>(op))
    return BulkStoreSource{reduce.getSrc(), reduce.getSrcIndices(),
                           unsigned(reduce.getSrcIndices().size())};
  if (auto bulk = dyn_cast<BulkCopySharedToGlobalOp>(op))
    return BulkStoreSource{bulk.getSrc(), bulk.getSrcIndices(), 0};
  return std::nullopt;
}

void role_protocol::collectStoredBuffers(KernelFacts &facts) {
  facts.kernel.walk([&](Operation *op) {
    std::optional<BulkStoreSource> source = getBulkStoreSource(op);
    if (!source)
      return;
    Value root = getRootBuffer(source->src);
    unsigned stageIndices = source->src == root ? source->stageIndices : 0;
    auto [it, inserted] = facts.storedBuffers.try_emplace(
        root.getAsOpaquePointer(), stageIndices);
    if (it->second != stageIndices)
      it->second = 0;
  });
}

void role_protocol::collectExchangedBuffers(KernelFacts &facts) {
  llvm::DenseSet<void *> written, wgmmaRead;
  auto rootOf = [](Value memref) -> void * {
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (!type || !isSharedMemory(type))
      return nullptr;
    return getRootBuffer(memref).getAsOpaquePointer();
  };
  facts.kernel.walk([&](Operation *op) {
    if (auto store = dyn_cast<WarpgroupMmaStoreOp>(op))
      written.insert(rootOf(store.getDst()));
    if (auto descriptor = dyn_cast<WgmmaDescriptorOp>(op))
      wgmmaRead.insert(rootOf(descriptor.getBuffer()));
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      wgmmaRead.insert(rootOf(mma.getA()));
      wgmmaRead.insert(rootOf(mma.getB()));
    }
    if (auto mma = dyn_cast<WarpgroupMmaRsOp>(op))
      wgmmaRead.insert(rootOf(mma.getB()));
    if (isa<AsyncCopyOp>(op))
      return;
    for (OpOperand &use : op->getOpOperands())
      if (std::optional<ElementAccess> access = getElementAccess(use);
          access && access->writes)
        written.insert(rootOf(access->memref->get()));
  });
  for (void *root : written) {
    if (!root || !wgmmaRead.contains(root) ||
        facts.filledBuffers.contains(root) ||
        facts.storedBuffers.contains(root))
      continue;
    auto type = cast<MemRefType>(Value::getFromOpaquePointer(root).getType());
    facts.exchangedBuffers[root] = type.getRank() >= 3 ? 1 : 0;
  }
}

bool role_protocol::involvesProtocol(Operation *op) {
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

/// Whether `op` lies in a branch of an scf.if with a constant condition that
/// no thread takes (a kernel variant's disabled feature): its values decide
/// nothing.
static bool isInDeadBranch(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    std::optional<int64_t> taken = getConstantIntValue(ifOp.getCondition());
    if (!taken)
      continue;
    Region *branch = op->getParentRegion();
    while (branch->getParentOp() != ifOp)
      branch = branch->getParentOp()->getParentRegion();
    if (branch == &(*taken ? ifOp.getElseRegion() : ifOp.getThenRegion()))
      return true;
  }
  return false;
}

std::vector<Role> role_protocol::findRoles(const KernelFacts &facts) {
  // The values whose agreement makes threads take the same path.
  SmallVector<Value> deciding;
  bool specialized = false;
  facts.kernel.walk([&](Operation *op) {
    specialized |= isa<WarpSpecializeOp>(op);
    if (isInDeadBranch(op))
      return;
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
      void *root = getRootBuffer(memref).getAsOpaquePointer();
      for (const auto *buffers : {&facts.filledBuffers, &facts.storedBuffers})
        if (auto it = buffers->find(root); it != buffers->end())
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
      key.push_back(evaluateInThread(facts, t, value));
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
