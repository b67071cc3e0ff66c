//===- WorkSchedule.h - Persistent tile schedule arithmetic -----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// T-TILE-7 written once over an arithmetic `M`: the lowering of
// tile.tile_coord / tile.work_count / tile.work_unit (LowerTileSchedule.cpp)
// instantiates it with IR-emitting arithmetic, the index evaluator of the
// analyses (IndexEvaluation.cpp) with integers, so both compute the same
// units. All
// operations are unsigned; `M` provides, on its value type `M::V`:
// constant(n), flag(bool), add, sub, mul, div, rem, min, max, ugt, ult, ne,
// both (and), either (or), select. Index is 64-bit (the pipeline's index
// width; `worker x shared iterations` must not wrap), as the evaluator's
// integers are.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_WORKSCHEDULE_H
#define TILE_IR_WORKSCHEDULE_H

#include "Tile/IR/TileOps.h"

#include <array>
#include <cstdint>
#include <utility>

namespace mlir::tile::schedule {

/// Linear tile index -> (row, column) in groups of `group` tile rows, down
/// a group's rows column after column.
template <typename M>
std::pair<typename M::V, typename M::V>
tileCoord(M &m, typename M::V tile, typename M::V rows, typename M::V cols,
          int64_t group) {
  using V = typename M::V;
  V groupRows = m.constant(group);
  V inGroup = m.mul(cols, groupRows);
  V firstRow = m.mul(m.div(tile, inGroup), groupRows);
  V height = m.min(m.sub(rows, firstRow), groupRows);
  V local = m.rem(tile, inGroup);
  return {m.add(firstRow, m.rem(local, height)), m.div(local, height)};
}

/// The most K splits of a `split_k` tile: the CTA that sums a tile reads
/// every split's partials back (8 x 128 KB for a 128x256 f32 tile).
constexpr int64_t kMaxTailSplits = 8;

/// A worker's share: its data-parallel tiles, and either its range [begin,
/// end) of the stream-K tiles' iterations or its split of a `split_k` tail
/// tile.
template <typename M> struct WorkerShare {
  using V = typename M::V;
  /// Whether the last wave is shared (stream-K) or split (split-K).
  V shared;
  /// The first shared tile (all tiles before it are data-parallel).
  V dataParallelTiles;
  /// The worker's data-parallel tiles, its first units.
  V dataParallelUnits;
  /// stream_k: the worker's shared iterations [begin, end), and the shared
  /// tiles they start and end in.
  V begin, end, firstShared, lastShared;
  /// split_k: the splits of a tail tile, and how many units the tail has.
  V tailSplits, tailUnits;
  /// The worker's units.
  V units;

  WorkerShare(M &m, WorkSchedule schedule, V tiles, V iters, V worker,
              V workers) {
    V zero = m.constant(0), one = m.constant(1);
    begin = end = firstShared = lastShared = tailSplits = tailUnits = zero;
    V partialWave = m.rem(tiles, workers);
    // Stream-K or split-K where the last wave would leave at least half the
    // workers idle (0 < 2 partialWave <= workers) and a tile has iterations
    // to share.
    shared = m.flag(schedule != WorkSchedule::data_parallel);
    shared = m.both(shared, m.ne(partialWave, zero));
    shared = m.both(
        shared, m.ult(m.add(partialWave, partialWave), m.add(workers, one)));
    V sharedTiles;
    if (schedule == WorkSchedule::split_k) {
      // The partial wave's tiles, each split into as many equal K ranges as
      // there are workers for them (at most kMaxTailSplits, at most iters).
      shared = m.both(shared, m.ugt(iters, one));
      tailSplits =
          m.select(shared,
                   m.min(m.min(m.div(workers, m.max(partialWave, one)), iters),
                         m.constant(kMaxTailSplits)),
                   one);
      sharedTiles = m.select(shared, partialWave, zero);
      tailUnits = m.mul(sharedTiles, tailSplits);
    } else {
      // Stream-K: the partial wave and the full wave before it.
      shared = m.both(shared, m.ugt(tiles, workers));
      shared = m.both(shared, m.ne(iters, zero));
      sharedTiles = m.select(shared, m.add(workers, partialWave), zero);
    }
    dataParallelTiles = m.sub(tiles, sharedTiles);
    // ceil((dataParallelTiles - worker) / workers); 0 past them (worker <
    // workers).
    dataParallelUnits = m.div(
        m.sub(m.add(dataParallelTiles, workers), m.add(worker, one)), workers);
    if (schedule == WorkSchedule::split_k) {
      // One tail unit for each of the first tailUnits workers.
      units = m.add(dataParallelUnits,
                    m.select(m.ult(worker, tailUnits), one, zero));
      return;
    }
    V total = m.mul(sharedTiles, iters);
    begin = m.div(m.mul(worker, total), workers);
    end = m.div(m.mul(m.add(worker, one), total), workers);
    V tileIters = m.max(iters, one);
    firstShared = m.div(begin, tileIters);
    lastShared = m.div(m.sub(m.max(end, one), one), tileIters);
    V sharedUnits =
        m.select(shared, m.add(m.sub(lastShared, firstShared), one), zero);
    units = m.add(dataParallelUnits, sharedUnits);
  }
};

/// Unit `unit` of `worker`: (tile, first, count, fixup, split, splits).
template <typename M>
std::array<typename M::V, 6>
workUnit(M &m, WorkSchedule schedule, typename M::V unit, typename M::V tiles,
         typename M::V iters, typename M::V worker, typename M::V workers) {
  using V = typename M::V;
  WorkerShare<M> share(m, schedule, tiles, iters, worker, workers);
  V zero = m.constant(0), one = m.constant(1);
  // A data-parallel unit: tile worker + unit x workers, whole.
  V dataParallel = m.ult(unit, share.dataParallelUnits);
  V dpTile = m.add(worker, m.mul(unit, workers));
  if (schedule == WorkSchedule::split_k) {
    // The worker's tail unit: split worker mod s of tail tile worker / s,
    // K iterations split iters / s .. (split + 1) iters / s.
    V s = share.tailSplits;
    V t = m.div(worker, s);
    V split = m.rem(worker, s);
    V first = m.div(m.mul(split, iters), s);
    V last = m.div(m.mul(m.add(split, one), iters), s);
    return {m.select(dataParallel, dpTile, m.add(share.dataParallelTiles, t)),
            m.select(dataParallel, zero, first),
            m.select(dataParallel, iters, m.sub(last, first)),
            m.select(dataParallel, zero, t),
            m.select(dataParallel, zero, split),
            m.select(dataParallel, one, s)};
  }
  // A stream-K unit: the part of shared tile s in the worker's range. The
  // ranges hold at least `iters` iterations each, so a tile is cut at most
  // once: the unit is split 1 of 2 if the range starts inside the tile,
  // split 0 of 2 if it ends inside it, else the whole tile.
  V s = m.add(share.firstShared, m.sub(unit, share.dataParallelUnits));
  V tileBegin = m.mul(s, iters);
  V tileEnd = m.add(tileBegin, iters);
  V lo = m.max(share.begin, tileBegin);
  V hi = m.min(share.end, tileEnd);
  V tail = m.ugt(lo, tileBegin);
  V cut = m.either(tail, m.ult(hi, tileEnd));
  return {m.select(dataParallel, dpTile, m.add(share.dataParallelTiles, s)),
          m.select(dataParallel, zero, m.sub(lo, tileBegin)),
          m.select(dataParallel, iters, m.sub(hi, lo)),
          m.select(dataParallel, zero, s),
          m.select(dataParallel, zero, m.select(tail, one, zero)),
          m.select(dataParallel, one, m.select(cut, m.constant(2), one))};
}

/// The results of a schedule op (tile.tile_coord, tile.work_count,
/// tile.work_unit) from the values of its operands, in operand order.
template <typename M>
SmallVector<typename M::V, 6> results(M &m, Operation *op,
                                      ArrayRef<typename M::V> operands) {
  if (auto coord = dyn_cast<TileCoordOp>(op)) {
    auto [row, col] =
        tileCoord(m, operands[0], operands[1], operands[2], coord.getGroup());
    return {row, col};
  }
  if (auto count = dyn_cast<WorkCountOp>(op))
    return {WorkerShare<M>(m, count.getSchedule(), operands[0], operands[1],
                           operands[2], operands[3])
                .units};
  std::array<typename M::V, 6> unit =
      workUnit(m, cast<WorkUnitOp>(op).getSchedule(), operands[0], operands[1],
               operands[2], operands[3], operands[4]);
  return SmallVector<typename M::V, 6>(unit.begin(), unit.end());
}

} // namespace mlir::tile::schedule

#endif // TILE_IR_WORKSCHEDULE_H
