//===- BulkCopyOps.td - 1D bulk async copies (no tensor map) -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "cp.async.bulk", "cp.async.bulk.commit_group",
// "cp.async.bulk.wait_group".
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_BULKCOPYOPS_TD
#define TILE_IR_BULKCOPYOPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

defvar Tile_Sm90Op = Tile_MinSm<90>;

def Tile_BulkCopyGlobalToSharedOp
    : Tile_Op<"bulk_copy_global_to_shared", [AttrSizedOperandSegments,
        Tile_MinSm<90, ["requiresClusterLaunch"]>,
        Tile_BarrierOp<["getCompletedTxBytes", "signalsRemoteBarriers"]>]> {
  let summary = "copy contiguous bytes from global to shared memory with the TMA unit";
  let description = [{
    One thread starts `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`:
    `bytes` contiguous bytes from `src[srcIndices]` to `dst[dstIndices]`,
    signalling completion on `barriers[barrierIndex]` with complete_tx (so
    someone must expect_tx the same bytes on that phase). Requires sm_90.
    Invariants T-BULK-1..3.

    - `multicast %mask`: the bytes land at the same offset in every CTA of
      the cluster whose rank bit is set, each signalling its own barrier at
      the same offset (needs a cluster launch).
    - `cache_hint %policy`: a 64-bit L2 cache policy (`.L2::cache_hint`).

    Example:
    ```mlir
    tile.bulk_copy_global_to_shared %g[%i] to %s[%c0], %bytes, %bars[%c0]
        : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "global source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<AnyMemRef, "shared destination", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       I32:$bytes,
                       Tile_MBarrierType:$barriers, Index:$barrierIndex,
                       Optional<I16>:$multicastMask,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $src `[` $srcIndices `]` `to` $dst `[` $dstIndices `]` `,` $bytes `,`
    $barriers `[` $barrierIndex `]` (`multicast` $multicastMask^)?
    (`cache_hint` $cachePolicy^)? attr-dict `:` type($src) `to` type($dst)
    `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_BulkCopySharedToGlobalOp
    : Tile_Op<"bulk_copy_shared_to_global", [AttrSizedOperandSegments,
        Tile_MinSm<90, ["getMinSmVersion", "getMinPtxVersion"]>]> {
  let summary = "copy contiguous bytes from shared to global memory with the TMA unit";
  let description = [{
    One thread starts `cp.async.bulk.global.shared::cta.bulk_group`: `bytes`
    contiguous bytes from `src[srcIndices]` to `dst[dstIndices]`, completing
    with the thread's bulk async-group (`tile.bulk_commit_group`,
    `tile.bulk_wait_group`). Generic writes to the source need a
    `tile.fence_proxy_async` first (T-PROTO-10). Requires sm_90. Invariants
    T-BULK-1..3.

    - `cache_hint %policy`: a 64-bit L2 cache policy (`.L2::cache_hint`).
    - `byte_mask %mask`: bit i of the 16-bit mask enables byte i of every
      16-byte chunk (`.cp_mask`, sm_100 and PTX 8.6).

    Example:
    ```mlir
    tile.bulk_copy_shared_to_global %s[%c0] to %g[%i], %bytes
        : memref<1024xf32, 3> to memref<4096xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "shared source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<AnyMemRef, "global destination", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       I32:$bytes,
                       Optional<I64>:$cachePolicy,
                       Optional<I16>:$byteMask);
  let assemblyFormat = [{
    $src `[` $srcIndices `]` `to` $dst `[` $dstIndices `]` `,` $bytes
    (`cache_hint` $cachePolicy^)? (`byte_mask` $byteMask^)? attr-dict
    `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_BulkCopySharedToClusterOp
    : Tile_Op<"bulk_copy_shared_to_cluster", [AttrSizedOperandSegments,
        Tile_MinSm<90, ["requiresClusterLaunch"]>,
        Tile_BarrierOp<["getCompletedTxBytes", "signalsRemoteBarriers"]>]> {
  let summary = "copy contiguous bytes into another CTA's shared memory";
  let description = [{
    One thread starts `cp.async.bulk.shared::cluster.shared::cta
    .mbarrier::complete_tx::bytes`: `bytes` contiguous bytes from this CTA's
    `src[srcIndices]` to `dst[dstIndices]` **in the CTA of cluster rank
    `rank`** (`dst` and `barriers` name this CTA's buffer and barrier; the
    copy targets the same offsets there, mapped with mapa), signalling
    complete_tx on that CTA's `barriers[barrierIndex]`. Generic writes to
    the source need a `tile.fence_proxy_async` first (T-PROTO-10). Requires
    sm_90 and a cluster launch. Invariants T-BULK-1..3.

    Example:
    ```mlir
    tile.bulk_copy_shared_to_cluster %s[%c0] to %s[%c0], %bytes, %bars[%c0] rank %peer
        : memref<1024xf32, 3> to memref<1024xf32, 3>, !tile.mbarrier<scope = cluster>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "shared source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<AnyMemRef, "shared destination (in CTA `rank`)", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       I32:$bytes,
                       Tile_MBarrierType:$barriers, Index:$barrierIndex,
                       I32:$rank);
  let assemblyFormat = [{
    $src `[` $srcIndices `]` `to` $dst `[` $dstIndices `]` `,` $bytes `,`
    $barriers `[` $barrierIndex `]` `rank` $rank attr-dict `:` type($src)
    `to` type($dst) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_BulkPrefetchOp : Tile_Op<"bulk_prefetch", [AttrSizedOperandSegments, Tile_Sm90Op]> {
  let summary = "prefetch contiguous global bytes into L2";
  let description = [{
    `cp.async.bulk.prefetch.L2.global [src], bytes`: warms L2 with `bytes`
    (a multiple of 16) from the 16-byte-aligned `src[indices]`; nothing
    completes or needs a wait. Requires sm_90. Invariants T-BULK-1..2.

    Example:
    ```mlir
    tile.bulk_prefetch %g[%i], %bytes : memref<4096xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "global source">:$src,
                       Variadic<Index>:$indices, I32:$bytes,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $src `[` $indices `]` `,` $bytes (`cache_hint` $cachePolicy^)? attr-dict
    `:` type($src)
  }];
  let hasVerifier = 1;
}

def Tile_BulkCommitGroupOp : Tile_Op<"bulk_commit_group", [Tile_Sm90Op]> {
  let summary = "close the current bulk async-group";
  let description = [{
    `cp.async.bulk.commit_group`: groups the thread's bulk copies
    (shared-to-global) issued since the previous commit.

    Example:
    ```mlir
    tile.bulk_commit_group
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_BulkWaitGroupOp : Tile_Op<"bulk_wait_group", [Tile_Sm90Op]> {
  let summary = "wait until at most N bulk async-groups are pending";
  let description = [{
    `cp.async.bulk.wait_group{.read} N`: with `read`, only until the pending
    groups have finished *reading* their shared-memory source (enough to
    reuse the buffer), otherwise until they completed. Invariant T-CPASYNC-7
    applies to N.

    Example:
    ```mlir
    tile.bulk_wait_group 0 read
    ```
  }];
  let arguments = (ins I32Attr:$pending, UnitAttr:$read);
  let assemblyFormat = "$pending (`read` $read^)? attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_IR_BULKCOPYOPS_TD
