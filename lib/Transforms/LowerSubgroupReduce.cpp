//===- LowerSubgroupReduce.cpp - gpu.subgroup_reduce to shuffles ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile-lower-subgroup-reduce: upstream's butterfly lowering of
// gpu.subgroup_reduce (gpu.shuffle xor by 1, 2, ..., cluster size / 2),
// except for the reductions that convert-gpu-to-nvvm turns into one
// redux.sync (PTX ISA, "Parallel Synchronization and Communication
// Instructions: redux.sync", sm_80+) when it runs with has-redux.
//===----------------------------------------------------------------------===//

#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERSUBGROUPREDUCEPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Whether convert-gpu-to-nvvm (has-redux) lowers `op` to redux.sync: a
/// uniform whole-warp i32 reduction of a kind redux.sync has.
static bool lowersToRedux(gpu::SubgroupReduceOp op) {
  using gpu::AllReduceOperation;
  return op.getUniform() && !op.getClusterSize() &&
         op.getType().isSignlessInteger(32) &&
         llvm::is_contained({AllReduceOperation::ADD, AllReduceOperation::MINSI,
                             AllReduceOperation::MAXSI, AllReduceOperation::AND,
                             AllReduceOperation::OR, AllReduceOperation::XOR},
                            op.getOp());
}

namespace {

struct TileLowerSubgroupReducePass
    : tile::impl::TileLowerSubgroupReducePassBase<TileLowerSubgroupReducePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> reductions;
    getOperation()->walk([&](gpu::SubgroupReduceOp op) {
      if (!redux || !lowersToRedux(op))
        reductions.push_back(op);
    });
    if (reductions.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns,
                                                    /*subgroupSize=*/32,
                                                    /*shuffleBitwidth=*/32);
    populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
        patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
    // Only the reductions themselves: the shuffles and arithmetic they
    // expand into are left as they are.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    bool changed = false;
    (void)applyOpPatternsGreedily(reductions, std::move(patterns), config,
                                  &changed);
    WalkResult result = getOperation()->walk([&](gpu::SubgroupReduceOp op) {
      if (redux && lowersToRedux(op))
        return WalkResult::advance();
      op.emitOpError() << "cannot be lowered to 32-bit shuffles"
                       << (redux ? " or redux.sync" : "") << " (a "
                       << op.getType()
                       << " reduction; tile.reduce takes f32 or i32)";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
