//===- MatrixOps.td - Warp-level matrix fragments and MMA --*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "Warp-level matrix load/store instructions: ldmatrix, stmatrix",
// "mma.sync", "setmaxnreg"; CuTe's MMA atoms.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_MATRIXOPS_TD
#define TILE_IR_MATRIXOPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

def Tile_LdMatrixOp : Tile_Op<"ldmatrix", [Tile_MinSm<75>]> {
  let summary = "load 8x8 b16 matrices from shared memory into a warp's registers";
  let description = [{
    `ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`: the warp loads
    `num` 8x8 matrices of 16-bit elements; thread `t` gives the address of
    row `t % 8` of matrix `t / 8` (threads beyond 8 * num give ignored, but
    valid, addresses) as `src[indices]`, 8 contiguous elements (16 bytes,
    16-byte aligned). Each thread receives 2 elements of each matrix, the
    `vector<num x 2 x T>` result; with `trans` the matrices are transposed.
    On a swizzled `tile.shared_alloc` buffer the row address follows the
    swizzle. Requires sm_75. Invariants T-MMA-1..2.

    Example:
    ```mlir
    %a = tile.ldmatrix %smem[%row, %col] x4 : memref<64x64xf16, 3> -> vector<4x2xf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "shared source", [MemRead]>:$src,
                       Variadic<Index>:$indices, I32Attr:$num, UnitAttr:$trans);
  let results = (outs VectorOfRankAndType<[2], [F16, BF16, I16]>:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` custom<MatrixCount>($num) (`trans` $trans^)? attr-dict `:` type($src)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_StMatrixOp : Tile_Op<"stmatrix", [Tile_MinSm<90>]> {
  let summary = "store a warp's 8x8 b16 matrix fragments to shared memory";
  let description = [{
    `stmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared.b16`, the inverse of
    `tile.ldmatrix`: thread `t` gives the address of row `t % 8` of matrix
    `t / 8` and contributes 2 elements of each matrix (`vector<num x 2 x T>`,
    the layout of an mma.sync accumulator converted to 16 bits). Used by
    epilogues to stage results in shared memory. Requires sm_90. Invariants
    T-MMA-1..2.

    Example:
    ```mlir
    tile.stmatrix %frag, %smem[%row, %col] x4 : vector<4x2xf16>, memref<64x64xf16, 3>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[2], [F16, BF16, I16]>:$value,
                       Arg<AnyMemRef, "shared destination", [MemWrite]>:$dst,
                       Variadic<Index>:$indices, I32Attr:$num, UnitAttr:$trans);
  let assemblyFormat = [{
    $value `,` $dst `[` $indices `]` custom<MatrixCount>($num) (`trans` $trans^)? attr-dict `:`
    type($value) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_MmaSyncOp : Tile_Op<"mma_sync", [Pure, Tile_MinSm<80>,
    AllTypesMatch<["c", "result"]>]> {
  let summary = "warp-wide D = A * B + C on tensor cores (mma.sync)";
  let description = [{
    `mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32`
    (or the f16-accumulator form): the warp multiplies a 16xK row-major A by
    a Kx8 column-major B and adds C, each thread holding the fragments of
    the PTX ISA's layouts — A `vector<(K/4)x2xT>`, B `vector<(K/8)x2xT>`,
    C and D `vector<2x2xf32>` (or `vector<2x2xf16>`): thread `l` holds rows
    `l / 4` and `l / 4 + 8`, columns `2 * (l % 4) + {0, 1}` of D. Fragments
    come from `tile.ldmatrix` (x4 for A, x2 for B). Lowers to
    `nvgpu.mma.sync`. Requires sm_80. Invariant T-MMA-3.

    Example:
    ```mlir
    %d = tile.mma_sync %a, %b, %c {shape = array<i64: 16, 8, 16>}
        : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[2], [F16, BF16]>:$a,
                       VectorOfRankAndType<[2], [F16, BF16]>:$b,
                       VectorOfRankAndType<[2], [F16, F32]>:$c,
                       DenseI64ArrayAttr:$shape);
  let results = (outs VectorOfRankAndType<[2], [F16, F32]>:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_SetMaxNRegOp : Tile_Op<"setmaxnreg", [Tile_MinSmArch<90>]> {
  let summary = "grow or shrink the registers of a warpgroup (setmaxnreg)";
  let description = [{
    `setmaxnreg.{inc,dec}.sync.aligned.u32 count`: every warp of the
    warpgroup moves its per-thread register budget to `count` — producers of
    a warp-specialized kernel give registers up (`dec`), consumers take them
    (`inc`). `count` is a multiple of 8 in [24, 256] (T-WS-1). Requires
    sm_90a.

    Example:
    ```mlir
    tile.setmaxnreg dec 40
    tile.setmaxnreg inc 232
    ```
  }];
  let arguments = (ins UnitAttr:$inc, UnitAttr:$dec, I32Attr:$count);
  let assemblyFormat = "(`inc` $inc^)? (`dec` $dec^)? $count attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_IR_MATRIXOPS_TD
