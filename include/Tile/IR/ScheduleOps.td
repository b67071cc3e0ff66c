//===- ScheduleOps.td - Persistent tile schedules ---------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The tile scheduler of a persistent GEMM as index arithmetic every role of
// a kernel computes alike: which output tile a linear tile index names
// (grouped rasterization), and which tiles and K iterations each worker
// (CTA) takes (data-parallel, split-K or stream-K, with the fixup index and split of
// tiles that several workers share, for `tile.split_k_reduce`). Stream-K:
// Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense
// Matrix-Matrix Multiplication on the GPU" (PPoPP 2023); CUTLASS's
// PersistentTileSchedulerSm90StreamK.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_SCHEDULEOPS_TD
#define TILE_IR_SCHEDULEOPS_TD

include "Tile/IR/TileAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_TileCoordOp : Tile_Op<"tile_coord", [Pure]> {
  let summary = "the (row, column) of a linear tile index in grouped order";
  let description = [{
    Rasterization of a `rows` x `cols` grid of output tiles: linear index
    `tile` (0 .. rows cols - 1) walks groups of `group` tile rows one after
    the other; inside a group it goes down the group's rows, column after
    column (Triton's GROUP_SIZE_M order; the last group has the rows left).
    Consecutive tiles then share A's row tiles and B's column tiles in L2.
    `group` = 1 is row-major order. Invariant T-TILE-7.

    Example:
    ```mlir
    %row, %col = tile.tile_coord %t in [%tiles_m, %tiles_n] group 4
    ```
  }];
  let arguments = (ins Index:$tile, Index:$rows, Index:$cols,
                       I64Attr:$group);
  let results = (outs Index:$row, Index:$col);
  let assemblyFormat = [{
    $tile `in` ` ` `[` $rows `,` $cols `]` `group` $group attr-dict
  }];
  let hasVerifier = 1;
}

class Tile_WorkOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, !listconcat(traits, [Pure])> {
  code workDescription = [{
    `workers` CTAs (worker = `worker`, 0 .. workers - 1: e.g. block x of a
    persistent grid) share `tiles` output tiles of `iters` K iterations each.
    `data_parallel`: worker w takes tiles w, w + workers, ... whole.
    `stream_k`: when tiles > workers and the last wave would leave at
    least half the workers idle (0 < 2 (tiles mod workers) <= workers), the
    last workers + tiles mod workers tiles are shared: their iterations,
    in tile order, are cut into `workers` contiguous ranges, floor(w I /
    workers) .. floor((w + 1) I / workers) (I = their tiles times
    `iters`), so every worker does the same work to within one iteration;
    the other tiles are data-parallel and come first. Each range holds at
    least `iters` iterations, so a shared tile is cut into at most 2
    units, and at most workers + workers / 2 tiles are shared. `split_k`:
    under the same condition on the last wave (tiles > workers not
    needed) and with iters >= 2, its tiles (the last tiles mod workers)
    are each split into s = min(workers / (tiles mod workers), iters, 8)
    equal ranges of K
    iterations, split j of tile t being unit (t - first split tile) s + j,
    the data-parallel units' successor on worker (that index): the CTAs of
    one split start in step, reading the same K slices of neighbouring
    tiles (stream-K's ranges start at scattered K offsets and lose that L2
    reuse), and at most workers / 2 tiles are split, s times them at most
    workers. Otherwise both are
    `data_parallel`. A worker's units come in non-decreasing tile order.
    Index is 64-bit. Invariant T-TILE-7.
  }];
}

def Tile_WorkCountOp : Tile_WorkOp<"work_count"> {
  let summary = "the number of work units of a persistent GEMM's worker";
  let description = !strconcat(workDescription, [{
    The result is the number of units (`tile.work_unit`) of `worker`.

    Example (a persistent kernel's loop over its units):
    ```mlir
    %units = tile.work_count stream_k tiles %tiles iters %slices
        worker %cta of %ctas
    scf.for %i = %c0 to %units step %c1 { ... }
    ```
  }]);
  let arguments = (ins Tile_WorkSchedule:$schedule, Index:$tiles,
                       Index:$iters, Index:$worker, Index:$workers);
  let results = (outs Index:$units);
  let assemblyFormat = [{
    $schedule `tiles` $tiles `iters` $iters `worker` $worker `of` $workers
    attr-dict
  }];
}

def Tile_WorkUnitOp : Tile_WorkOp<"work_unit",
    [DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "one work unit of a persistent GEMM's worker";
  let description = !strconcat(workDescription, [{
    Unit `unit` (0 .. `tile.work_count` - 1) of `worker`: the linear index
    of its `tile`, its K iterations `first` .. `first` + `count` - 1
    (count >= 1 where iters >= 1), and for the fixup of a tile that
    `splits` units share (`tile.split_k_reduce`; stream_k: 1 or 2, so 2
    slots a tile; split_k: the same s for every split tile)
    the tile's index among the shared tiles, `fixup` (stream_k: 0 ..
    workers + workers / 2 - 1; split_k: 0 .. workers / 2 - 1), and the unit's `split` (0 .. splits - 1, in K
    order). Data-parallel units have `first` = 0, `count` = iters, `fixup`
    = `split` = 0 and `splits` = 1.

    Example:
    ```mlir
    %tile, %first, %count, %fixup, %split, %splits = tile.work_unit %i
        of stream_k tiles %tiles iters %slices worker %cta of %ctas
    ```
  }]);
  let arguments = (ins Index:$unit, Tile_WorkSchedule:$schedule,
                       Index:$tiles, Index:$iters, Index:$worker,
                       Index:$workers);
  let results = (outs Index:$tile, Index:$first, Index:$count, Index:$fixup,
                      Index:$split, Index:$splits);
  let assemblyFormat = [{
    $unit `of` $schedule `tiles` $tiles `iters` $iters `worker` $worker `of`
    $workers attr-dict
  }];
}

#endif // TILE_IR_SCHEDULEOPS_TD
