//===- AlignedUniformity.cpp - Aligned instructions in uniform branches ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// T-PROTO-13: the threads of a warp (a warpgroup for wgmma) execute an
// aligned instruction together, each the same one (PTX ISA: `.sync.aligned`
// of wgmma, mma, ldmatrix and stmatrix; "Parallel Synchronization and
// Communication Instructions: bar, barrier", `.aligned`). An scf.if whose
// condition, or an and/or/xor part of it, takes both values among those
// threads (by their thread ids) splits them, and they hang.
//
// T-RED-6, the same rule for tile.reduce: a warp reduction's shuffles need
// the whole warp (also over groups of `lanes`: the shuffles' membermask is
// the warp's), a warpgroup reduction's named barriers the
// warpgroup, a block reduction's barriers the block; after
// tile-lower-tile-ops the first gpu.subgroup_reduce of the expansion
// carries the scope (kReduceScopeAttrName).
//===----------------------------------------------------------------------===//

#include "ProtocolAnalyses.h"
#include "RoleProtocol.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::role_protocol;

std::optional<AlignedCollective>
role_protocol::getAlignedCollective(Operation *op) {
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

/// The threads that must reach a reduction of `scope` (0: the block). A
/// warp reduction over groups of `lanes` still needs the whole warp: its
/// butterfly shuffles name all 32 lanes (upstream's clustered lowering of
/// gpu.subgroup_reduce uses a full membermask; PTX ISA, "shfl.sync").
static int64_t getReduceThreads(ReduceScope scope) {
  switch (scope) {
  case ReduceScope::warp:
    return 32;
  case ReduceScope::warpgroup:
    return kWarpgroupThreads;
  case ReduceScope::block:
    return 0;
  }
  llvm_unreachable("unknown reduce scope");
}

/// The scope of `op` if it is a tile.reduce or the first warp reduction of
/// an expanded one.
static std::optional<ReduceScope> getReduceScope(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return reduce.getScope();
  if (auto scope = op->getAttrOfType<ReduceScopeAttr>(kReduceScopeAttrName))
    return scope.getValue();
  return std::nullopt;
}

/// How many threads must execute `op` as one instruction (PTX
/// `.sync.aligned`; `bar.sync` and `bar.arrive` are `barrier.*.aligned`;
/// `shfl.sync` and `redux.sync` with a full mask), 0 for the whole block.
static std::optional<int64_t> getAlignedThreads(Operation *op) {
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return getReduceThreads(reduce.getScope());
  if (isa<gpu::SubgroupReduceOp>(op)) {
    if (std::optional<ReduceScope> scope = getReduceScope(op))
      return getReduceThreads(*scope);
    return 32; // a cluster's shuffles still name the whole warp
  }
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
  KernelFacts facts{kernel,
                    *dims,
                    getClusterSize(kernel),
                    llvm::DenseMap<void *, unsigned>(),
                    llvm::DenseMap<void *, unsigned>(),
                    llvm::DenseMap<void *, unsigned>()};
  int64_t blockThreads = (*dims)[0] * (*dims)[1] * (*dims)[2];
  auto value = [&](int64_t thread, Value v) {
    return evaluateInThread(facts, thread, v);
  };
  WalkResult result = kernel.walk([&](Operation *op) {
    std::optional<int64_t> unit = getAlignedThreads(op);
    if (!unit)
      return WalkResult::advance();
    bool wholeBlock = *unit == 0;
    if (wholeBlock)
      unit = blockThreads;
    std::optional<ReduceScope> reduceScope = getReduceScope(op);
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
            StringRef group = wholeBlock                   ? "block"
                              : *unit == kWarpgroupThreads ? "warpgroup"
                              : *unit == 32                ? "warp"
                                                           : "lane group";
            InFlightDiagnostic diag = emitConciseError(op);
            if (reduceScope)
              diag << "a " << stringifyReduceScope(*reduceScope)
                   << " reduction (tile.reduce) under a condition that "
                      "differs between threads "
                   << begin << " and " << t << " of one " << group << ": all "
                   << *unit
                   << " must reach it, or its shuffles and barriers hang "
                      "(T-RED-6)";
            else
              diag << "an aligned instruction under a condition that "
                      "differs between threads "
                   << begin << " and " << t << " of one " << group << ": all "
                   << *unit
                   << " must execute the same instruction (PTX "
                      ".sync.aligned), or they hang (T-PROTO-13)";
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
