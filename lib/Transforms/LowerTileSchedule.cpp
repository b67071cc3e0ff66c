//===- LowerTileSchedule.cpp - Lower the persistent tile schedule --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.tile_coord, tile.work_count and tile.work_unit as index arithmetic
// (arith, unsigned; WorkSchedule.h): every role of a kernel computes the
// same units, and the protocol checker evaluates them with the same
// formulas.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/WorkSchedule.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// WorkSchedule.h's arithmetic, emitted as arith ops on index (i1 flags).
struct EmittedMath {
  using V = Value;
  OpBuilder &b;
  Location loc;
  using P = arith::CmpIPredicate;

  Value constant(int64_t n) {
    return arith::ConstantIndexOp::create(b, loc, n);
  }
  Value flag(bool value) {
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(value));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxUIOp::create(b, loc, x, y); }
  Value ugt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, P::ugt, x, y);
  }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, P::ult, x, y);
  }
  Value ne(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, P::ne, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value either(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
};

/// A schedule op replaced by its arithmetic (WorkSchedule.h).
template <typename ScheduleOp>
struct ScheduleOpLowering : OpRewritePattern<ScheduleOp> {
  using OpRewritePattern<ScheduleOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ScheduleOp op,
                                PatternRewriter &rewriter) const override {
    EmittedMath m{rewriter, op.getLoc()};
    SmallVector<Value> operands(op->getOperands());
    rewriter.replaceOp(op, schedule::results(m, op, ArrayRef<Value>(operands)));
    return success();
  }
};

} // namespace

void mlir::tile::populateTileScheduleLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ScheduleOpLowering<TileCoordOp>, ScheduleOpLowering<WorkCountOp>,
               ScheduleOpLowering<WorkUnitOp>>(patterns.getContext());
}
