//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEOPS_TD
#define TILE_IR_TILEOPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// cp.async (PTX ISA, "Data Movement and Conversion Instructions: cp.async")
//===----------------------------------------------------------------------===//

/// cp.async exists from sm_80 on (PTX ISA, "cp.async", target ISA notes).
defvar Tile_Sm80Op = Tile_MinSm<80>;

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [AttrSizedOperandSegments, Tile_Sm80Op]> {
  let summary = "copy 4, 8 or 16 bytes from global to shared memory with cp.async";
  let description = [{
    Each executing thread starts one asynchronous copy of `size` bytes from
    `src[srcIndices]` (global memory) to `dst[dstIndices]` (shared memory). The
    copy joins the thread's current, not yet committed, cp.async group; its data
    may be read only after a `tile.async_wait_group` that covers that group.

    - `cache`: `ca` caches in L1 and L2, `cg` in L2 only (needs `size` 16).
    - `l2_prefetch`: also fetch 64/128/256 bytes around the source into L2.
    - `src_bytes`: copy only that many bytes (0..size) and zero-fill the rest.
    - `ignore_src`: when true, ignore the source and write `size` zero bytes.
    - `cache_policy`: a 64-bit L2 cache policy (from `createpolicy`), emitted
      as `.L2::cache_hint`.

    Lowers to PTX `cp.async.{ca,cg}.shared.global{.L2::NB} [dst], [src],
    size{, src-size}` (`nvvm.cp.async.shared.global`). Requires sm_80.
    Invariants T-CPASYNC-1..7.

    Example:
    ```mlir
    tile.async_copy %g[%i, %j] to %s[%k, %l], 16 bytes, cache = cg, l2_prefetch = b128
        : memref<128x128xf16> to memref<64x32xf16, 3>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "global source", [MemRead]>:$src,
                       Variadic<Index>:$srcIndices,
                       Arg<AnyMemRef, "shared destination", [MemWrite]>:$dst,
                       Variadic<Index>:$dstIndices,
                       I32Attr:$size,
                       Tile_CacheModeAttr:$cache,
                       OptionalAttr<Tile_L2PrefetchSizeAttr>:$l2Prefetch,
                       Optional<I32>:$srcBytes,
                       Optional<I1>:$ignoreSrc,
                       Optional<I64>:$cachePolicy);
  let assemblyFormat = [{
    $src `[` $srcIndices `]` `to` $dst `[` $dstIndices `]` `,` $size `bytes`
    `,` `cache` `=` custom<CopyModifiers>($cache, $l2Prefetch, $srcBytes,
    $ignoreSrc, $cachePolicy)
    attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of elements of the memrefs' element type that one copy moves.
    int64_t getNumElements();
  }];
}

def Tile_AsyncCommitGroupOp : Tile_Op<"async_commit_group", [Tile_Sm80Op]> {
  let summary = "close the current group of cp.async copies";
  let description = [{
    Commits every cp.async issued by the executing thread since the previous
    commit into one group, in FIFO order, and returns a token naming it. An
    empty group is legal and completes at once. Lowers to
    `cp.async.commit_group` (PTX ISA, "cp.async.commit_group").

    Example:
    ```mlir
    %g = tile.async_commit_group
    ```
  }];
  let results = (outs Tile_AsyncGroupType:$group);
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitGroupOp : Tile_Op<"async_wait_group", [Tile_Sm80Op]> {
  let summary = "wait until at most N cp.async groups are pending";
  let description = [{
    Blocks the executing thread until at most `pending` of its most recently
    committed cp.async groups are still in flight; all older groups are then
    complete and their shared-memory data is visible to this thread. A K-stage
    ring waits with `pending = K - 2` (CUTLASS's multistage mainloop, cp_async_wait<Stages - 2>). The optional `for` tokens
    name the groups the wait is meant to complete, for the protocol verifier.
    Lowers to `cp.async.wait_group N` (PTX ISA, "cp.async.wait_group"). Invariant
    T-CPASYNC-7.

    Example:
    ```mlir
    tile.async_wait_group 1 for %g0
    ```
  }];
  let arguments = (ins I32Attr:$pending, Variadic<Tile_AsyncGroupType>:$groups);
  let assemblyFormat = "$pending (`for` $groups^)? attr-dict";
  let hasVerifier = 1;
}

def Tile_AsyncWaitAllOp : Tile_Op<"async_wait_all", [Tile_Sm80Op]> {
  let summary = "commit pending cp.async copies and wait for all groups";
  let description = [{
    Equivalent to `tile.async_commit_group` followed by
    `tile.async_wait_group 0` (PTX ISA, "cp.async.wait_group / cp.async.wait_all").

    Example:
    ```mlir
    tile.async_wait_all
    ```
  }];
  let assemblyFormat = "attr-dict";
}

include "Tile/IR/MBarrierOps.td"
include "Tile/IR/ClusterOps.td"
include "Tile/IR/GridDependencyOps.td"
include "Tile/IR/BulkCopyOps.td"
include "Tile/IR/SharedMemoryOps.td"
include "Tile/IR/TmaOps.td"
include "Tile/IR/MatrixOps.td"
include "Tile/IR/WgmmaOps.td"
include "Tile/IR/TileLevelOps.td"
include "Tile/IR/ScheduleOps.td"
include "Tile/IR/WarpgroupFragmentOps.td"
include "Tile/IR/NamedBarrierOps.td"
include "Tile/IR/ReduceOps.td"

#endif // TILE_IR_TILEOPS_TD
