//===- LowerTileSchedule.cpp - Lower the persistent tile schedule --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.tile_coord, tile.work_count and tile.work_unit as index arithmetic
// (arith, unsigned): every role of a kernel computes the same units, and
// the protocol checker evaluates them like any other index.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Index arithmetic beyond IndexMath's: operations on two values.
struct ScheduleMath : IndexMath {
  using IndexMath::IndexMath;
  Value add(Value a, Value b) { return IndexMath::add(a, b); }
  Value sub(Value a, Value b) {
    return arith::SubIOp::create(builder, loc, a, b);
  }
  Value mul(Value a, Value b) {
    return arith::MulIOp::create(builder, loc, a, b);
  }
  Value div(Value a, Value b) {
    return arith::DivUIOp::create(builder, loc, a, b);
  }
  Value rem(Value a, Value b) {
    return arith::RemUIOp::create(builder, loc, a, b);
  }
  Value min(Value a, Value b) {
    return arith::MinUIOp::create(builder, loc, a, b);
  }
  Value max(Value a, Value b) {
    return arith::MaxUIOp::create(builder, loc, a, b);
  }
  Value cmp(arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, predicate, a, b);
  }
  Value select(Value condition, Value a, Value b) {
    return arith::SelectOp::create(builder, loc, condition, a, b);
  }
  Value both(Value a, Value b) {
    return arith::AndIOp::create(builder, loc, a, b);
  }
};

/// A worker's share of the schedule (T-TILE-7), as the ops' lowering needs
/// it: its data-parallel tiles, and its range [begin, end) of the shared
/// tiles' iterations.
struct WorkerShare {
  Value workers, worker, iters;
  /// Whether some tiles are shared (stream-K with a partial last wave).
  Value streamK;
  /// The first shared tile (all tiles before it are data-parallel).
  Value dataParallelTiles;
  /// The worker's data-parallel tiles.
  Value dataParallelUnits;
  /// The shared tiles' iterations (at least 1, for the divisions).
  Value sharedIters;
  /// The worker's shared iterations [begin, end), and the shared tiles
  /// they start and end in.
  Value begin, end, firstShared, lastShared;
  /// The worker's units.
  Value units;

  WorkerShare(ScheduleMath &m, WorkSchedule schedule, Value tiles, Value iters,
              Value worker, Value workers)
      : workers(workers), worker(worker), iters(iters) {
    using P = arith::CmpIPredicate;
    Value zero = m.constant(0), one = m.constant(1);
    Value partialWave = m.rem(tiles, workers);
    streamK = arith::ConstantOp::create(
        m.builder, m.loc,
        m.builder.getBoolAttr(schedule == WorkSchedule::stream_k));
    streamK = m.both(streamK, m.cmp(P::ugt, tiles, workers));
    streamK = m.both(streamK, m.cmp(P::ne, partialWave, zero));
    streamK = m.both(streamK, m.cmp(P::ne, iters, zero));
    // The last partial wave and the full wave before it.
    Value shared =
        m.select(streamK, m.add(workers, partialWave), m.constant(0));
    dataParallelTiles = m.sub(tiles, shared);
    // ceil((dataParallelTiles - worker) / workers), 0 when worker is past
    // them (worker < workers).
    dataParallelUnits = m.div(
        m.sub(m.add(dataParallelTiles, workers), m.add(worker, one)), workers);
    Value total = m.mul(shared, iters);
    sharedIters = m.max(total, one);
    begin = m.div(m.mul(worker, total), workers);
    end = m.div(m.mul(m.add(worker, one), total), workers);
    Value tileIters = m.max(iters, one);
    firstShared = m.div(begin, tileIters);
    lastShared = m.div(m.sub(m.max(end, one), one), tileIters);
    Value sharedUnits =
        m.select(streamK, m.add(m.sub(lastShared, firstShared), one), zero);
    units = m.add(dataParallelUnits, sharedUnits);
  }

  /// The worker whose range holds shared iteration `x`: the largest w with
  /// floor(w I / workers) <= x, floor(((x + 1) workers - 1) / I).
  Value owner(ScheduleMath &m, Value x) const {
    Value one = m.constant(1);
    return m.div(m.sub(m.mul(m.add(x, one), workers), one), sharedIters);
  }
};

struct TileCoordOpLowering : OpRewritePattern<TileCoordOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileCoordOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleMath m(rewriter, op.getLoc());
    Value groupRows = m.constant(op.getGroup());
    Value inGroup = m.mul(op.getCols(), groupRows);
    Value firstRow = m.mul(m.div(op.getTile(), inGroup), groupRows);
    Value rows = m.min(m.sub(op.getRows(), firstRow), groupRows);
    Value local = m.rem(op.getTile(), inGroup);
    rewriter.replaceOp(op, ValueRange{m.add(firstRow, m.rem(local, rows)),
                                      m.div(local, rows)});
    return success();
  }
};

struct WorkCountOpLowering : OpRewritePattern<WorkCountOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WorkCountOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleMath m(rewriter, op.getLoc());
    WorkerShare share(m, op.getSchedule(), op.getTiles(), op.getIters(),
                      op.getWorker(), op.getWorkers());
    rewriter.replaceOp(op, share.units);
    return success();
  }
};

struct WorkUnitOpLowering : OpRewritePattern<WorkUnitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WorkUnitOp op,
                                PatternRewriter &rewriter) const override {
    using P = arith::CmpIPredicate;
    ScheduleMath m(rewriter, op.getLoc());
    WorkerShare share(m, op.getSchedule(), op.getTiles(), op.getIters(),
                      op.getWorker(), op.getWorkers());
    Value unit = op.getUnit(), iters = op.getIters();
    Value zero = m.constant(0), one = m.constant(1);
    // A data-parallel unit: tile worker + unit x workers, whole.
    Value dataParallel = m.cmp(P::ult, unit, share.dataParallelUnits);
    Value dpTile = m.add(op.getWorker(), m.mul(unit, op.getWorkers()));
    // A shared unit: the part of shared tile s in the worker's range, and
    // the workers whose ranges hold the tile's first and last iterations.
    Value s = m.add(share.firstShared, m.sub(unit, share.dataParallelUnits));
    Value tileBegin = m.mul(s, iters);
    Value tileEnd = m.add(tileBegin, iters);
    Value lo = m.max(share.begin, tileBegin);
    Value hi = m.min(share.end, tileEnd);
    Value firstOwner = share.owner(m, tileBegin);
    Value lastOwner = share.owner(m, m.sub(m.max(tileEnd, one), one));
    Value tile =
        m.select(dataParallel, dpTile, m.add(share.dataParallelTiles, s));
    Value first = m.select(dataParallel, zero, m.sub(lo, tileBegin));
    Value count = m.select(dataParallel, iters, m.sub(hi, lo));
    Value fixup = m.select(dataParallel, zero, s);
    Value split =
        m.select(dataParallel, zero, m.sub(op.getWorker(), firstOwner));
    Value splits =
        m.select(dataParallel, one, m.add(m.sub(lastOwner, firstOwner), one));
    rewriter.replaceOp(op,
                       ValueRange{tile, first, count, fixup, split, splits});
    return success();
  }
};

} // namespace

void mlir::tile::populateTileScheduleLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<TileCoordOpLowering, WorkCountOpLowering, WorkUnitOpLowering>(
      patterns.getContext());
}
