//===- WgmmaOps.td - Warpgroup MMA (Hopper) ----------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate":
// wgmma.mma_async, the matrix descriptor, wgmma.fence/commit_group/wait_group.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_WGMMAOPS_TD
#define TILE_IR_WGMMAOPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

defvar Tile_Sm90aOp = Tile_MinSmArch<90>;

def Tile_WgmmaDescriptorOp : Tile_Op<"wgmma_descriptor", [Pure, Tile_Sm90aOp]> {
  let summary = "the shared-memory matrix descriptor of a swizzled operand tile";
  let description = [{
    The 64-bit descriptor `wgmma.mma_async` reads an operand through, for
    the tile starting at `buffer[indices]` of a K-major (K innermost)
    operand in a `tile.shared_alloc` buffer. Everything is derived from the
    buffer's swizzle: the layout type (128B = 1, 64B = 2, 32B = 3), the
    stride byte offset between 8-row groups (8 rows of the swizzle span:
    1024/512/256 bytes) and the leading byte offset (unused for swizzled
    K-major tiles, 1). Bits: start address >> 4 in [0, 14), LBO >> 4 in
    [16, 30), SBO >> 4 in [32, 46), base offset 0 (the buffer is aligned to
    the swizzle repeat, T-SWZ-3), layout type in [62, 64). Advancing K by
    16 elements inside the swizzle span is advancing `indices`.

    With `mn_major` the tile is MN-major (M or N innermost, PTX's
    "transposed" operand, e.g. B of a row-major K x N matrix): the buffer's
    last three dimensions are (MN chunks, K rows, one swizzle span of MN
    elements), as TMA boxes of one span write them. The leading byte offset
    is then the stride between MN chunks (K rows x span bytes) and the
    stride byte offset the stride between groups of 8 K rows (8 spans);
    advancing K by 16 is advancing the K-row index by 16 (CUTLASS's
    canonical layout `Swizzle<3,4,3> o ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO))`
    for 128B). Invariant T-WGMMA-1. Requires sm_90a.

    With `row_groups` the buffer ends with (G groups, C chunks, 8 rows,
    span): each 8-row group holds its row of every chunk, and the stride
    byte offset is the stride of G (C x 8 spans) instead of 8 spans; the
    leading byte offset of an MN-major tile stays the chunks' stride (8
    spans). A D = 128 key block as (16, 2, 8, 64) is one K-major N = 128
    operand with an SBO of 2048 bytes (T-WGMMA-6).

    Example:
    ```mlir
    %da = tile.wgmma_descriptor %a[%c0, %k] : memref<64x64xf16, 3>
    %db = tile.wgmma_descriptor %b[%c0, %k, %c0] {mn_major} : memref<4x64x64xf16, 3>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "swizzled shared tile">:$buffer,
                       Variadic<Index>:$indices, UnitAttr:$mn_major,
                       UnitAttr:$row_groups);
  let results = (outs I64:$descriptor);
  let assemblyFormat = [{
    $buffer `[` $indices `]` attr-dict `:` type($buffer)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The swizzle of the buffer (verified to be a TMA swizzle).
    SwizzleAttr getSwizzle();
  }];
}

def Tile_WgmmaOp : Tile_Op<"wgmma", [Tile_Sm90aOp,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "warpgroup D += A * B from shared-memory descriptors";
  let description = [{
    `wgmma.mma_async.sync.aligned.m64nNkK.<D>.<A>.<B>`: the 128 threads of a
    warpgroup multiply the 64xK A and the KxN B that `descA` and `descB`
    describe (both K-major; with `transpose_a` / `transpose_b`, A / B is
    MN-major, PTX's imm-trans-a / imm-trans-b = 1) and add the product to
    the accumulator, `vector<N/2 x f32>` per thread in the PTX ISA's D
    layout: warp w holds rows 16w .. 16w + 15; for each 8-column block j,
    elements 4j, 4j+1 are row lane/4, columns 8j + 2(lane%4) + {0, 1}, and
    4j+2, 4j+3 the same columns of row lane/4 + 8. `inputType` is A's
    element type and B's unless `inputTypeB` is given: f16 x f16 or bf16 x
    bf16 (K = 16), or any pair of the 8-bit floats f8E4M3FN (e4m3) and
    f8E5M2 (e5m2) (K = 32, K-major operands only). The accumulators are f32,
    or f16 (`vector<N/2 x f16>`, the same layout, two to a register) for
    f16 and 8-bit inputs (PTX has no .f16 D with .bf16). The op is asynchronous:
    fence before (`tile.wgmma_fence`), commit after
    (`tile.wgmma_commit_group`) and wait (`tile.wgmma_wait_group`) before
    reading the result. A constant zero `acc` is not materialized: the
    instruction's scale-d is 0 (D = A * B), so a fresh product costs no
    register moves. Invariant T-WGMMA-2. Requires sm_90a.

    Example:
    ```mlir
    %d = tile.wgmma %da, %db, %acc {n = 64 : i64, inputType = f16} : vector<32xf32>
    %e = tile.wgmma %da, %db, %acc {n = 256 : i64, inputType = f8E4M3FN,
                                    inputTypeB = f8E5M2} : vector<128xf32>
    ```
  }];
  let arguments = (ins I64:$descA, I64:$descB,
                       VectorOfRankAndType<[1], [F32, F16]>:$acc,
                       I64Attr:$n, TypeAttr:$inputType,
                       OptionalAttr<TypeAttr>:$inputTypeB,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs VectorOfRankAndType<[1], [F32, F16]>:$result);
  let assemblyFormat = "$descA `,` $descB `,` $acc attr-dict `:` type($acc)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// B's element type: `inputTypeB`, or A's when it is absent.
    Type getTypeB() {
      return getInputTypeB() ? *getInputTypeB() : getInputType();
    }
  }];
}

def Tile_WgmmaRsOp : Tile_Op<"wgmma_rs", [Tile_Sm90aOp,
    AllTypesMatch<["acc", "result"]>]> {
  let summary = "warpgroup D += A * B with A from registers";
  let description = [{
    The register-A form of `wgmma.mma_async.sync.aligned.m64nNkK` (PTX's
    "wgmma.mma_async with A in registers"; CUTLASS's RS). With 16-bit
    inputs (K = 16) each thread holds its part of the 64x16 A tile,
    `vector<8 x f16>` or `vector<8 x bf16>` in the layout of a 64x16 wgmma
    accumulator (elements 4j + {0, 1}: row 16 (warp mod 4) + lane / 4,
    columns 8j + 2 (lane mod 4) + {0, 1}; 4j + {2, 3}: the same columns 8
    rows down), so a 16-column slice of an accumulator converted to 16 bits
    is an A fragment (FlashAttention's P). With 8-bit floats (f8E4M3FN or
    f8E5M2, K = 32) it holds `vector<16 x f8...>`, PTX's fragment of the
    64x32 A tile: elements 4i + {0..3} are row 16 (warp mod 4) + lane / 4
    (i even) or 8 rows down (i odd), columns 16 (i / 2) + 4 (lane mod 4) +
    {0..3}. B is a shared-memory descriptor as in `tile.wgmma` (K-major, or
    MN-major with `transpose_b` for 16-bit inputs); A and B are of one
    type; the accumulators are `vector<N/2 x f32>` (or f16 for f16 and
    8-bit inputs). The A registers must not change before the op's group
    completes. A constant zero `acc` is scale-d = 0. No upstream NVVM op
    takes A from registers: it lowers to inline PTX. Invariant T-WGMMA-4.
    Requires sm_90a.

    Example:
    ```mlir
    %d = tile.wgmma_rs %a, %db, %acc {n = 128 : i64, transpose_b}
        : vector<8xbf16>, vector<64xf32>
    %e = tile.wgmma_rs %a8, %db8, %acc {n = 128 : i64}
        : vector<16xf8E4M3FN>, vector<64xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F16, BF16, F8E4M3FN, F8E5M2]>:$a,
                       I64:$descB,
                       VectorOfRankAndType<[1], [F32, F16]>:$acc,
                       I64Attr:$n, UnitAttr:$transpose_b);
  let results = (outs VectorOfRankAndType<[1], [F32, F16]>:$result);
  let assemblyFormat = [{
    $a `,` $descB `,` $acc attr-dict `:` type($a) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Tile_WgmmaFenceOp : Tile_Op<"wgmma_fence", [Tile_Sm90aOp]> {
  let summary = "order register and shared-memory writes before wgmma";
  let description = [{
    `wgmma.fence.sync.aligned`: required before the first wgmma of a
    warpgroup and whenever its accumulator registers were touched by other
    instructions. Requires sm_90a.

    Example:
    ```mlir
    tile.wgmma_fence
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WgmmaCommitGroupOp : Tile_Op<"wgmma_commit_group", [Tile_Sm90aOp]> {
  let summary = "close the current wgmma-group";
  let description = [{
    `wgmma.commit_group.sync.aligned`. Requires sm_90a.

    Example:
    ```mlir
    tile.wgmma_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_WgmmaWaitGroupOp : Tile_Op<"wgmma_wait_group", [Tile_Sm90aOp]> {
  let summary = "wait until at most N wgmma-groups are pending";
  let description = [{
    `wgmma.wait_group.sync.aligned N`; the accumulators of the completed
    groups may be read afterwards. Requires sm_90a. Invariant T-CPASYNC-7
    applies to N.

    Example:
    ```mlir
    tile.wgmma_wait_group 0
    ```
  }];
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "$pending attr-dict";
  let hasVerifier = 1;
}

def Tile_WgmmaFenceOperandOp : Tile_Op<"wgmma_fence_operand",
    [Tile_Sm90aOp, AllTypesMatch<["value", "result"]>]> {
  let summary = "keep registers' computation in place around asynchronous wgmmas";
  let description = [{
    Returns `value` unchanged, as an opaque register operation with side
    effects (CUTLASS's `warpgroup_fence_operand`): what computes `value`
    stays before it, in order with the other side-effecting ops such as
    `tile.warpgroup_mma` (why a kernel that reads one accumulator while
    another is in flight needs it: docs/Rationale/RationaleTile.md, wgmma).
    `value` is a vector of f32, or of f16 in pairs. Requires sm_90a.

    Example (a promoted sum computed before the next block's wgmmas):
    ```mlir
    %sum = arith.addf %acc, %scaled : vector<64xf32>
    %pinned = tile.wgmma_fence_operand %sum : vector<64xf32>
    ```
  }];
  let arguments = (ins VectorOfRankAndType<[1], [F32, F16]>:$value);
  let results = (outs VectorOfRankAndType<[1], [F32, F16]>:$result);
  let assemblyFormat = "$value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

#endif // TILE_IR_WGMMAOPS_TD
