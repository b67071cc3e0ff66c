//===- LowerTileOps.cpp - Tile-level ops to instruction-level ops ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.copy (seed 003's TiledCopy with cp.async): thread t's first value is
// at linear column-major tiler index TV(t, 0) = (m, n); for each repeat
// (rm, rn) of the tiler over the destination it copies its contiguous values
// from src[i + rm * TM + m, j + rn * TN + n] to dst[rm * TM + m, ...].
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "ThreadPredicates.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILELOWERTILEOPSPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Emits L(index) for a layout with static shape and stride: the
/// colexicographic coordinate of `index` dotted with the strides.
Value emitLayout(OpBuilder &builder, Location loc, const Layout &layout,
                 Value index) {
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  SmallVector<int64_t> shapes = layout.getShape().flatten();
  SmallVector<int64_t> strides = layout.getStride().flatten();
  Value result = constant(0);
  int64_t prefix = 1;
  for (auto [i, shape, stride] : llvm::enumerate(shapes, strides)) {
    Value coordinate = arith::DivUIOp::create(builder, loc, index, constant(prefix));
    if (i + 1 < shapes.size())
      coordinate = arith::RemUIOp::create(builder, loc, coordinate, constant(shape));
    result = arith::AddIOp::create(
        builder, loc, result,
        arith::MulIOp::create(builder, loc, coordinate, constant(stride)));
    prefix *= shape;
  }
  return result;
}

LogicalResult lowerCopy(CopyOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  llvm::Expected<Layout> tv = op.getThreadValueLayout();
  if (!tv)
    return op.emitOpError() << llvm::toString(tv.takeError());
  Layout threadMode = (*tv)[0];
  int64_t numThreads = op.getThreads().getLayout().size();
  int64_t numValues = op.getValues().getLayout().size();
  auto [tileM, tileN] = op.getTilerShape();
  MemRefType dst = op.getDst().getType();
  int64_t bytes = numValues * dst.getElementTypeBitWidth() / 8;

  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value active = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       tid, constant(numThreads));
  auto ifOp = scf::IfOp::create(builder, loc, active);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value first = emitLayout(builder, loc, threadMode, tid);
  Value m = arith::RemUIOp::create(builder, loc, first, constant(tileM));
  Value n = arith::DivUIOp::create(builder, loc, first, constant(tileM));
  auto rows = scf::ForOp::create(builder, loc, constant(0),
                                 constant(dst.getShape()[0] / tileM), constant(1));
  builder.setInsertionPointToStart(rows.getBody());
  auto cols = scf::ForOp::create(builder, loc, constant(0),
                                 constant(dst.getShape()[1] / tileN), constant(1));
  builder.setInsertionPointToStart(cols.getBody());
  Value dm = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, rows.getInductionVar(), constant(tileM)), m);
  Value dn = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, cols.getInductionVar(), constant(tileN)), n);
  Value sm = arith::AddIOp::create(builder, loc, op.getIndices()[0], dm);
  Value sn = arith::AddIOp::create(builder, loc, op.getIndices()[1], dn);
  CacheMode cache = bytes == 16 ? CacheMode::cg : CacheMode::ca;
  AsyncCopyOp::create(builder, loc, op.getSrc(), ValueRange{sm, sn}, op.getDst(),
                      ValueRange{dm, dn}, builder.getI32IntegerAttr(bytes),
                      CacheModeAttr::get(op.getContext(), cache),
                      L2PrefetchSizeAttr(), Value(), Value(), Value());
  op.erase();
  return success();
}

/// tile.tma_copy: thread 0 announces the box bytes and starts the load.
void lowerTmaCopy(TmaCopyOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  auto ifOp = scf::IfOp::create(builder, loc, isFirstThread(builder, loc));
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value bytes = arith::ConstantIntOp::create(
      builder, loc, op.getDescriptor().getType().getBoxBytes(), 32);
  MBarrierArriveExpectTxOp::create(
      builder, loc, MBarrierTokenType::get(op.getContext()), op.getBarriers(),
      op.getBarrierIndex(), bytes);
  TmaLoadOp::create(builder, loc, op.getDescriptor(), op.getCoordinates(),
                    ValueRange(), op.getDst(), op.getDstIndices(),
                    op.getBarriers(), op.getBarrierIndex(), Value(), Value());
  op.erase();
}

/// Moves the ops of `region` (one block, no terminator) before `before`,
/// replacing its block arguments with `arguments`.
void inlineRegion(Region &region, Operation *before, ValueRange arguments) {
  Block &block = region.front();
  for (auto [argument, value] : llvm::zip(block.getArguments(), arguments))
    argument.replaceAllUsesWith(value);
  before->getBlock()->getOperations().splice(
      Block::iterator(before), block.getOperations());
}

/// tile.warp_specialize: an scf.if on the warpgroup index of thread x.
void lowerWarpSpecialize(WarpSpecializeOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value warpgroup =
      arith::DivUIOp::create(builder, loc, tid, constant(kWarpgroupThreads));
  Value isProducer = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq, warpgroup, constant(0));
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
  Value consumer = arith::SubIOp::create(builder, loc, warpgroup, constant(1));
  inlineRegion(op.getConsumer(), ifOp.getElseRegion().front().getTerminator(),
               consumer);
  op.erase();
}

struct TileLowerTileOpsPass
    : tile::impl::TileLowerTileOpsPassBase<TileLowerTileOpsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<CopyOp> copies;
    getOperation().walk([&](CopyOp op) { copies.push_back(op); });
    for (CopyOp op : copies)
      if (failed(lowerCopy(op)))
        return signalPassFailure();
    getOperation().walk([&](TmaCopyOp op) { lowerTmaCopy(op); });
    SmallVector<WarpSpecializeOp> specialized;
    getOperation().walk(
        [&](WarpSpecializeOp op) { specialized.push_back(op); });
    for (WarpSpecializeOp op : specialized)
      lowerWarpSpecialize(op);
  }
};

} // namespace
