//===- LowerTileOps.cpp - Tile-level ops to instruction-level ops ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile-lower-tile-ops: expands every tile-level op into per-thread
// instruction-level ops with the rewrite patterns of LowerTileCopies.cpp
// (tile.copy, tile.tma_copy), LowerTileMma.cpp (tile.mma,
// tile.warpgroup_mma, tile.warpgroup_mma_rs), LowerTileMmaStores.cpp
// (tile.mma_store, tile.warpgroup_mma_store, tile.warpgroup_tma_store,
// tile.warpgroup_rows, tile.warpgroup_scale), LowerWarpgroupFragments.cpp
// (tile.warpgroup_row_reduce, tile.warpgroup_broadcast_rows,
// tile.warpgroup_iota), LowerTileReduce.cpp (tile.reduce),
// LowerTileSplitK.cpp (tile.split_k_reduce),
// LowerTileSchedule.cpp (tile.tile_coord, tile.work_count, tile.work_unit)
// and LowerTileWarpSpecialize.cpp (tile.warp_specialize).
//
// The patterns are applied in one post-order walk of the module, each op
// once. Every pattern inserts only before its op and then erases it, and
// none creates a tile-level op, so the order of the lowerings does not
// change the result: the ops in a tile.warp_specialize are expanded in
// place before its pattern moves them into the scf.if.
//
// Neither MLIR driver fits. The greedy driver folds, CSEs constants and
// erases trivially dead ops: it would rewrite the expansions' index
// arithmetic and erase an unused tile.mma (which only reads memory) instead
// of expanding it. walkAndApplyPatterns skips unreachable blocks, whose ops
// must be expanded too.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERTILEOPSPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Expands the tile-level ops of a module; fails at the first one whose
/// pattern has reported (emitOpError) that it cannot be expanded.
struct TileLowerTileOpsPass
    : tile::impl::TileLowerTileOpsPassBase<TileLowerTileOpsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateTileCopyLoweringPatterns(set);
    populateTileMmaLoweringPatterns(set);
    populateTileMmaStoreLoweringPatterns(set);
    populateWarpgroupFragmentLoweringPatterns(set);
    populateWarpgroupEpilogueLoweringPatterns(set);
    populateTileReduceLoweringPatterns(set);
    populateTileScheduleLoweringPatterns(set);
    populateTileSplitKLoweringPatterns(set);
    populateTileWarpSpecializeLoweringPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    // The ops some pattern is rooted at: a failure on one of them is an
    // error; on any other op it only means no pattern applies.
    const auto &lowered = patterns.getOpSpecificNativePatterns();
    PatternRewriter rewriter(&getContext());
    PatternApplicator applicator(patterns);
    applicator.applyDefaultCostModel();
    // Post-order: an op's regions are expanded before the op itself; the
    // walk has stepped past an op before its pattern erases it.
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (!lowered.contains(op->getName()) ||
          succeeded(applicator.matchAndRewrite(op, rewriter)))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  FrozenRewritePatternSet patterns;
};

} // namespace
