//===- LowerTileWarpSpecialize.cpp - Lower tile.warp_specialize -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.warp_specialize becomes an scf.if on the warpgroup index w = thread
// x / 128: warpgroup 0 runs the producer region after tile.setmaxnreg (dec
// to the producer's registers), the others the consumer region, with w - 1
// as its argument, after tile.setmaxnreg (inc to the consumers' registers).
// Both regions are inlined into the branches.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Lowers `tile.warp_specialize` to an scf.if on the warpgroup index of
/// thread x.
struct WarpSpecializeOpLowering : OpRewritePattern<WarpSpecializeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpSpecializeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value warpgroup = arith::DivUIOp::create(rewriter, loc, tid,
                                             math.constant(kWarpgroupThreads));
    Value isProducer = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, warpgroup, math.constant(0));
    auto ifOp = scf::IfOp::create(rewriter, loc, isProducer,
                                  /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    SetMaxNRegOp::create(rewriter, loc, /*inc=*/false, /*dec=*/true,
                         op.getProducerRegisters());
    rewriter.inlineBlockBefore(&op.getProducer().front(),
                               ifOp.getThenRegion().front().getTerminator());
    rewriter.setInsertionPointToStart(&ifOp.getElseRegion().front());
    SetMaxNRegOp::create(rewriter, loc, /*inc=*/true, /*dec=*/false,
                         op.getConsumerRegisters());
    Value consumer =
        arith::SubIOp::create(rewriter, loc, warpgroup, math.constant(1));
    rewriter.inlineBlockBefore(&op.getConsumer().front(),
                               ifOp.getElseRegion().front().getTerminator(),
                               consumer);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileWarpSpecializeLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<WarpSpecializeOpLowering>(patterns.getContext());
}
