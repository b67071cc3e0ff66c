// Distributed shared memory: in each cluster, CTA r stores
// 100 + r into the shared buffer of CTA (r + 1) mod n through
// tile.cluster_map_shared, then arrives on that CTA's cluster-scope mbarrier
// (release.cluster); each CTA waits on its own barrier (acquire) and reports
// what it received. Clusters of 2 and of 4 over 8 blocks.
//
// RUN: tile-run %s --chip=sm_90a | FileCheck %s
// CHECK-LABEL: cluster of 2
// CHECK: [101,  100,  101,  100,  101,  100,  101,  100]
// CHECK-LABEL: cluster of 4
// CHECK: [103,  100,  101,  102,  103,  100,  101,  102]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @exchange(%out: memref<8xi32>)
        workgroup(%smem: memref<4xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %hundred = arith.constant 100 : i32
      %false = arith.constant false
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %rank = tile.cluster_cta_rank : index
      %size = tile.cluster_size : index
      %bars = tile.mbarrier_alloc : !tile.mbarrier<scope = cluster>
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier<scope = cluster>
      }
      // Barrier inits are visible cluster-wide before anyone arrives remotely.
      tile.fence_mbarrier_init
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      %next = arith.addi %rank, %c1 : index
      %peer = arith.remui %next, %size : index
      %peer32 = arith.index_cast %peer : index to i32
      scf.if %leader {
        %remote = tile.cluster_map_shared %smem, %peer32
            : memref<4xi32, #gpu.address_space<workgroup>> -> memref<4xi32, 7>
        %r32 = arith.index_cast %rank : index to i32
        %v = arith.addi %hundred, %r32 : i32
        memref.store %v, %remote[%c0] : memref<4xi32, 7>
        tile.mbarrier_arrive_remote %bars[%c0], %peer32 : !tile.mbarrier<scope = cluster>
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !tile.mbarrier<scope = cluster>
      scf.if %leader {
        %got = memref.load %smem[%c0] : memref<4xi32, #gpu.address_space<workgroup>>
        memref.store %got, %out[%bid] : memref<8xi32>
      }
      // No CTA leaves while a peer may still touch its shared memory.
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      gpu.return
    }
  }

  func.func @run(%cluster: index) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %host = memref.alloc() : memref<8xi32>
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<8xi32>
    %t2 = gpu.launch_func async [%t1] @kernels::@exchange clusters in (%cluster, %c1, %c1)
        blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1) args(%dev : memref<8xi32>)
    %t3 = gpu.memcpy async [%t2] %host, %dev : memref<8xi32>, memref<8xi32>
    %t4 = gpu.dealloc async [%t3] %dev : memref<8xi32>
    gpu.wait [%t4]
    %cast = memref.cast %host : memref<8xi32> to memref<*xi32>
    call @printMemrefI32(%cast) : (memref<*xi32>) -> ()
    memref.dealloc %host : memref<8xi32>
    return
  }

  func.func @main() {
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    vector.print str "cluster of 2\n"
    call @run(%c2) : (index) -> ()
    vector.print str "cluster of 4\n"
    call @run(%c4) : (index) -> ()
    return
  }
  func.func private @printMemrefI32(memref<*xi32>)
}
