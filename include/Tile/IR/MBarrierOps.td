//===- MBarrierOps.td - mbarrier and fence ops -------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "Parallel Synchronization and Communication Instructions:
// mbarrier" and "membar/fence".
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_MBARRIEROPS_TD
#define TILE_IR_MBARRIEROPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

// PTX ISA target notes: mbarrier and cp.async.mbarrier.arrive need sm_80;
// transaction counts, try_wait, arrive counts and the proxy/init fences need
// sm_90. Ops whose minimum depends on operands (cluster scope needs sm_90)
// define getMinSmVersion in lib/IR/MBarrierOps.cpp.
defvar Tile_Sm80OrClusterOp = Tile_MinSm<80, ["getMinSmVersion"]>;

def Tile_MBarrierAllocOp : Tile_Op<"mbarrier_alloc", [Tile_Sm80OrClusterOp]> {
  let summary = "allocate a group of mbarriers in shared memory";
  let description = [{
    Reserves `count` 8-byte, 8-byte-aligned mbarrier objects in the CTA's
    shared memory (a private `.shared` array). They must be initialized with
    `tile.mbarrier_init` before use. Invariant T-MBAR-1.

    Example:
    ```mlir
    %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
    ```
  }];
  let results = (outs Tile_MBarrierType:$barriers);
  let assemblyFormat = "attr-dict `:` qualified(type($barriers))";
}

/// Base of the ops that address one barrier of a group, `%bars[%index]`;
/// `target` is their Tile_MinSm, `roles` their Tile_BarrierOp methods.
class Tile_MBarrierOp<string mnemonic, Trait target, list<string> roles = []>
    : Tile_Op<mnemonic, [target, Tile_BarrierOp<roles>]> {
  let hasVerifier = 1;
}

def Tile_MBarrierInitOp : Tile_MBarrierOp<"mbarrier_init", Tile_Sm80OrClusterOp,
    ["getInitCount"]> {
  let summary = "initialize an mbarrier with an expected arrival count";
  let description = [{
    Sets the barrier's phase 0 to expect `count` arrivals (`mbarrier.init`).
    Run by one thread, followed by a CTA barrier (or `tile.fence_mbarrier_init`
    for cluster use) before others touch it. Invariants T-MBAR-2, T-MBAR-4.

    Example:
    ```mlir
    tile.mbarrier_init %bars[%c0], %c1_i32 : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I32:$count,
                       Optional<I1>:$predicate);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $count (`if` $predicate^)? attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierArriveOp : Tile_MBarrierOp<"mbarrier_arrive", Tile_Sm80OrClusterOp,
    ["getArrivalCount"]> {
  let summary = "arrive on an mbarrier and get the phase's state";
  let description = [{
    Performs `count` (default 1) arrive-on operations (`mbarrier.arrive`,
    release semantics at the barrier's scope) and returns the state token of
    the current phase. A count needs sm_90. Invariants T-MBAR-2, T-MBAR-4.

    Example:
    ```mlir
    %tok = tile.mbarrier_arrive %bars[%i] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index,
                       Optional<I32>:$count);
  let results = (outs Tile_MBarrierTokenType:$token);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`,` $count^)? attr-dict `:` qualified(type($barriers)) `->` qualified(type($token))
  }];
}

def Tile_MBarrierArriveDropOp : Tile_MBarrierOp<"mbarrier_arrive_drop", Tile_Sm80OrClusterOp,
    ["getArrivalCount"]> {
  let summary = "arrive and drop out of all later phases";
  let description = [{
    `mbarrier.arrive_drop`: arrives once and lowers the expected arrival
    count of the following phases by one (a thread that leaves the pipeline).

    Example:
    ```mlir
    %tok = tile.mbarrier_arrive_drop %bars[%i] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index);
  let results = (outs Tile_MBarrierTokenType:$token);
  let assemblyFormat = [{
    $barriers `[` $index `]` attr-dict `:` qualified(type($barriers)) `->` qualified(type($token))
  }];
}

def Tile_MBarrierArriveExpectTxOp : Tile_MBarrierOp<"mbarrier_arrive_expect_tx", Tile_MinSm<90>,
    ["getArrivalCount", "getExpectedTxBytes"]> {
  let summary = "expect bytes from async copies, then arrive";
  let description = [{
    `mbarrier.arrive.expect_tx`: raises the phase's transaction count by
    `bytes` (the bytes TMA/bulk copies will deliver with complete_tx), then
    arrives once. The phase completes when all arrivals happened *and* all the
    bytes landed. Requires sm_90. Invariants T-MBAR-3, T-MBAR-4.

    Example:
    ```mlir
    %tok = tile.mbarrier_arrive_expect_tx %bars[%i], %bytes : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I32:$bytes);
  let results = (outs Tile_MBarrierTokenType:$token);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` qualified(type($barriers)) `->` qualified(type($token))
  }];
}

def Tile_MBarrierExpectTxOp : Tile_MBarrierOp<"mbarrier_expect_tx", Tile_MinSm<90>,
    ["getExpectedTxBytes"]> {
  let summary = "raise the transaction count of the current phase";
  let description = [{
    `mbarrier.expect_tx` without an arrival. Requires sm_90. Invariants
    T-MBAR-3, T-MBAR-4.

    Example:
    ```mlir
    tile.mbarrier_expect_tx %bars[%i], %bytes : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I32:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierCompleteTxOp : Tile_MBarrierOp<"mbarrier_complete_tx", Tile_MinSm<90>,
    ["getCompletedTxBytes"]> {
  let summary = "lower the transaction count as if bytes had arrived";
  let description = [{
    `mbarrier.complete_tx`: what an async copy does when its bytes land, done
    by a thread. Requires sm_90. Invariants T-MBAR-3, T-MBAR-4.

    Example:
    ```mlir
    tile.mbarrier_complete_tx %bars[%i], %bytes : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I32:$bytes);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $bytes attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierTestWaitOp : Tile_MBarrierOp<"mbarrier_test_wait", Tile_Sm80OrClusterOp,
    ["isWait"]> {
  let summary = "test, without blocking, whether a phase completed";
  let description = [{
    `mbarrier.test_wait` on the phase named by `token` (from an arrive).

    Example:
    ```mlir
    %done = tile.mbarrier_test_wait %bars[%i], %tok : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index,
                       Tile_MBarrierTokenType:$token);
  let results = (outs I1:$done);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $token attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierTryWaitOp : Tile_MBarrierOp<"mbarrier_try_wait", Tile_MinSm<90>, ["isWait"]> {
  let summary = "wait a bounded time for the phase named by a token";
  let description = [{
    `mbarrier.try_wait`: suspends the thread for up to a system-dependent
    time until the phase of `token` completes; returns whether it did.
    Requires sm_90.

    Example:
    ```mlir
    %done = tile.mbarrier_try_wait %bars[%i], %tok : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index,
                       Tile_MBarrierTokenType:$token);
  let results = (outs I1:$done);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $token attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierTryWaitParityOp : Tile_MBarrierOp<"mbarrier_try_wait_parity", Tile_MinSm<90>,
    ["isWait", "getWaitParity"]> {
  let summary = "wait a bounded time for the phase with the given parity";
  let description = [{
    `mbarrier.try_wait.parity`: like try_wait, naming the phase by its parity
    `phase` (0 for even phases, 1 for odd), the form pipeline rings use with
    an explicit phase bit. Requires sm_90.

    Example:
    ```mlir
    %done = tile.mbarrier_try_wait_parity %bars[%i], %phase : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I1:$phase);
  let results = (outs I1:$done);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierWaitParityOp : Tile_MBarrierOp<"mbarrier_wait_parity", Tile_MinSm<90>,
    ["isWait", "getWaitParity"]> {
  let summary = "block until the phase with the given parity completes";
  let description = [{
    Loops on `mbarrier.try_wait.parity` until the phase of parity `phase`
    completes. Requires sm_90.

    Example:
    ```mlir
    tile.mbarrier_wait_parity %bars[%i], %phase : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I1:$phase);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $phase attr-dict `:` qualified(type($barriers))
  }];
}

def Tile_MBarrierInvalOp : Tile_MBarrierOp<"mbarrier_inval", Tile_Sm80OrClusterOp,
    ["isInval"]> {
  let summary = "invalidate an mbarrier before its memory is reused";
  let description = [{
    `mbarrier.inval`: required before the barrier's shared memory is used for
    anything else or re-initialized. Invariant T-MBAR-4.

    Example:
    ```mlir
    tile.mbarrier_inval %bars[%i] : !tile.mbarrier<count = 4>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` qualified(type($barriers))";
}

def Tile_AsyncCopyMBarrierArriveOp : Tile_MBarrierOp<"async_copy_mbarrier_arrive", Tile_MinSm<80>,
    ["getArrivalCount"]> {
  let summary = "arrive on an mbarrier when the thread's cp.async copies land";
  let description = [{
    `cp.async.mbarrier.arrive{.noinc}`: the barrier tracks all prior cp.async
    copies of the executing thread and receives an arrive-on when they
    complete. Without `noinc` the pending count is raised first, so the
    arrival is neutral for the init count; with `noinc` it counts as one of
    them. Requires sm_80.

    Example:
    ```mlir
    tile.async_copy_mbarrier_arrive %bars[%i] noinc : !tile.mbarrier<count = 2>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, UnitAttr:$noinc);
  let assemblyFormat = [{
    $barriers `[` $index `]` (`noinc` $noinc^)? attr-dict `:` qualified(type($barriers))
  }];
}

//===----------------------------------------------------------------------===//
// Fences
//===----------------------------------------------------------------------===//

def Tile_FenceMBarrierInitOp : Tile_Op<"fence_mbarrier_init", [Tile_MinSm<90>]> {
  let summary = "make mbarrier initializations visible to the cluster";
  let description = [{
    `fence.mbarrier_init.release.cluster`: orders prior `mbarrier.init`s
    before later cluster-scope accesses by other CTAs (pair it with a cluster
    barrier). Requires sm_90.

    Example:
    ```mlir
    tile.fence_mbarrier_init
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_FenceProxyAsyncOp : Tile_Op<"fence_proxy_async", [Tile_MinSm<90>]> {
  let summary = "order generic-proxy accesses before async-proxy ones";
  let description = [{
    `fence.proxy.async{.shared::cta, .global}`: generic-proxy writes (plain
    stores) become visible to later async-proxy reads (TMA stores, bulk
    copies, wgmma) of the same memory, and vice versa. Requires sm_90.

    Example:
    ```mlir
    tile.fence_proxy_async shared_cta
    ```
  }];
  let arguments = (ins Tile_ProxySpaceAttr:$space);
  let assemblyFormat = "custom<ProxySpace>($space) attr-dict";
}

#endif // TILE_IR_MBARRIEROPS_TD
