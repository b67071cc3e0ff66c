//===- ClusterOps.td - Thread-block cluster ops ------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "barrier.cluster", "mapa", "elect.sync", special registers
// %cluster_ctarank / %cluster_nctarank; CUDA C++ Programming Guide, "Thread Block Clusters". Cluster ids and shapes per
// dimension are the gpu dialect's (gpu.cluster_id, gpu.cluster_dim,
// gpu.cluster_block_id, gpu.cluster_dim_blocks).
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_CLUSTEROPS_TD
#define TILE_IR_CLUSTEROPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

/// Needs sm_90 and a kernel launched with a cluster shape.
defvar Tile_ClusterOp = Tile_MinSm<90, ["requiresClusterLaunch"]>;

def Tile_ClusterCtaRankOp : Tile_Op<"cluster_cta_rank", [Pure, Tile_ClusterOp]> {
  let summary = "rank of this CTA in its cluster";
  let description = [{
    `%cluster_ctarank`: the CTA's linear rank in [0, cluster size).

    Example:
    ```mlir
    %rank = tile.cluster_cta_rank : index
    ```
  }];
  let results = (outs Index:$rank);
  let assemblyFormat = "attr-dict `:` type($rank)";
}

def Tile_ClusterSizeOp : Tile_Op<"cluster_size", [Pure, Tile_ClusterOp]> {
  let summary = "number of CTAs in this cluster";
  let description = [{
    `%cluster_nctarank`.

    Example:
    ```mlir
    %n = tile.cluster_size : index
    ```
  }];
  let results = (outs Index:$size);
  let assemblyFormat = "attr-dict `:` type($size)";
}

def Tile_ClusterArriveOp : Tile_Op<"cluster_arrive", [Tile_ClusterOp]> {
  let summary = "arrive at the cluster barrier";
  let description = [{
    `barrier.cluster.arrive{.relaxed}{.aligned}`: the split-phase cluster
    barrier's arrive; `relaxed` drops the release ordering, `aligned` promises
    that all threads of the warp execute it. Pair with `tile.cluster_wait`.

    Example:
    ```mlir
    tile.cluster_arrive relaxed aligned
    ```
  }];
  let arguments = (ins UnitAttr:$relaxed, UnitAttr:$aligned);
  let assemblyFormat = "(`relaxed` $relaxed^)? (`aligned` $aligned^)? attr-dict";
}

def Tile_ClusterWaitOp : Tile_Op<"cluster_wait", [Tile_ClusterOp]> {
  let summary = "wait for all CTAs of the cluster to arrive";
  let description = [{
    `barrier.cluster.wait{.aligned}` (acquire).

    Example:
    ```mlir
    tile.cluster_wait aligned
    ```
  }];
  let arguments = (ins UnitAttr:$aligned);
  let assemblyFormat = "(`aligned` $aligned^)? attr-dict";
}

def Tile_ClusterMapSharedOp : Tile_Op<"cluster_map_shared", [Pure, Tile_ClusterOp]> {
  let summary = "view a shared buffer of another CTA of the cluster (DSMEM)";
  let description = [{
    `mapa.shared::cluster`: maps `source`, a shared-memory memref of this CTA,
    to the same buffer in the CTA of rank `rank`; the result lives in the
    shared::cluster space (address space 7) and is read and written with
    ordinary loads and stores. Invariant T-CLUSTER-2.

    Example:
    ```mlir
    %remote = tile.cluster_map_shared %smem, %rank : memref<256xi32, 3> -> memref<256xi32, 7>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, I32:$rank);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source `,` $rank attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_MBarrierArriveRemoteOp : Tile_Op<"mbarrier_arrive_remote", [Tile_ClusterOp,
    Tile_BarrierOp<["getArrivalCount", "signalsRemoteBarriers"]>]> {
  let summary = "arrive on the mbarrier of another CTA of the cluster";
  let description = [{
    Maps barrier `index` of the group to the CTA of rank `rank` (`mapa`) and
    arrives there (`mbarrier.arrive.release.<scope>.shared::cluster.b64 _,
    [addr]`) with release at the group's scope (T-MBAR-6): a cluster-scope
    group releases the arriving thread's writes to the cluster (data
    exchanged through distributed shared memory); a CTA-scope group orders
    nothing across CTAs, which is what a TMA pipeline's "stage free"
    arrival needs (the reads it releases were wgmma's, completed by
    `wgmma.wait_group`; CUTLASS's ClusterBarrier) and is much cheaper: a
    release at cluster scope on every stage made a clustered GEMM 2.5 times
    slower on an H100. Invariant T-MBAR-4.

    Example:
    ```mlir
    tile.mbarrier_arrive_remote %bars[%i], %rank : !tile.mbarrier<count = 2, scope = cluster>
    ```
  }];
  let arguments = (ins Tile_MBarrierType:$barriers, Index:$index, I32:$rank);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $rank attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_ElectSyncOp : Tile_Op<"elect_sync", [Tile_MinSm<90>]> {
  let summary = "elect one leader lane of the warp";
  let description = [{
    `elect.sync`: true in exactly one active lane of the (full) warp, the
    idiom for issuing TMA or mbarrier operations once per warp. Requires
    sm_90.

    Example:
    ```mlir
    %leader = tile.elect_sync : i1
    ```
  }];
  let results = (outs I1:$leader);
  let assemblyFormat = "attr-dict `:` type($leader)";
}

#endif // TILE_IR_CLUSTEROPS_TD
