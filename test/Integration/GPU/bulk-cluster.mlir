// Bulk copies across a 2-CTA cluster. Part 1: CTA 0 copies 4 KB
// from global memory into both CTAs' buffers with one multicast bulk copy
// (mask 0b11), which signals both CTAs' barriers; each CTA expects the bytes
// on its own barrier. Part 2: each CTA writes rank-tagged values into a
// buffer, fences them for the async proxy and bulk-copies the buffer into
// its peer's second buffer (shared::cta -> shared::cluster), signalling the
// peer's barrier. Every CTA checks both buffers; 8 clusters run.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: bulk cluster mismatches: 0 in 16 CTAs

!bars = !tile.mbarrier<count = 2, scope = cluster>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bulk_cluster(%g: memref<1024xf32>, %bad: memref<1xi32>, %seen: memref<1xi32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 4096 : i32
      %mask = arith.constant 3 : i16
      %false = arith.constant false
      %tid = gpu.thread_id x
      %rank = tile.cluster_cta_rank : index
      %rank32 = arith.index_cast %rank : index to i32
      %peer32 = arith.xori %rank32, %one : i32
      %rankf = arith.sitofp %rank32 : i32 to f32
      %peerf = arith.sitofp %peer32 : i32 to f32
      %thousand = arith.constant 1000.0 : f32
      %in = tile.shared_alloc : memref<1024xf32, 3>
      %mine = tile.shared_alloc : memref<1024xf32, 3>
      %theirs = tile.shared_alloc : memref<1024xf32, 3>
      %bars = tile.mbarrier_alloc : !bars
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !bars
        tile.mbarrier_init %bars[%c1], %one : !bars
        tile.fence_mbarrier_init
      }
      // Tagged values for the peer: rank * 1000 + i.
      scf.for %i = %tid to %c1024 step %c128 {
        %ii = arith.index_cast %i : index to i32
        %f = arith.sitofp %ii : i32 to f32
        %tag = arith.mulf %rankf, %thousand : f32
        %v = arith.addf %tag, %f : f32
        memref.store %v, %mine[%i] : memref<1024xf32, 3>
      }
      tile.fence_proxy_async shared_cta
      // Both CTAs' barriers and buffers are ready before any copy targets them.
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      scf.if %leader {
        %t0 = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !bars -> !tile.mbarrier_token
        %t1 = tile.mbarrier_arrive_expect_tx %bars[%c1], %bytes : !bars -> !tile.mbarrier_token
        %first = arith.cmpi eq, %rank, %c0 : index
        scf.if %first {
          tile.bulk_copy_global_to_shared %g[%c0] to %in[%c0], %bytes, %bars[%c0] multicast %mask
              : memref<1024xf32> to memref<1024xf32, 3>, !bars
        }
        tile.bulk_copy_shared_to_cluster %mine[%c0] to %theirs[%c0], %bytes, %bars[%c1] rank %peer32
            : memref<1024xf32, 3> to memref<1024xf32, 3>, !bars
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !bars
      tile.mbarrier_wait_parity %bars[%c1], %false : !bars
      scf.for %i = %tid to %c1024 step %c128 {
        %x = memref.load %in[%i] : memref<1024xf32, 3>
        %y = memref.load %g[%i] : memref<1024xf32>
        %ii = arith.index_cast %i : index to i32
        %f = arith.sitofp %ii : i32 to f32
        %tag = arith.mulf %peerf, %thousand : f32
        %want = arith.addf %tag, %f : f32
        %z = memref.load %theirs[%i] : memref<1024xf32, 3>
        %ne1 = arith.cmpf une, %x, %y : f32
        %ne2 = arith.cmpf une, %z, %want : f32
        %ne = arith.ori %ne1, %ne2 : i1
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      scf.if %leader {
        %old = memref.atomic_rmw addi %one, %seen[%c0] : (i32, memref<1xi32>) -> i32
      }
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %n = arith.constant 1024 : index
    %h = memref.alloc() : memref<1024xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %g = arith.negf %f : f32
      memref.store %g, %h[%i] : memref<1024xf32>
    }
    %dg = gpu.alloc () : memref<1024xf32>
    gpu.memcpy %dg, %h : memref<1024xf32>, memref<1024xf32>
    %zero = arith.constant 0 : i32
    %hc = memref.alloc() : memref<1xi32>
    memref.store %zero, %hc[%c0] : memref<1xi32>
    %dbad = gpu.alloc () : memref<1xi32>
    %dseen = gpu.alloc () : memref<1xi32>
    gpu.memcpy %dbad, %hc : memref<1xi32>, memref<1xi32>
    gpu.memcpy %dseen, %hc : memref<1xi32>, memref<1xi32>
    gpu.launch_func @kernels::@bulk_cluster clusters in (%c2, %c1, %c1) blocks in (%c16, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%dg : memref<1024xf32>, %dbad : memref<1xi32>, %dseen : memref<1xi32>)
    gpu.memcpy %hc, %dbad : memref<1xi32>, memref<1xi32>
    %bad = memref.load %hc[%c0] : memref<1xi32>
    gpu.memcpy %hc, %dseen : memref<1xi32>, memref<1xi32>
    %seen = memref.load %hc[%c0] : memref<1xi32>
    vector.print str "bulk cluster mismatches: "
    vector.print %bad : i32 punctuation <no_punctuation>
    vector.print str " in "
    vector.print %seen : i32 punctuation <no_punctuation>
    vector.print str " CTAs\n"
    return
  }
}
