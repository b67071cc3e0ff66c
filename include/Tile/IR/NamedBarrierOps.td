//===- NamedBarrierOps.td - Named CTA barriers -------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "Parallel Synchronization and Communication Instructions:
// bar, barrier": the 16 named barriers of a CTA, met by a subset of its
// warps; warp-specialized kernels order their warpgroups with them
// (CUTLASS's OrderedSequenceBarrier, FlashAttention-3's ping-pong of two
// consumer warpgroups).
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_NAMEDBARRIEROPS_TD
#define TILE_IR_NAMEDBARRIEROPS_TD

include "Tile/IR/TileTypes.td"

class Tile_NamedBarrierOp<string mnemonic> : Tile_Op<mnemonic> {
  let arguments = (ins I32:$id, I32Attr:$threads);
  let assemblyFormat = "$id `,` $threads attr-dict";
  let hasVerifier = 1;
}

def Tile_NamedBarrierSyncOp : Tile_NamedBarrierOp<"named_barrier_sync"> {
  let summary = "wait at a named barrier until `threads` threads arrived";
  let description = [{
    `bar.sync id, threads`: the executing warp arrives at named barrier
    `id` and waits until `threads` threads (a multiple of 32) have arrived
    at it, counting `tile.named_barrier_arrive`s. Ids 0 to 8 belong to the
    tile ops (0 is `gpu.barrier`; 1 + w warpgroup w's, T-TILE-4/6), so a
    kernel names 9 to 15. Invariant T-BAR-1.

    Example (consumer warpgroup %wg of two waits for its turn):
    ```mlir
    %id = arith.addi %c9_i32, %wg_i32 : i32
    tile.named_barrier_sync %id, 256
    ```
  }];
}

def Tile_NamedBarrierArriveOp : Tile_NamedBarrierOp<"named_barrier_arrive"> {
  let summary = "arrive at a named barrier without waiting";
  let description = [{
    `bar.arrive id, threads`: the executing warp counts towards `threads`
    (a multiple of 32) at named barrier `id` and goes on; the warps that
    `tile.named_barrier_sync` there continue once all arrived. Invariant
    T-BAR-1.

    Example (hand the turn to the other consumer warpgroup):
    ```mlir
    tile.named_barrier_arrive %other, 256
    ```
  }];
}

#endif // TILE_IR_NAMEDBARRIEROPS_TD
