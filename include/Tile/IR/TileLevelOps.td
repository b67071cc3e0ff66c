//===- TileLevelOps.td - Ops a thread block performs on a tile -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// CuTe's TiledCopy: a tile operation is partitioned among threads by a
// thread layout and a value layout; `tile-lower-tile-ops` expands it into
// the per-thread instruction-level ops with the layout algebra.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILELEVELOPS_TD
#define TILE_IR_TILELEVELOPS_TD

include "Tile/IR/TileAttrs.td"
include "Tile/IR/TileInterfaces.td"
include "Tile/IR/TileTypes.td"

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copy a tile between global and shared memory, partitioned by layouts";
  let description = [{
    CuTe's `make_tiled_copy(atom, threads, values)`: `threads` maps an (m, n)
    coordinate of a thread grid to a thread index (of `gpu.thread_id x`),
    `values` maps an (m, n) coordinate of one thread's block to a value
    index. Their raked product is the copy's (m, n) -> (thread, value) map
    over a tiler of (TM * VM, TN * VN) elements; its right inverse with shape
    (threads, values) gives each thread the values it copies.

    One operand is the tile: a shared memref (row-major) whose last two
    dimensions are a whole number of tilers, its leading dimensions (ring
    stages) selected by its indices. The other is global memory, where the
    tile starts at the given (row, column). Each thread's values must be
    contiguous along the rows and span 4, 8 or 16 bytes:

    - global to shared: one cp.async per thread per tiler repeat (`.cg` for
      16 bytes); the copies join the thread's current cp.async group, so
      commit and wait as for `tile.async_copy`. With `bounds [rows, cols]`
      (the global matrix's extent), elements outside it are zero-filled
      (cp.async's src-size: a partly outside vector reads only its inside
      part, a wholly outside one reads nothing from a clamped address), so
      tiles may overhang the matrix;
    - shared to global (an epilogue's write-out): one vector load and one
      vector store per thread per tiler repeat, aligned to the vector's
      bytes when the global rows, offset and column are multiples of its
      length (checked statically or at run time; otherwise element-aligned,
      which the backend splits). With `bounds`, elements outside the
      matrix are not written (a vector that crosses the column bound is
      stored element by element).

    A swizzled shared buffer is honoured (its accesses follow the swizzle).
    Threads beyond the layout's size do not copy. Invariant T-TILE-1.

    Example (a CuTe TiledCopy: 32x32 f16 per tiler, 128 threads of 8
    values, into stage %s of a ring):
    ```mlir
    tile.copy %a[%row, %k] to %sa[%s]
        {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<3x128x32xf16, 3>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       Variadic<Index>:$bounds,
                       Tile_LayoutAttr:$threads, Tile_LayoutAttr:$values);
  let assemblyFormat = [{
    $src (`[` $srcIndices^ `]`)? `to` $dst (`[` $dstIndices^ `]`)?
    (`bounds` `[` $bounds^ `]`)? attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The (thread, value) -> linear column-major tiler index layout, or an
    /// error from the layout algebra.
    llvm::Expected<Layout> getThreadValueLayout();
    /// The tiler's (rows, columns).
    std::pair<int64_t, int64_t> getTilerShape();
    /// Whether the copy writes shared memory (global to shared).
    bool isLoad() { return isSharedMemory(getDst().getType()); }
    /// The shared tile and its leading indices; the global memref and the
    /// tile's origin in it.
    Value getTile() { return isLoad() ? getDst() : getSrc(); }
    OperandRange getTileIndices() {
      return isLoad() ? getDstIndices() : getSrcIndices();
    }
    Value getGlobal() { return isLoad() ? getSrc() : getDst(); }
    OperandRange getGlobalIndices() {
      return isLoad() ? getSrcIndices() : getDstIndices();
    }
  }];
}

def Tile_TmaCopyOp : Tile_Op<"tma_copy",
    [AttrSizedOperandSegments, Tile_MinSm<90>,
     Tile_BarrierOp<["getArrivalCount", "getExpectedTxBytes",
                     "getCompletedTxBytes", "isIssuedOnce"]>]> {
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
    T-SWZ-5), including a box in a row range of a taller tile after one more
    index, its row (T-TMA-24): e.g. the 8 pages of 16 tokens of a paged KV
    cache fill one 128-row key block with 8 copies on a barrier initialized
    with 8. `tile-lower-tile-ops` expands it. Requires sm_90.

    Examples (a whole tile; page `%i` of a key block at row 16 `%i` of stage
    `%s`, chunk 0):
    ```mlir
    tile.tma_copy %da[%m, %k] to %sa, %full[%c0]
        : !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>,
          memref<128x64xf16, 3>, !tile.mbarrier<count = 1>
    %r = arith.muli %i, %c16 : index
    tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r], %k_full[%s]
        : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>,
          memref<3x2x128x64xbf16, 3>, !tile.mbarrier<count = 3>
    ```
  }];
  let arguments = (ins Arg<Tile_TmaDescType, "the tensor read", [MemRead]>:$descriptor,
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

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize",
    [NoTerminator, SingleBlock, RecursiveMemoryEffects, Tile_MinSmArch<90>]> {
  let summary = "split a kernel into a producer and consumer warpgroups";
  let description = [{
    CUTLASS's warp-specialized kernels: warpgroup 0 (threads 0..127 of
    `gpu.thread_id x`) runs the `producer` region with its registers lowered
    to `producerRegisters`; warpgroups 1..`consumers` run the `consumer`
    region, whose argument is the consumer's index (0-based), with their
    registers raised to `consumerRegisters` (`setmaxnreg`). The kernel must
    run exactly those warpgroups (`known_block_size = [128 * (1 + consumers),
    1, 1]`, T-WS-2) and the registers asked for must fit the SM's 64K
    (T-WS-3); both counts are multiples of 8 in [24, 256] (T-WS-1). The
    producer holds thread 0, so `tile.tma_copy` works inside it; the regions
    meet through mbarriers (full/empty rings). `tile-lower-tile-ops` expands
    it into an `scf.if` on the warpgroup index. Requires sm_90a.

    Example (one producer, two consumers, as CUTLASS's ping-pong/cooperative
    kernels):
    ```mlir
    tile.warp_specialize producer(registers = 40) {
      ...
    } consumers(2, registers = 232) {
    ^bb0(%consumer: index):
      ...
    }
    ```
  }];
  let arguments = (ins I32Attr:$consumers, I32Attr:$producerRegisters,
                       I32Attr:$consumerRegisters);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = [{
    `producer` `(` `registers` `=` $producerRegisters `)` $producer
    `consumers` `(` $consumers `,` `registers` `=` $consumerRegisters `)`
    $consumer attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_MmaOp : Tile_Op<"mma", [AttrSizedOperandSegments, AllTypesMatch<["acc", "result"]>,
    Tile_MinSm<80>]> {
  let summary = "tiled mma.sync of shared tiles by a grid of warps (TiledMMA)";
  let description = [{
    CuTe's TiledMMA for `mma.sync.m16n8k16`: warps `w = thread x / 32`
    below `warps[0] * warps[1]` form a column-major grid
    `(w mod warps[0], w / warps[0])`; each computes a WM x WN part (WM =
    BM / warps[0], WN = BN / warps[1]) of the product of the shared tiles
    A = `a[aIndices]` (BM x BK, K innermost) and B = `b[bIndices]` (BN x BK,
    K innermost; with `transpose_b`, BK x BN, N innermost) over all of BK,
    adding it to `acc`. The indices select among the buffers' leading
    dimensions (pipeline stages). Each thread's accumulator holds the
    m16n8 fragments of its warp's part, `vector<(WM/16) x (WN/8) x 2 x 2 x
    f32>`: fragment (i, j) has rows 16 i + lane / 4 (+ 8 for its second row)
    and columns 8 j + 2 (lane mod 4) + {0, 1}. Expanded by
    `tile-lower-tile-ops` into `ldmatrix.x4` loads (`.trans` for
    `transpose_b`) of all fragments of one 16-wide K step and the `mma.sync`
    grid of that step, honouring the buffers' swizzle. Invariant T-TILE-3.

    Example (examples/hgemm_sm80.mlir: 128x128 CTA tile, 32-wide K slices, 2x2
    warps of 64x64 parts):
    ```mlir
    %acc2 = tile.mma %sa[%stage], %sb[%stage], %acc {warps = array<i64: 2, 2>}
        : memref<3x128x32xf16, 3>, memref<3x128x32xf16, 3>, vector<4x8x2x2xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "shared A tile", [MemRead]>:$a,
                       Variadic<Index>:$aIndices,
                       Arg<AnyMemRef, "shared B tile", [MemRead]>:$b,
                       Variadic<Index>:$bIndices,
                       VectorOfRankAndType<[4], [F32]>:$acc,
                       DenseI64ArrayAttr:$warps, UnitAttr:$transpose_b);
  let results = (outs VectorOfRankAndType<[4], [F32]>:$result);
  let assemblyFormat = [{
    $a (`[` $aIndices^ `]`)? `,` $b (`[` $bIndices^ `]`)? `,` $acc attr-dict
    `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The CTA tile (BM, BN, BK).
    std::array<int64_t, 3> getTileShape();
    /// One warp's part (WM, WN).
    std::pair<int64_t, int64_t> getWarpShape();
  }];
}

def Tile_MmaStoreOp : Tile_Op<"mma_store", [AttrSizedOperandSegments,
    Tile_MinSm<80, ["getMinSmVersion"]>]> {
  let summary = "store the accumulators of a tile.mma (epilogue)";
  let description = [{
    Writes the accumulator fragments of a `tile.mma` with the same `warps`
    to the CTA tile of `dst` at `dst[indices]` (global or shared memory),
    converting to `dst`'s element type: each thread stores its pairs of
    adjacent columns with one vector store. Elements at or beyond `bounds`
    (the rows and columns of `dst` when given, e.g. the M and N of a GEMM
    whose tiles overhang the matrix) are not written. To write 128-bit
    vectors to global memory, stage the tile through shared memory and copy
    it out with `tile.copy` (an epilogue through shared memory). With `stmatrix`, a
    16-bit shared destination is written with `stmatrix.x4` (two fragments'
    four 8x8 matrices per instruction; sm_90, no bounds). Invariant T-TILE-3.

    Example:
    ```mlir
    tile.mma_store %acc, %c[%m0, %n0] bounds [%m, %n] {warps = array<i64: 2, 2>}
        : vector<4x8x2x2xf32>, memref<?x?xf16>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[4], [F32]>:$acc,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       Variadic<Index>:$indices, Variadic<Index>:$bounds,
                       DenseI64ArrayAttr:$warps, UnitAttr:$stmatrix);
  let assemblyFormat = [{
    $acc `,` $dst `[` $indices `]` (`bounds` `[` $bounds^ `]`)? attr-dict `:`
    type($acc) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupMmaOp : Tile_Op<"warpgroup_mma", [AttrSizedOperandSegments,
    AllTypesMatch<["acc", "result"]>, Tile_MinSmArch<90>]> {
  let summary = "warpgroup MMA of swizzled shared tiles with wgmma (Hopper)";
  let description = [{
    The 128 threads of a warpgroup add the product of the M x K tile of A at
    `a[aIndices]` and the N x K tile of B at `b[bIndices]` (both K-major in
    `tile.shared_alloc` buffers whose rows are one swizzle span, as TMA
    writes them; the indices name the tiles' first elements) to `acc`,
    `vector<(M/64 * N/2) x f32>` (or x f16 for f16 and 8-bit tiles, as
    `tile.wgmma`): elements [i N/2, (i + 1) N/2) hold the
    m64nN accumulator of rows 64 i .. 64 i + 63 in wgmma's layout. `shape` is (M, N, K): M a multiple
    of 64, N a multiple of 8 up to 256, K a multiple of 16 within the span.
    Expands to `wgmma.fence`, per 16-wide K step the shared-memory
    descriptors (layout type and byte offsets from the buffers' swizzle,
    T-WGMMA-1) and one `wgmma.mma_async` per 64 rows, `wgmma.commit_group`
    and `wgmma.wait_group wait`. With `wait = 1` (CUTLASS's mainloop) the
    group just issued may still run: its tiles must not be overwritten, nor
    the result read, before a later wait; the tiles of the previous call are
    free. Invariant T-WGMMA-3. Requires sm_90a.

    B's N rows may continue over the dimension before them when fewer than
    N (a multiple of 8) are in one: a buffer `...x C x R x K` holds C R rows
    from the indexed chunk on, e.g. the two halves of a B tile that the CTAs
    of a cluster multicast (the 8-row groups stay 8 spans apart).

    With `transpose_b`, B is MN-major (N innermost: a row-major K x N
    matrix loaded with TMA boxes one swizzle span wide): its buffer's last
    three dimensions are (N chunks, K rows, one span of N elements) and
    `bIndices` name the first chunk's first K row (T-WGMMA-1's `mn_major`
    descriptor). `transpose_a` makes A MN-major the same way (M chunks, K
    rows, one span of M elements: a row-major K x M matrix), e.g. A = the
    transpose of a row-major K x N B when C^T = B^T A^T is computed for a
    small M (wgmma's imm-trans-a).

    With `b_row_groups`, B's buffer ends with (G groups, C chunks, R rows,
    span): B's rows (N when K-major, K with `transpose_b`) are R-row groups
    and the chunks sit inside a group (K spans when K-major, N chunks with
    `transpose_b`), so that one TMA box fills every chunk of a group (a
    16-token page of a D = 128 KV cache, as a (G, 2, 8, 64) ring). With R =
    8 the wgmma's 8-row groups step by the stride of G (its descriptor's
    `row_groups`); a larger R holds a K-major B's N rows in one group (R =
    128, G = 1 is the plain layout); `bIndices` name row 0 of a group
    (T-WGMMA-6).

    Examples (a consumer warpgroup's 64x256 part of a 128x256x64 stage;
    B as N x K, and as four 64-column chunks of K x N):
    ```mlir
    %acc2 = tile.warpgroup_mma %sa[%s, %row, %c0], %sb[%s, %c0, %c0], %acc
        {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
        : memref<4x128x64xf16, 3>, memref<4x256x64xf16, 3>, vector<128xf32>
    %acc3 = tile.warpgroup_mma %sa[%s, %row, %c0], %sk[%s, %c0, %c0, %c0], %acc
        {shape = array<i64: 64, 256, 64>, wait = 1 : i32, transpose_b}
        : memref<4x128x64xf16, 3>, memref<4x4x64x64xf16, 3>, vector<128xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "swizzled shared A", [MemRead]>:$a,
                       Variadic<Index>:$aIndices,
                       Arg<AnyMemRef, "swizzled shared B", [MemRead]>:$b,
                       Variadic<Index>:$bIndices,
                       VectorOfRankAndType<[1], [F32, F16]>:$acc,
                       DenseI64ArrayAttr:$shape, I32Attr:$wait,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$b_row_groups);
  let results = (outs VectorOfRankAndType<[1], [F32, F16]>:$result);
  let assemblyFormat = [{
    $a `[` $aIndices `]` `,` $b `[` $bIndices `]` `,` $acc attr-dict
    `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupMmaRsOp : Tile_Op<"warpgroup_mma_rs",
    [AllTypesMatch<["acc", "result"]>, Tile_MinSmArch<90>]> {
  let summary = "warpgroup MMA of a register A tile and a swizzled shared B tile";
  let description = [{
    `tile.warpgroup_mma` with A in registers (PTX's register form of
    wgmma.mma_async; CUTLASS's RS): the M x K tile of A is `a`,
    `vector<(M/64 * K/2) x T>` in the layout of an M x K warpgroup
    accumulator (element [i K/2, (i + 1) K/2) of 64-row block i, wgmma's D
    layout), so the product of a previous `tile.warpgroup_mma`, converted
    (`arith.truncf`), is the A of the next one without a trip through
    shared memory (attention's P V). B is a shared tile as in
    `tile.warpgroup_mma` (N x K K-major, or with `transpose_b` MN-major:
    (N chunks, K rows, span); with `b_row_groups` (G, C, R, span), R-row
    groups of K holding the N chunks); `acc` the M x N accumulators.

    T is f16 or bf16 (K = 16 j), or an 8-bit float (f8E4M3FN, f8E5M2; K =
    32 j, B K-major). With 8-bit floats the accumulator layout is not
    wgmma's A fragment, and the registers stay where they are: within each
    16 columns, column c = 8h + 2t + u (h, u < 2, t < 4) of `a` multiplies
    row 4t + 2h + u of B's 16 K rows (the fragment's register i holds
    columns 2t, 2t + 1, 8 + 2t, 9 + 2t of one row; FlashAttention-3's
    register permutation, here left to B). So `a` times a B whose K rows
    are stored in that order within each 16 is the plain product (e.g.
    attention's V^T with its keys so permuted).

    Expands to `wgmma.fence`, per K step (16 or 32 wide) one
    `tile.wgmma_rs` per 64 rows on the step's A elements,
    `wgmma.commit_group` and `wgmma.wait_group wait`: with a non-zero wait
    the registers of `a` must stay unchanged (they are SSA values: they do)
    until a later wait completes the group. Invariant T-WGMMA-5. Requires
    sm_90a.

    Example (attention's O += P V: P a 64x128 score tile in registers, V a
    128x128 stage as two 64-column chunks):
    ```mlir
    %p16 = arith.truncf %p : vector<64xf32> to vector<64xbf16>
    %o2 = tile.warpgroup_mma_rs %p16, %sv[%s, %c0, %c0, %c0], %o
        {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b}
        : vector<64xbf16>, memref<2x2x128x64xbf16, 3>, vector<64xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F16, BF16, F8E4M3FN, F8E5M2]>:$a,
                       Arg<AnyMemRef, "swizzled shared B", [MemRead]>:$b,
                       Variadic<Index>:$bIndices,
                       VectorOfRankAndType<[1], [F32, F16]>:$acc,
                       DenseI64ArrayAttr:$shape, I32Attr:$wait,
                       UnitAttr:$transpose_b, UnitAttr:$b_row_groups);
  let results = (outs VectorOfRankAndType<[1], [F32, F16]>:$result);
  let assemblyFormat = [{
    $a `,` $b `[` $bIndices `]` `,` $acc attr-dict
    `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupMmaStoreOp : Tile_Op<"warpgroup_mma_store",
    [AttrSizedOperandSegments]> {
  let summary = "store the accumulators of a tile.warpgroup_mma (epilogue)";
  let description = [{
    Writes the warpgroup's M x N accumulator tile (`shape`; `vector<(M/64 *
    N/2) x f32>` from `tile.warpgroup_mma`, after a `tile.wgmma_wait_group
    0`) to
    `dst[indices]`, converting to `dst`'s element type: warp w of the
    warpgroup (`(thread x / 32) mod 4`) holds rows 16 w .. 16 w + 15 of each
    64-row block; each thread stores pairs of adjacent columns with one
    vector store. Elements at or beyond `bounds` (rows, columns) are not
    written. With `transpose`, the tile's transpose is written: element
    (r, c) goes to `dst[indices[0] + c, indices[1] + r]`, element by element
    (the epilogue of C^T = B^T A^T, which computes a small-M C as its
    transpose); `bounds` are still `dst`'s (rows, columns). A `dst` of
    higher rank is indexed as given in its leading dimensions, the tile
    lying in its last two (e.g. one stage of a shared ring that a later
    `tile.warpgroup_mma` reads: the generic stores need a
    `tile.fence_proxy_async` before that). In a destination of rank 4 or
    more (stages, spans, rows, W), a tile wider than the static last
    dimension W (a swizzle span of a buffer kept in spans, as wgmma reads
    them; W a multiple of 8) is written span by span: from column 0,
    without bounds or `transpose`, its columns W s .. W s + W - 1 go to
    index + s of the dimension before the rows. Invariant T-TILE-3.

    Examples:
    ```mlir
    tile.warpgroup_mma_store %acc, %c[%m0, %n0] bounds [%m, %n]
        {shape = array<i64: 64, 256>} : vector<128xf32>, memref<?x?xf16>
    // A 64 x 128 tile into stage %s of a ring of two 64-column spans.
    tile.warpgroup_mma_store %acc, %ring[%s, %c0, %c0, %c0]
        {shape = array<i64: 64, 128>} : vector<64xf32>, memref<2x2x64x64xbf16, 3>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Arg<AnyMemRef, "destination", [MemWrite]>:$dst,
                       Variadic<Index>:$indices, Variadic<Index>:$bounds,
                       DenseI64ArrayAttr:$shape, UnitAttr:$transpose);
  let assemblyFormat = [{
    $acc `,` $dst `[` $indices `]` (`bounds` `[` $bounds^ `]`)? attr-dict `:`
    type($acc) `,` type($dst)
  }];
  let extraClassDeclaration = [{
    /// The spans the tile is written in: N / W (rounded up; the verifier
    /// requires a multiple) for a tile wider than the destination's static
    /// last dimension W (rank 4 or more, no bounds, no transpose), else 1.
    int64_t getColumnSpans();
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupRowsOp : Tile_Op<"warpgroup_rows"> {
  let summary = "load the values of the rows a thread holds of a warpgroup tile";
  let description = [{
    For the M x N warpgroup accumulator tile `shape` (wgmma's layout, as
    `tile.warpgroup_mma` returns it) whose first row is `row`, each thread
    loads `src[row + r]` for the rows r it holds: element 2 i + h of the
    result is row 64 i + 8 h + 16 (warp mod 4) + lane / 4, so a thread holds
    2 M / 64 rows. An index past `src`'s extent reads its last element.
    Issued ahead of the MMAs, the loads leave the critical path; the result
    feeds `tile.warpgroup_scale`'s `row_factors`. Invariant T-TILE-8.

    Example (the A scales of a 64-row consumer tile, loaded before its
    wgmma):
    ```mlir
    %f = tile.warpgroup_rows %sa[%m1] {shape = array<i64: 64, 128>}
        : memref<?xf32> -> vector<2xf32>
    ```
  }];
  let arguments = (ins Arg<MemRefRankOf<[F32], [1]>, "row values", [MemRead]>:$src,
                       Index:$row,
                       DenseI64ArrayAttr:$shape);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $src `[` $row `]` attr-dict `:` type($src) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupScaleOp : Tile_Op<"warpgroup_scale",
    [AttrSizedOperandSegments, AllTypesMatch<["acc", "result"]>]> {
  let summary = "scale warpgroup MMA accumulators by row and column factors";
  let description = [{
    The dequantizing epilogue of a scaled GEMM (FP8: C = diag(sa) (A B)
    diag(sb)): element (r, c) of the warpgroup's M x N accumulator tile
    (`shape`; `vector<(M/64 * N/2) x f32>` in wgmma's layout, as
    `tile.warpgroup_mma` returns it) is multiplied by `rows[row + r]` and
    `columns[column + c]`. Either factor may be left out (1). An index past
    a factor's extent reads its last element, so an extent-1 memref is one
    factor for the whole tile (per-tensor scaling) and rows or columns past
    the matrix (which bounded and TMA stores clip) read inside it. Each
    thread loads the factors of its own rows and columns (2 M/64 row and N/4
    column factors, from L1 after the first warp). The row factors may
    instead be values in registers, `row_factors` (the thread's rows as
    `tile.warpgroup_rows` returns them): loaded early, or computed. Invariant
    T-TILE-8.

    Example (row-wise A and B scales of a 64x256 consumer tile; a
    per-tensor scale is the same op with `memref<1xf32>`; then a 64x128
    tile by row factors already in registers):
    ```mlir
    %y = tile.warpgroup_scale %acc rows %sa[%m0] : memref<?xf32>
        columns %sb[%n0] : memref<?xf32> {shape = array<i64: 64, 256>}
        : vector<128xf32>
    %z = tile.warpgroup_scale %part row_factors %f : vector<2xf32>
        {shape = array<i64: 64, 128>} : vector<64xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Arg<Optional<MemRefRankOf<[F32], [1]>>, "row factors", [MemRead]>:$rows,
                       Optional<Index>:$row,
                       Optional<VectorOfRankAndType<[1], [F32]>>:$rowFactors,
                       Arg<Optional<MemRefRankOf<[F32], [1]>>, "column factors", [MemRead]>:$columns,
                       Optional<Index>:$column,
                       DenseI64ArrayAttr:$shape);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $acc (`rows` $rows^ `[` $row `]` `:` type($rows))?
    (`row_factors` $rowFactors^ `:` type($rowFactors))?
    (`columns` $columns^ `[` $column `]` `:` type($columns))? attr-dict `:`
    type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupTmaStoreOp : Tile_Op<"warpgroup_tma_store",
    [AttrSizedOperandSegments, Tile_MinSm<90>]> {
  let summary = "store warpgroup MMA accumulators through shared memory with stmatrix and TMA";
  let description = [{
    The epilogue of CUTLASS's Hopper GEMMs: the warpgroup's M x N
    accumulator tile (`shape`; `vector<(M/64 * N/2) x f32>` from
    `tile.warpgroup_mma`, after a `tile.wgmma_wait_group 0`) is converted to
    the f32, 16-bit or 8-bit float element type of `descriptor` (8-bit: with
    `arith.truncf`'s rounding, T-TARGET-7) and written, or with `reduce`
    combined by that TMA reduction (`tile.tma_reduce`, T-TMA-20: e.g. f32
    adds of partial sums from several CTAs, in no fixed order), to the tensor at
    `coordinates` (row, column of the tile's first element) in chunks of one
    TMA box, [64, W]: 64-row block i, columns W c. `staging[indices]` is a
    ring of S chunk buffers (the memref's last three dimensions are (S, 64,
    W), swizzled as the descriptor says); chunk t uses buffer t mod S. Per
    chunk: the warpgroup's first thread waits until at most S - 1 of its
    bulk groups still read shared memory (`cp.async.bulk.wait_group.read`),
    the warpgroup meets at named barrier 1 + (thread x / 128) (`bar.sync`
    with 128 threads), its warps write their rows with `stmatrix.x4` (8-bit
    and 32-bit elements, which stmatrix does not move: each thread's pairs
    with one store each), fence them for the async proxy, meet again, and the
    first thread starts the TMA store (or reduction) and commits it as a bulk group. The stores then run while the
    warpgroup goes on (the next tile's MMAs); before the kernel ends the
    first thread must wait for them (`tile.bulk_wait_group 0`). Rows and
    columns beyond the tensor are not written (TMA clips the box).
    Invariant T-TILE-4. Requires sm_90.

    Examples (a consumer warpgroup's 64x256 tile in 64x64 chunks, two
    staging buffers per warpgroup; a 64x64 f32 tile added to a tensor in
    64x32 chunks):
    ```mlir
    tile.warpgroup_tma_store %acc, %staging[%wg] to %dc[%m0, %n0]
        {shape = array<i64: 64, 256>}
        : vector<128xf32>, memref<2x2x64x64xf16, 3>,
          !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
    tile.warpgroup_tma_store %part, %staging32[%wg] to %sum[%m0, %n0] reduce add
        {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<2x2x64x32xf32, 3>,
          !tile.tma_desc<memref<?x?xf32>, box = [64, 32], swizzle = b128>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Arg<AnyMemRef, "staging ring", [MemRead, MemWrite]>:$staging,
                       Variadic<Index>:$indices,
                       Arg<Tile_TmaDescType, "the tensor written", [MemRead, MemWrite]>:$descriptor,
                       Variadic<Index>:$coordinates,
                       DenseI64ArrayAttr:$shape,
                       OptionalAttr<Tile_TmaReduceKindAttr>:$reduce);
  let assemblyFormat = [{
    $acc `,` $staging (`[` $indices^ `]`)? `to` $descriptor `[` $coordinates `]`
    (`reduce` $reduce^)? attr-dict `:` type($acc) `,` type($staging) `,`
    qualified(type($descriptor))
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupCoalescedStoreOp : Tile_Op<"warpgroup_coalesced_store",
    [Tile_MinSm<90>]> {
  let summary = "store warpgroup MMA accumulators through shared memory with stmatrix and row-contiguous stores";
  let description = [{
    The epilogue of `tile.warpgroup_tma_store` for a destination whose rows
    TMA cannot write (T-TMA-9/10: an odd number of columns, say): the
    warpgroup's M x N accumulator tile (`shape`; `vector<(M/64 * N/2) x
    f32>` after a `tile.wgmma_wait_group 0`) is converted to `dst`'s f32,
    16-bit or 8-bit float element type (8-bit: with `arith.truncf`'s
    rounding, T-TARGET-7) and written to `dst[row, column]` (the tile's first
    element) in chunks of 64 rows x W columns, W the staging ring's last
    dimension: 64-row block i, columns W c. `staging[indices]` is a ring of S
    chunk buffers (its last three dimensions (S, 64, W), any swizzle); chunk
    t uses buffer t mod S. Per chunk, each warp w of the warpgroup writes
    its rows 16 w .. 16 w + 15 of the chunk with `stmatrix.x4` (8-bit and
    32-bit elements: a store per pair), between two `bar.warp.sync` (it
    reads back only its own rows), then stores them row by row: lane l the
    columns l, l + 32, ..., one element each, so a store instruction of the
    warp covers contiguous bytes of one row (the accumulators' own layout, as
    `tile.warpgroup_mma_store` stores it, spreads one over eight rows).
    Elements at or beyond `dst`'s extent (rows, columns) are not written.
    The stores are the warpgroup's own: nothing is left in flight when the op
    returns. Invariant T-TILE-11. Requires sm_90.

    Example (a consumer warpgroup's 64x256 tile of a C with an odd row
    stride, in 64x64 chunks through two staging buffers):
    ```mlir
    tile.warpgroup_coalesced_store %acc, %staging[%wg] to %c[%m0, %n0]
        {shape = array<i64: 64, 256>}
        : vector<128xf32>, memref<2x2x64x64xbf16, 3>,
          memref<?x?xbf16, strided<[?, 1], offset: ?>>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Arg<AnyMemRef, "staging ring", [MemRead, MemWrite]>:$staging,
                       Variadic<Index>:$indices,
                       Arg<AnyMemRef, "the matrix written", [MemWrite]>:$dst,
                       Index:$row, Index:$column,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $acc `,` $staging (`[` $indices^ `]`)? `to` $dst `[` $row `,` $column `]`
    attr-dict `:` type($acc) `,` type($staging) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_SplitKReduceOp : Tile_Op<"split_k_reduce",
    [AllTypesMatch<["acc", "result"]>]> {
  let summary = "sum a tile's split-K partial accumulators across CTAs";
  let description = [{
    Split-K's fixup, serial and deterministic, without waiting: the CTAs
    `split` = 0 .. `splits` - 1 of tile `tile` each hold, in the warpgroup
    that executes this op (thread x / 128, all its 128 threads), the partial
    accumulators `acc` of their share of K. The split's partials take the
    128 rows from (tile x slots + split) x 128 of `workspace` (f32, one
    column per accumulator element; `slots` defaults to `splits`, and is
    their bound where tiles have different numbers of splits, as
    `tile.work_unit`'s stream-K tiles): each thread t (thread x mod 128)
    writes its 4-element chunk c at element 4 (128 c + t) of them, so a
    warp writes 512 contiguous bytes a chunk (with a number of accumulators
    that is no multiple of 4, row t is thread t's); the warpgroup meets (a named
    barrier); its first thread counts the arrival on `counters[tile]` (an
    atomic add between two GPU-scope fences: release, then acquire). The CTA
    whose arrival is the last of `splits` gets `last` = true and `result` =
    the sum of all partials in split order (each read back after the count,
    its own too, a split's loads at a time) and resets `counters[tile]` to 0
    for the next launch; the others get `last` = false and `result` = `acc`.
    With `prefetch`, the last CTA issues the next split's loads before it
    adds the current one's (two splits' loads in flight, for a fixup whose
    reads are latency-bound: few accumulators, one warpgroup) and takes its
    own partial from `acc` (the same bits, so the same sums); it keeps four
    vectors of the accumulators' size live (`acc`, the sums, the current
    and the next split's), so at most 32 elements. No CTA waits for
    another, so the fixup cannot deadlock whatever the CTAs' residency;
    counters start at 0, are used by one launch at a time (a stream) and
    each tile is reduced once a launch; warpgroups of one CTA that each call
    the op pass distinct tiles (the workspace rows count the threads within
    their warpgroup). The workspace's base is 16-byte aligned (rows of a
    multiple of 4 elements are then stored and loaded as 16-byte vectors).
    With `splits` = 1, `last` is true and nothing is written. Invariant
    T-TILE-6.

    Example (a decode kernel's consumer warpgroup, K split over grid y):
    ```mlir
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %bx,
        split %by of %splits prefetch
        : vector<32xf32>, memref<?x32xf32>, memref<?xi32>
    scf.if %last { tile.warpgroup_mma_store %sum, ... }
    ```
    (a persistent kernel's stream-K unit, two consumer warpgroups a tile:
    `tile %fixup2wg, split %split of %splits slots %c2`).
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Arg<MemRefRankOf<[F32], [2]>, "partials", [MemRead, MemWrite]>:$workspace,
                       Arg<MemRefRankOf<[I32], [1]>, "arrival counts", [MemRead, MemWrite]>:$counters,
                       Index:$tile, Index:$split, Index:$splits,
                       Optional<Index>:$slots, UnitAttr:$prefetch);
  let results = (outs I1:$last, VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $acc `,` $workspace `,` $counters `,` `tile` $tile `,` `split` $split `of` $splits
    (`slots` $slots^)? (`prefetch` $prefetch^)? attr-dict `:` type($acc) `,` type($workspace) `,` type($counters)
  }];
  let hasVerifier = 1;
}

#endif // TILE_IR_TILELEVELOPS_TD
