// Cluster ops through tile-to-ptx-pipeline; ptxas assembles them for sm_90a.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: .visible .entry cluster_ops(
//       CHECK: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
//       CHECK: mov.u32 %r{{[0-9]+}}, %cluster_nctarank;
//       CHECK: fence.mbarrier_init.release.cluster;
//       CHECK: barrier.cluster.arrive.relaxed.aligned;
//       CHECK: barrier.cluster.wait.aligned;
//       CHECK: mapa.shared::cluster.u{{32|64}}
//       CHECK: st.shared::cluster.b32
//       CHECK: mapa.shared::cluster.u{{32|64}}
//       CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
//       CHECK: mapa.shared::cluster.u{{32|64}}
//       CHECK: mbarrier.arrive.shared::cluster.b64
//       CHECK: elect.sync
//       CHECK: barrier.cluster.arrive;
//       CHECK: barrier.cluster.wait;

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @cluster_ops(%out: memref<2xi32>)
        workgroup(%smem: memref<4xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %rank = tile.cluster_cta_rank : index
      %size = tile.cluster_size : index
      %bars = tile.mbarrier_alloc : !tile.mbarrier<scope = cluster>
      tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier<scope = cluster>
      %stage_free = tile.mbarrier_alloc : !tile.mbarrier
      tile.mbarrier_init %stage_free[%c0], %one : !tile.mbarrier
      tile.fence_mbarrier_init
      tile.cluster_arrive relaxed aligned
      tile.cluster_wait aligned
      %next = arith.addi %rank, %c1 : index
      %peer = arith.remui %next, %size : index
      %peer32 = arith.index_cast %peer : index to i32
      %remote = tile.cluster_map_shared %smem, %peer32
          : memref<4xi32, #gpu.address_space<workgroup>> -> memref<4xi32, 7>
      %r32 = arith.index_cast %rank : index to i32
      memref.store %r32, %remote[%c0] : memref<4xi32, 7>
      tile.mbarrier_arrive_remote %bars[%c0], %peer32 : !tile.mbarrier<scope = cluster>
      // A CTA-scope group: the remote arrival releases at CTA scope
      // (T-MBAR-6; a TMA pipeline's stage release).
      tile.mbarrier_arrive_remote %stage_free[%c0], %peer32 : !tile.mbarrier
      %leader = tile.elect_sync : i1
      %l32 = arith.extui %leader : i1 to i32
      memref.store %l32, %out[%c1] : memref<2xi32>
      tile.cluster_arrive
      tile.cluster_wait
      gpu.return
    }
  }
}
