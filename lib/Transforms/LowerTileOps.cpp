//===- LowerTileOps.cpp - Tile-level ops to instruction-level ops ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile-lower-tile-ops. The copies, MMAs and MMA stores are lowered by the
// rewrite patterns of LowerTileCopies.cpp, LowerTileMma.cpp and
// LowerTileMmaStores.cpp, applied in one walk before the walk below lowers
// warp specialization.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Rewrite/PatternApplicator.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERTILEOPSPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Moves the ops of `region` (one block, no terminator) before `before`,
/// replacing its block arguments with `arguments`.
void inlineRegion(Region &region, Operation *before, ValueRange arguments) {
  Block &block = region.front();
  for (auto [argument, value] : llvm::zip(block.getArguments(), arguments))
    argument.replaceAllUsesWith(value);
  before->getBlock()->getOperations().splice(Block::iterator(before),
                                             block.getOperations());
}

/// tile.warp_specialize: an scf.if on the warpgroup index of thread x.
void lowerWarpSpecialize(WarpSpecializeOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  IndexMath math(builder, loc);
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value warpgroup = arith::DivUIOp::create(builder, loc, tid,
                                           math.constant(kWarpgroupThreads));
  Value isProducer = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, warpgroup, math.constant(0));
  auto ifOp = scf::IfOp::create(builder, loc, isProducer,
                                /*withElseRegion=*/true);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  SetMaxNRegOp::create(builder, loc, /*inc=*/false, /*dec=*/true,
                       op.getProducerRegisters());
  inlineRegion(op.getProducer(), ifOp.getThenRegion().front().getTerminator(),
               {});
  builder.setInsertionPointToStart(&ifOp.getElseRegion().front());
  SetMaxNRegOp::create(builder, loc, /*inc=*/true, /*dec=*/false,
                       op.getConsumerRegisters());
  Value consumer =
      arith::SubIOp::create(builder, loc, warpgroup, math.constant(1));
  inlineRegion(op.getConsumer(), ifOp.getElseRegion().front().getTerminator(),
               consumer);
  op.erase();
}

struct TileLowerTileOpsPass
    : tile::impl::TileLowerTileOpsPassBase<TileLowerTileOpsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateTileCopyLoweringPatterns(set);
    populateTileMmaLoweringPatterns(set);
    populateTileMmaStoreLoweringPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    if (failed(applyLoweringPatterns()))
      return signalPassFailure();
    SmallVector<WarpSpecializeOp> specialized;
    getOperation().walk(
        [&](WarpSpecializeOp op) { specialized.push_back(op); });
    for (WarpSpecializeOp op : specialized)
      lowerWarpSpecialize(op);
  }

private:
  /// Applies `patterns` to every op of the module in one post-order walk,
  /// stopping at the first op whose pattern fails (and has reported why).
  /// Not walkAndApplyPatterns: it skips unreachable blocks, whose tile-level
  /// ops must be lowered too.
  LogicalResult applyLoweringPatterns() {
    const auto &lowered = patterns.getOpSpecificNativePatterns();
    PatternRewriter rewriter(&getContext());
    PatternApplicator applicator(patterns);
    applicator.applyDefaultCostModel();
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (!lowered.contains(op->getName()) ||
          succeeded(applicator.matchAndRewrite(op, rewriter)))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  FrozenRewritePatternSet patterns;
};

} // namespace
