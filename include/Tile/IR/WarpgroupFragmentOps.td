//===- WarpgroupFragmentOps.td - Math on warpgroup accumulators -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Row-wise math on the accumulators of a warpgroup MMA in registers, as
// online softmax needs it (FlashAttention): reductions along rows, row
// values broadcast to the fragments, and each element's row and column.
// Elementwise math is plain arith/math on the accumulator vector. Layout:
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
// matrix fragments of wgmma's D (a thread of warp w holds, in each 64-row
// block, rows 16 (w mod 4) + lane / 4 and 8 below it, and columns
// 8j + 2 (lane mod 4) + {0, 1}: a row's N columns are spread over the 4
// lanes of a quad).
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_WARPGROUPFRAGMENTOPS_TD
#define TILE_IR_WARPGROUPFRAGMENTOPS_TD

include "Tile/IR/TileEnums.td"
include "Tile/IR/TileTypes.td"
include "mlir/Dialect/Vector/IR/VectorAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_WarpgroupRowReduceOp : Tile_Op<"warpgroup_row_reduce", [Pure]> {
  let summary = "reduce each row of a warpgroup accumulator tile";
  let description = [{
    For the M x N warpgroup tile `shape` whose accumulators are `acc`
    (`vector<(M/64 * N/2) x f32>`, wgmma's layout), the `kind` reduction
    (`add`, `mul`, `maxnumf`, `minnumf`, `maximumf`, `minimumf`) of each
    row the thread holds, in the order of `tile.warpgroup_rows`: element
    2 i + h is row 64 i + 8 h + 16 (warp mod 4) + lane / 4. A thread
    combines its N/4 elements of the row, then the quad of lanes that holds
    the row combines theirs with two butterfly shuffles (`shfl.sync.bfly`
    by 1 and 2), so all four get the row's result. With `partial` the
    shuffles are left out: each thread gets the reduction of its own
    elements only. `acc` may instead be such partial row values
    (`vector<(2 M/64) x f32>`): then only the quad combines them. All 128
    threads of the warpgroup run the shuffles together.

    Why partial sums: ptxas completes every pending wgmma before a warp
    shuffle, so shuffles between an MMA's issue and its wait serialize
    them; a softmax's running row sum stays per thread while the next
    product runs and is combined once at the end (FlashAttention-3).
    Invariant T-TILE-9.

    Example (the running maximum of a score tile; a partial row sum and
    its final combination):
    ```mlir
    %m = tile.warpgroup_row_reduce <maxnumf> %s {shape = array<i64: 64, 128>}
        : vector<64xf32> -> vector<2xf32>
    %l = tile.warpgroup_row_reduce <add> %p {partial, shape = array<i64: 64, 128>}
        : vector<64xf32> -> vector<2xf32>
    %sum = tile.warpgroup_row_reduce <add> %l {shape = array<i64: 64, 128>}
        : vector<2xf32> -> vector<2xf32>
    ```
  }];
  let arguments = (ins Vector_CombiningKindAttr:$kind,
                       VectorOfRankAndType<[1], [F32]>:$acc,
                       DenseI64ArrayAttr:$shape, UnitAttr:$partial);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $kind $acc attr-dict `:` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether `acc` holds the thread's partial row values rather than the
    /// accumulators.
    bool reducesRowValues();
  }];
}

def Tile_WarpgroupBroadcastRowsOp : Tile_Op<"warpgroup_broadcast_rows",
    [Pure]> {
  let summary = "spread a value per row over a warpgroup accumulator tile";
  let description = [{
    The inverse of a row reduction's shape: `rows` holds a value for each
    row the thread holds of the M x N warpgroup tile `shape` (element
    2 i + h: row 64 i + 8 h of the thread's origin, as
    `tile.warpgroup_row_reduce` returns them); the result is the tile's
    accumulator vector (`vector<(M/64 * N/2) x T>`) whose every element is
    its row's value, for elementwise math with row terms (online softmax's
    `exp2(s * c - m * c)`, the rescale of the output). A register shuffle:
    it costs nothing after LLVM scalarizes. Invariant T-TILE-9.

    Example:
    ```mlir
    %mb = tile.warpgroup_broadcast_rows %m {shape = array<i64: 64, 128>}
        : vector<2xf32> -> vector<64xf32>
    ```
  }];
  let arguments = (ins VectorOfRank<[1]>:$rows, DenseI64ArrayAttr:$shape);
  let results = (outs VectorOfRank<[1]>:$result);
  let assemblyFormat = [{
    $rows attr-dict `:` type($rows) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupIotaOp : Tile_Op<"warpgroup_iota", [Pure]> {
  let summary = "the row or column of each element of a warpgroup accumulator tile";
  let description = [{
    For the M x N warpgroup tile `shape`, the vector (`vector<(M/64 * N/2)
    x i32>`) of each accumulator element's row (`dim = 0`) or column
    (`dim = 1`) in the tile, for masks: `arith.cmpi` against a bound and
    `arith.select` of -inf, e.g. keys past a sequence's end or above the
    causal diagonal. Invariant T-TILE-9.

    Example:
    ```mlir
    %cols = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 128>}
        : vector<64xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dim, DenseI64ArrayAttr:$shape);
  let results = (outs VectorOfRankAndType<[1], [I32]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Epilogue operands and activations (T-TILE-10)
//===----------------------------------------------------------------------===//

def Tile_WarpgroupAddOp : Tile_Op<"warpgroup_add",
    [AllTypesMatch<["acc", "result"]>]> {
  let summary = "add a matrix tile to warpgroup accumulators";
  let description = [{
    The additive operands of a fused GEMM epilogue (a residual C = A B + R,
    a bias per column or per row): element (r, c) of the M x N warpgroup
    accumulator tile `shape` (`vector<(M/64 * N/2) x f32>` in wgmma's
    layout: element 4 j + 2 h + e of 64-row block i is row 64 i + 8 h,
    column 8 j + e from the thread's origin) gets `src[row + r, column + c]`
    added, extended to f32; elements outside `src`'s extents add nothing.
    A broadcast is a zero stride: a bias per column is a `strided<[0, 1]>`
    view of its vector, one per row `strided<[1, 0]>`. With a static unit
    innermost stride the two adjacent columns of a pair are one 2-element
    load (4 bytes for 16-bit elements), so the column extent, the row
    stride and the base must then be even in elements; other layouts load
    element by element; a statically zero row (column) stride loads each
    column's (row's) value once for all the thread's elements that share
    it. A row or column past the extent reads inside it and is not added,
    so no access leaves the array; from global memory, a tile wholly inside
    `src` (the warpgroup's test) loads without those clamps, each access at
    a constant offset from the thread's first. Each value is loaded next to
    its adds, which keeps few loaded values live beside the accumulators
    (the counterpart of `tile.warpgroup_scale`'s factors). Invariant
    T-TILE-10.

    Example (a residual, then a bias per column, of a 64x256 tile):
    ```mlir
    %r = tile.warpgroup_add %acc, %res[%m0, %n0] {shape = array<i64: 64, 256>}
        : memref<?x?xbf16, strided<[?, 1]>>, vector<128xf32>
    %b = tile.warpgroup_add %r, %bias[%m0, %n0] {shape = array<i64: 64, 256>}
        : memref<?x?xbf16, strided<[0, 1]>>, vector<128xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32]>:$acc,
                       Arg<MemRefRankOf<[F16, BF16, F32], [2]>, "source",
                           [MemRead]>:$src,
                       Index:$row, Index:$column, DenseI64ArrayAttr:$shape);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $acc `,` $src `[` $row `,` $column `]` attr-dict `:` type($src) `,`
    type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_WarpgroupActivationOp : Tile_Op<"warpgroup_activation", [Pure]> {
  let summary = "apply an activation to warpgroup accumulators, or gate them";
  let description = [{
    The activation of a fused GEMM epilogue on the M x N warpgroup tile
    `shape` (`vector<(M/64 * N/2) x f32>` accumulators): `identity`,
    `relu` (max(x, 0), NaN propagates), `silu` (x / (1 + e^-x)), `gelu`
    (x/2 (1 + erf(x / sqrt 2))) or `gelu_tanh` (x/2 (1 + tanh(sqrt(2/pi)
    (x + 0.044715 x^3)))), as PyTorch defines them.

    With `gated`, the tile's 8-column blocks alternate gate and up (columns
    16 j .. 16 j + 7 are gate columns 8 j .., the next 8 the up columns 8 j
    ..) and the result is the M x N/2 tile act(gate) * up (SwiGLU for
    `silu`, GeGLU for `gelu`) in the accumulator layout of that tile, ready
    for its store: a thread's gate and up elements sit in the same
    registers of adjacent blocks, so gating costs no data movement. The
    math is expanded element by element (each element's chain before the
    next), so no more than a few temporaries live beside the
    accumulators. A GEMM
    over a gate/up weight interleaved so writes the gated MLP's hidden
    product at half the width. Invariant T-TILE-10.

    Example (SwiGLU over a 64x256 tile of interleaved gate/up columns):
    ```mlir
    %h = tile.warpgroup_activation <silu> %acc {gated = true, shape = array<i64: 64, 256>}
        : vector<128xf32> -> vector<64xf32>
    ```
  }];
  let arguments = (ins Tile_ActivationAttr:$kind,
                       VectorOfRankAndType<[1], [F32]>:$acc,
                       DenseI64ArrayAttr:$shape,
                       DefaultValuedAttr<BoolAttr, "false">:$gated);
  let results = (outs VectorOfRankAndType<[1], [F32]>:$result);
  let assemblyFormat = [{
    $kind $acc attr-dict `:` type($acc) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // TILE_IR_WARPGROUPFRAGMENTOPS_TD
