//===- TmaOps.td - TMA tensor copies and descriptors -------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor",
// "cp.async.bulk.prefetch.tensor", "prefetch{.tensormap}", "Tensor Map";
// CUDA driver API, cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TMAOPS_TD
#define TILE_IR_TMAOPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

defvar Tile_TmaOp = Tile_MinSm<90>;
defvar Tile_TmaClusterOp = Tile_MinSm<90, ["requiresClusterLaunch"]>;

def Tile_TmaCreateDescriptorOp : Tile_Op<"tma_create_descriptor"> {
  let summary = "encode a TMA tensor map for a global memref (host code)";
  let description = [{
    Host code: encodes the `CUtensorMap` of the result type for `tensor`
    (tiled, or im2col with the type's corners; its box, swizzle, L2
    promotion, out-of-bounds fill and interleave) and returns it for kernel
    launches. Lowers to a call of the tensor-map contract's encoder
    (`Tile/TensorMap/TensorMapContract.h`):
    `tileRtTensorMapEncodeTiledMemref`, or
    `tileRtTensorMapEncodeIm2colMemref` for im2col, which `libtile_runtime`
    defines; it checks every driver precondition (T-TMA-1..14) and reports a
    broken one by name and value instead of `CUDA_ERROR_INVALID_VALUE`. The
    map is written into a 128-byte, 128-byte aligned buffer in the creating
    function's frame (host memory), and launches pass its 128 bytes to
    kernels by value as a grid-constant parameter (T-TMA-22), so the
    descriptor cannot leave the function (T-TMA-23). `tensor` must match the
    descriptor's memref type where that is static (T-TMA-15).

    Example:
    ```mlir
    %d = tile.tma_create_descriptor %a : memref<1024x1024xf32>
        -> !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "global tensor">:$tensor);
  let results = (outs Tile_TmaDescType:$descriptor);
  let assemblyFormat = [{
    $tensor attr-dict `:` type($tensor) `->` qualified(type($descriptor))
  }];
  let hasVerifier = 1;
}

def Tile_TmaLoadOp
    : Tile_Op<"tma_load", [AttrSizedOperandSegments, Tile_TmaClusterOp,
        Tile_BarrierOp<["getCompletedTxBytes", "signalsRemoteBarriers"]>]> {
  let summary = "copy a box of a tensor into shared memory (cp.async.bulk.tensor)";
  let description = [{
    One thread starts the copy of the box at `coordinates` (one per tensor
    dimension, outermost first as in the memref; out-of-bounds elements get
    the descriptor's fill) into the shared tile `dst[dstIndices]`. `dst` ends
    with the box shape (innermost extent padded to the swizzle span, which the
    hardware fills; the box's leading 1s may be left out, all or some); `dstIndices` select
    among its leading dimensions (ring stages). Completion: complete_tx of the
    box bytes on `barriers[barrierIndex]`.

    The box may also fill a row range of a taller tile (T-TMA-24): with the
    box [R, W...] after its leading 1s and `dst` ending with [Rt, W...]
    (R < Rt, R dividing Rt), one more index follows the leading ones, the row
    at which the box lands, e.g. a 16-token page of a paged KV cache into a
    128-row key block. The row keeps the swizzle's phase: row * row bytes is a
    multiple of the tile's alignment (8 rows of 128 bytes for b128; checked
    for constants here, for other rows by `tile-check-target`). A box of
    more than two dimensions after its leading 1s may fill a two-dimensional
    tile (or a row range of one) in its order, its outer extents' product
    the rows (T-TMA-25: [8, 1, 8, 64] boxes of a (N/16, 2, 8, K) view take
    a gate/up weight's gate rows and its up rows as 64 rows each).

    - `multicast %mask`: the box lands at the same offset in every CTA of the
      cluster whose rank bit is set, signalling each one's barrier at the same
      offset (needs a cluster launch; mask bits within the cluster, T-TMA-19).
    - `cache_hint %policy`: a 64-bit L2 cache policy (`.L2::cache_hint`).
    - `im2col [%o...]`: with an im2col descriptor, the filter tap offsets
      (i16, one per spatial dimension, outermost first). The coordinates
      name the first pixel's position in the tensor, inside the pixel box
      [lower, dim - 1 + upper] (output pixel 0 of a padded convolution is
      at `lower`, e.g. -1), and its first channel; the load walks the box
      W first and reads each position plus the offsets, filling outside the
      tensor (T-TMA-21).

    The shared tile must carry the descriptor's swizzle and its alignment:
    allocate it with `tile.shared_alloc {swizzle = ...}` (T-TMA-17/18,
    T-SWZ-5). Lowers to `cp.async.bulk.tensor.Nd.shared::cluster.global.tile
    .mbarrier::complete_tx::bytes`. Requires sm_90.

    Examples (a 128x64 box into a stage; a 16-row page into rows
    [%r, %r + 16) of chunk 0 of a stage):
    ```mlir
    tile.tma_load %d[%row, %col] to %ring[%stage], %full[%stage]
        : !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>,
          memref<4x128x64xf16, 3>, !tile.mbarrier<count = 4>
    tile.tma_load %k[%page, %h, %c0, %c0] to %sk[%stage, %c0, %r], %full[%stage]
        : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>,
          memref<3x2x128x64xbf16, 3>, !tile.mbarrier<count = 3>
    ```
  }];
  let arguments = (ins Arg<Tile_TmaDescType, "the tensor read", [MemRead]>:$descriptor,
                       Variadic<Index>:$coordinates,
                       Variadic<I16>:$im2colOffsets,
                       Arg<AnyMemRef, "shared destination", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       Tile_MBarrierType:$barriers, Index:$barrierIndex,
                       Optional<I16>:$multicastMask,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $descriptor `[` $coordinates `]` (`im2col` `[` $im2colOffsets^ `]`)?
    `to` $dst (`[` $dstIndices^ `]`)? `,`
    $barriers `[` $barrierIndex `]` (`multicast` $multicastMask^)?
    (`cache_hint` $cachePolicy^)? attr-dict `:` qualified(type($descriptor))
    `,` type($dst) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [AttrSizedOperandSegments, Tile_TmaOp]> {
  let summary = "copy a shared tile to a box of a tensor (bulk async-group)";
  let description = [{
    One thread starts `cp.async.bulk.tensor.Nd.global.shared::cta.tile
    .bulk_group`: the shared tile `src[srcIndices]` goes to the box at
    `coordinates` (outermost first; out-of-bounds elements are not written).
    Completes with the thread's bulk async-group (`tile.bulk_commit_group`,
    `tile.bulk_wait_group`). Generic writes to the tile need a
    `tile.fence_proxy_async` first (T-PROTO-10). Same tile rules as
    `tile.tma_load`. Requires sm_90.

    Example:
    ```mlir
    tile.tma_store %tile to %d[%row, %col]
        : memref<64x64xf16, 3>, !tile.tma_desc<memref<256x64xf16>, box = [64, 64]>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "shared source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<Tile_TmaDescType, "the tensor written", [MemWrite]>:$descriptor,
                       Variadic<Index>:$coordinates,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $src (`[` $srcIndices^ `]`)? `to` $descriptor `[` $coordinates `]`
    (`cache_hint` $cachePolicy^)? attr-dict `:` type($src) `,`
    qualified(type($descriptor))
  }];
  let hasVerifier = 1;
}

def Tile_TmaReduceOp : Tile_Op<"tma_reduce", [AttrSizedOperandSegments, Tile_TmaOp]> {
  let summary = "reduce a shared tile into a box of a tensor (bulk async-group)";
  let description = [{
    Like `tile.tma_store`, but combines each element with the global one:
    `cp.reduce.async.bulk.tensor.Nd.global.shared::cta.<kind>.tile.bulk_group`.
    The kinds an element type allows (T-TMA-20): add for f16/bf16/f32/i32/i64,
    min/max for f16/bf16/i32/i64, inc/dec for i32, and/or/xor for i32/i64.
    Requires sm_90.

    Example:
    ```mlir
    tile.tma_reduce add %tile to %d[%row, %col]
        : memref<64x64xf32, 3>, !tile.tma_desc<memref<256x64xf32>, box = [64, 64]>
    ```
  }];
  let arguments = (ins Tile_TmaReduceKindAttr:$kind,
                       Arg<AnyMemRef, "shared source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<Tile_TmaDescType, "the tensor updated", [MemRead, MemWrite]>:$descriptor,
                       Variadic<Index>:$coordinates,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $kind $src (`[` $srcIndices^ `]`)? `to` $descriptor `[` $coordinates `]`
    (`cache_hint` $cachePolicy^)? attr-dict `:` type($src) `,`
    qualified(type($descriptor))
  }];
  let hasVerifier = 1;
}

def Tile_TmaPrefetchOp : Tile_Op<"tma_prefetch", [AttrSizedOperandSegments, Tile_TmaOp]> {
  let summary = "prefetch a box of a tensor into L2";
  let description = [{
    `cp.async.bulk.prefetch.tensor.Nd.L2.global.tile`: warms L2 with the box
    at `coordinates` (outermost first; with an im2col descriptor and its
    `im2col` offsets, `.im2col`); nothing completes or needs a wait.
    Requires sm_90.

    Example:
    ```mlir
    tile.tma_prefetch %d[%row, %col] : !tile.tma_desc<memref<256x64xf16>, box = [64, 64]>
    ```
  }];
  let arguments = (ins Tile_TmaDescType:$descriptor,
                       Variadic<Index>:$coordinates,
                       Variadic<I16>:$im2colOffsets,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $descriptor `[` $coordinates `]` (`im2col` `[` $im2colOffsets^ `]`)?
    (`cache_hint` $cachePolicy^)? attr-dict `:` qualified(type($descriptor))
  }];
  let hasVerifier = 1;
}

def Tile_TmaPrefetchDescriptorOp : Tile_Op<"tma_prefetch_descriptor", [Tile_TmaOp]> {
  let summary = "prefetch a tensor map into the descriptor cache";
  let description = [{
    `prefetch.tensormap [desc]`: hides the first TMA's descriptor fetch; CUTLASS
    issues it once per kernel from the producer thread. Requires sm_90.

    Example:
    ```mlir
    tile.tma_prefetch_descriptor %d : !tile.tma_desc<memref<256x64xf16>, box = [64, 64]>
    ```
  }];
  let arguments = (ins Tile_TmaDescType:$descriptor);
  let assemblyFormat = "$descriptor attr-dict `:` qualified(type($descriptor))";
}

def Tile_TmaFenceDescriptorOp : Tile_Op<"tma_fence_descriptor",
    [Tile_MinSm<90, ["getMinPtxVersion"]>]> {
  let summary = "order generic writes to a tensor map before its TMA uses";
  let description = [{
    `fence.proxy.tensormap::generic.acquire.gpu [desc], 128`: needed only when
    the tensor map in global memory was written by device code (or by the
    host while kernels that use it run); maps from `tile.tma_create_descriptor`
    are complete before the launch and need none. Requires sm_90 and PTX
    8.3 (`features=+ptx83`; LLVM 22 cannot select it for older PTX).

    Example:
    ```mlir
    tile.tma_fence_descriptor %d : !tile.tma_desc<memref<256x64xf16>, box = [64, 64]>
    ```
  }];
  let arguments = (ins Tile_TmaDescType:$descriptor);
  let assemblyFormat = "$descriptor attr-dict `:` qualified(type($descriptor))";
}

#endif // TILE_IR_TMAOPS_TD
