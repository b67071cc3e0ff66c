//===- TileLevelOps.td - Ops a thread block performs on a tile -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Seed 003, "TiledCopy": a tile operation is partitioned among threads by a
// thread layout and a value layout; `tile-lower-tile-ops` expands it into
// the per-thread instruction-level ops with the layout algebra.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILELEVELOPS_TD
#define TILE_IR_TILELEVELOPS_TD

include "Tile/IR/TileAttrs.td"
include "Tile/IR/TileInterfaces.td"
include "Tile/IR/TileTypes.td"

def Tile_CopyOp : Tile_Op<"copy"> {
  let summary = "copy a global tile to a shared tile with cp.async, partitioned by layouts";
  let description = [{
    CuTe's `make_tiled_copy(atom, threads, values)` for cp.async: `threads`
    maps an (m, n) coordinate of a thread grid to a thread index (of
    `gpu.thread_id x`), `values` maps an (m, n) coordinate of one thread's
    block to a value index. Their raked product is the copy's (m, n) ->
    (thread, value) map over a tiler of (TM * VM, TN * VN) elements; its
    right inverse with shape (threads, values) gives each thread the values
    it copies. The destination tile `dst` (a shared memref, row-major) is a
    whole number of tilers; the source tile starts at `src[indices]`. Each
    thread's values must be contiguous along the rows (N) and span 4, 8 or
    16 bytes: one cp.async per thread per tiler repeat (`.cg` for 16 bytes).
    The copies join the thread's current cp.async group: commit and wait as
    for `tile.async_copy`. A swizzled destination buffer is honoured (its
    accesses follow the swizzle). Threads beyond the layout's size do not
    copy. Invariant T-TILE-1.

    Example (seed 003's G2SCopyA: 32x32 f16 per tiler, 128 threads of 8
    values):
    ```mlir
    tile.copy %a[%row, %k] to %sa
        {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<128x32xf16, 3>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "global source", [MemRead]>:$src,
                       Variadic<Index>:$indices,
                       Arg<AnyStaticShapeMemRef, "shared destination", [MemWrite]>:$dst,
                       Tile_LayoutAttr:$threads, Tile_LayoutAttr:$values);
  let assemblyFormat = [{
    $src `[` $indices `]` `to` $dst attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The (thread, value) -> linear column-major tiler index layout, or an
    /// error from the layout algebra.
    llvm::Expected<Layout> getThreadValueLayout();
    /// The tiler's (rows, columns).
    std::pair<int64_t, int64_t> getTilerShape();
  }];
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<Tile_TargetDependentOpInterface>]> {
  let summary = "copy a tensor box to a shared tile with TMA, issued by one thread";
  let description = [{
    The whole thread block (or the producer warpgroup of a
    `tile.warp_specialize`, which holds thread 0) executes the op; thread 0
    alone announces the box bytes with `mbarrier.arrive.expect_tx` on
    `barriers[barrierIndex]` and starts the TMA load of the box at
    `coordinates` into `dst[dstIndices]`. The barrier's phase therefore
    completes after one arrival per `tile.tma_copy` that targets it (initialize
    it with that count) and all their bytes. Waiting is separate
    (`tile.mbarrier_wait_parity`), so several copies can share one barrier, and
    `tile-pipeline-async-copies` can turn a loop of them into a full/empty
    mbarrier ring. Same tile rules as `tile.tma_load` (T-TMA-16..18,
    T-SWZ-5). `tile-lower-tile-ops` expands it. Requires sm_90.

    Example:
    ```mlir
    tile.tma_copy %da[%m, %k] to %sa, %full[%c0]
        : !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>,
          memref<128x64xf16, 3>, !tile.mbarrier<count = 1>
    ```
  }];
  let arguments = (ins Tile_TmaDescType:$descriptor,
                       Variadic<Index>:$coordinates,
                       Arg<AnyMemRef, "shared destination", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       Tile_MBarrierType:$barriers, Index:$barrierIndex);
  let assemblyFormat = [{
    $descriptor `[` $coordinates `]` `to` $dst (`[` $dstIndices^ `]`)? `,`
    $barriers `[` $barrierIndex `]` attr-dict `:` qualified(type($descriptor))
    `,` type($dst) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

#endif // TILE_IR_TILELEVELOPS_TD
