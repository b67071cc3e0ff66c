// A TMA round trip: each block TMA-loads a 32x32 f32 tile with 128B
// swizzle, adds 1 to every element through generic (swizzled) loads and
// stores, fences the generic writes against the async proxy, and TMA-stores
// the tile to B and TMA-reduces (add) it into C, which starts as a copy of A.
// The host checks B = A + 1 and C = 2A + 1 over the whole 256x128 matrix.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: store mismatches: 0
// CHECK: reduce mismatches: 0

!desc = !tile.tma_desc<memref<256x128xf32>, box = [32, 32], swizzle = b128>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @round_trip(%a: !desc, %b: !desc, %c: !desc) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 4096 : i32
      %false = arith.constant false
      %fone = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %row0 = arith.muli %by, %c32 : index
      %col0 = arith.muli %bx, %c32 : index
      %tile = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier
        tile.tma_prefetch_descriptor %a : !desc
      }
      gpu.barrier
      scf.if %leader {
        %t = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !tile.mbarrier -> !tile.mbarrier_token
        tile.tma_load %a[%row0, %col0] to %tile, %bars[%c0] : !desc, memref<32x32xf32, 3>, !tile.mbarrier
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !tile.mbarrier
      scf.for %e = %tid to %c1024 step %c128 {
        %r = arith.divui %e, %c32 : index
        %col = arith.remui %e, %c32 : index
        %v = memref.load %tile[%r, %col] : memref<32x32xf32, 3>
        %w = arith.addf %v, %fone : f32
        memref.store %w, %tile[%r, %col] : memref<32x32xf32, 3>
      }
      tile.fence_proxy_async shared_cta
      gpu.barrier
      scf.if %leader {
        tile.tma_store %tile to %b[%row0, %col0] : memref<32x32xf32, 3>, !desc
        tile.tma_reduce add %tile to %c[%row0, %col0] : memref<32x32xf32, 3>, !desc
        tile.bulk_commit_group
        tile.bulk_wait_group 0
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c4096 = arith.constant 4096 : index
    %ha = memref.alloc() : memref<256x128xf32>
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c128 step %c1 {
        %row = arith.muli %i, %c128 : index
        %lin = arith.addi %row, %j : index
        %m = arith.remui %lin, %c4096 : index
        %mi = arith.index_cast %m : index to i32
        %f = arith.sitofp %mi : i32 to f32
        memref.store %f, %ha[%i, %j] : memref<256x128xf32>
      }
    }
    %da = gpu.alloc () : memref<256x128xf32>
    %db = gpu.alloc () : memref<256x128xf32>
    %dc = gpu.alloc () : memref<256x128xf32>
    gpu.memcpy %da, %ha : memref<256x128xf32>, memref<256x128xf32>
    gpu.memcpy %dc, %ha : memref<256x128xf32>, memref<256x128xf32>
    %a = tile.tma_create_descriptor %da : memref<256x128xf32> -> !desc
    %b = tile.tma_create_descriptor %db : memref<256x128xf32> -> !desc
    %c = tile.tma_create_descriptor %dc : memref<256x128xf32> -> !desc
    gpu.launch_func @kernels::@round_trip blocks in (%c4, %c8, %c1) threads in (%c128, %c1, %c1)
        args(%a : !desc, %b : !desc, %c : !desc)
    %hb = memref.alloc() : memref<256x128xf32>
    %hc = memref.alloc() : memref<256x128xf32>
    gpu.memcpy %hb, %db : memref<256x128xf32>, memref<256x128xf32>
    gpu.memcpy %hc, %dc : memref<256x128xf32>, memref<256x128xf32>
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %fone = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %bad:2 = scf.for %i = %c0 to %c256 step %c1 iter_args(%sb = %z, %sc = %z) -> (i64, i64) {
      %row:2 = scf.for %j = %c0 to %c128 step %c1 iter_args(%xb = %sb, %xc = %sc) -> (i64, i64) {
        %x = memref.load %ha[%i, %j] : memref<256x128xf32>
        %x1 = arith.addf %x, %fone : f32
        %x2 = arith.mulf %x, %two : f32
        %x21 = arith.addf %x2, %fone : f32
        %y = memref.load %hb[%i, %j] : memref<256x128xf32>
        %w = memref.load %hc[%i, %j] : memref<256x128xf32>
        %neb = arith.cmpf une, %x1, %y : f32
        %nec = arith.cmpf une, %x21, %w : f32
        %ib = arith.select %neb, %o, %z : i64
        %ic = arith.select %nec, %o, %z : i64
        %nb = arith.addi %xb, %ib : i64
        %nc = arith.addi %xc, %ic : i64
        scf.yield %nb, %nc : i64, i64
      }
      scf.yield %row#0, %row#1 : i64, i64
    }
    vector.print str "store mismatches: "
    vector.print %bad#0 : i64
    vector.print str "reduce mismatches: "
    vector.print %bad#1 : i64
    return
  }
}
