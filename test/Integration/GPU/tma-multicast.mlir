// TMA multicast over a 2-CTA cluster: in each cluster, CTA r
// loads half of a 64x32 f32 tile (rows 32r..32r+31) and multicasts it
// (mask 0b11) into the same offset of both CTAs' shared memory, where it
// signals both CTAs' barriers. Each CTA expects the whole tile's bytes on
// its own barrier, waits, and counts the elements that differ from global
// memory; both CTAs of all 8 clusters must see the full tile.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: multicast mismatches: 0 in 16 CTAs

!desc = !tile.tma_desc<memref<512x32xf32>, box = [32, 32], swizzle = b128>
!bars = !tile.mbarrier<scope = cluster>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @multicast(%a: !desc, %g: memref<512x32xf32>, %bad: memref<1xi32>, %seen: memref<1xi32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %c2048 = arith.constant 2048 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 8192 : i32
      %mask = arith.constant 3 : i16
      %false = arith.constant false
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %rank = tile.cluster_cta_rank : index
      // The cluster's 64-row tile; this CTA loads its half.
      %pair = arith.subi %bx, %rank : index
      %base = arith.muli %pair, %c32 : index
      %half = arith.muli %rank, %c32 : index
      %row = arith.addi %base, %half : index
      %tile = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x32x32xf32, 3>
      %bars = tile.mbarrier_alloc : !bars
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !bars
        tile.fence_mbarrier_init
      }
      // Both CTAs' barriers exist before either's multicast signals them.
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      scf.if %leader {
        %t = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !bars -> !tile.mbarrier_token
        tile.tma_load %a[%row, %c0] to %tile[%rank], %bars[%c0] multicast %mask
            : !desc, memref<2x32x32xf32, 3>, !bars
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !bars
      scf.for %e = %tid to %c2048 step %c128 {
        %h = arith.divui %e, %c1024 : index
        %in = arith.remui %e, %c1024 : index
        %r = arith.divui %in, %c32 : index
        %col = arith.remui %in, %c32 : index
        %v = memref.load %tile[%h, %r, %col] : memref<2x32x32xf32, 3>
        %hr = arith.muli %h, %c32 : index
        %gr0 = arith.addi %base, %hr : index
        %gr = arith.addi %gr0, %r : index
        %w = memref.load %g[%gr, %col] : memref<512x32xf32>
        %ne = arith.cmpf une, %v, %w : f32
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      scf.if %leader {
        %old = memref.atomic_rmw addi %one, %seen[%c0] : (i32, memref<1xi32>) -> i32
      }
      // Neither CTA leaves while its peer's copy may still target it.
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
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %ha = memref.alloc() : memref<512x32xf32>
    scf.for %i = %c0 to %c512 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %row = arith.muli %i, %c32 : index
        %lin = arith.addi %row, %j : index
        %li = arith.index_cast %lin : index to i32
        %f = arith.sitofp %li : i32 to f32
        memref.store %f, %ha[%i, %j] : memref<512x32xf32>
      }
    }
    %da = gpu.alloc () : memref<512x32xf32>
    gpu.memcpy %da, %ha : memref<512x32xf32>, memref<512x32xf32>
    %zero = arith.constant 0 : i32
    %hc = memref.alloc() : memref<1xi32>
    memref.store %zero, %hc[%c0] : memref<1xi32>
    %dbad = gpu.alloc () : memref<1xi32>
    %dseen = gpu.alloc () : memref<1xi32>
    gpu.memcpy %dbad, %hc : memref<1xi32>, memref<1xi32>
    gpu.memcpy %dseen, %hc : memref<1xi32>, memref<1xi32>
    %a = tile.tma_create_descriptor %da : memref<512x32xf32> -> !desc
    gpu.launch_func @kernels::@multicast clusters in (%c2, %c1, %c1) blocks in (%c16, %c1, %c1)
        threads in (%c128, %c1, %c1)
        args(%a : !desc, %da : memref<512x32xf32>, %dbad : memref<1xi32>, %dseen : memref<1xi32>)
    gpu.memcpy %hc, %dbad : memref<1xi32>, memref<1xi32>
    %bad = memref.load %hc[%c0] : memref<1xi32>
    gpu.memcpy %hc, %dseen : memref<1xi32>, memref<1xi32>
    %seen = memref.load %hc[%c0] : memref<1xi32>
    vector.print str "multicast mismatches: "
    vector.print %bad : i32 punctuation <no_punctuation>
    vector.print str " in "
    vector.print %seen : i32 punctuation <no_punctuation>
    vector.print str " CTAs\n"
    return
  }
}
