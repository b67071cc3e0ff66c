// Dynamic shared memory from tile.shared_alloc: a 4-stage 128B-swizzled ring
// of 64x32 f32 tiles (32 KB, 1024-byte aligned) and a 32 KB scratch buffer
// live in 64 KB of dynamic shared memory (beyond the 48 KB static limit,
// so the runtime opts the kernel in), after the static mbarriers. Each block
// TMA-loads four tiles into the ring, reads them back through the swizzle
// (which only matches what TMA wrote if the ring is 1024-byte aligned),
// stages the values through the scratch buffer and compares with global
// memory.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: dynamic shared mismatches: 0

!desc = !tile.tma_desc<memref<512x32xf32>, box = [64, 32], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @dynamic(%a: !desc, %g: memref<512x32xf32>, %bad: memref<1xi32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %c2048 = arith.constant 2048 : index
      %c8192 = arith.constant 8192 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 8192 : i32
      %false = arith.constant false
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x64x32xf32, 3>
      %scratch = tile.shared_alloc dynamic : memref<8192xf32, 3>
      %bars = tile.mbarrier_alloc : !bars
      %leader = arith.cmpi eq, %tid, %c0 : index
      %row0 = arith.muli %bx, %c256 : index
      scf.if %leader {
        scf.for %s = %c0 to %c4 step %c1 {
          tile.mbarrier_init %bars[%s], %one : !bars
        }
      }
      gpu.barrier
      scf.if %leader {
        scf.for %s = %c0 to %c4 step %c1 {
          %r = arith.muli %s, %c64 : index
          %row = arith.addi %row0, %r : index
          %t = tile.mbarrier_arrive_expect_tx %bars[%s], %bytes : !bars -> !tile.mbarrier_token
          tile.tma_load %a[%row, %c0] to %ring[%s], %bars[%s] : !desc, memref<4x64x32xf32, 3>, !bars
        }
      }
      scf.for %s = %c0 to %c4 step %c1 {
        tile.mbarrier_wait_parity %bars[%s], %false : !bars
      }
      scf.for %e = %tid to %c8192 step %c256 {
        %s = arith.divui %e, %c2048 : index
        %in = arith.remui %e, %c2048 : index
        %r = arith.divui %in, %c32 : index
        %col = arith.remui %in, %c32 : index
        %v = memref.load %ring[%s, %r, %col] : memref<4x64x32xf32, 3>
        memref.store %v, %scratch[%e] : memref<8192xf32, 3>
      }
      gpu.barrier
      scf.for %e = %tid to %c8192 step %c256 {
        %v = memref.load %scratch[%e] : memref<8192xf32, 3>
        %lr = arith.divui %e, %c32 : index
        %col = arith.remui %e, %c32 : index
        %gr = arith.addi %row0, %lr : index
        %w = memref.load %g[%gr, %col] : memref<512x32xf32>
        %ne = arith.cmpf une, %v, %w : f32
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c512 = arith.constant 512 : index
    %smem = arith.constant 65536 : i32
    %h = memref.alloc() : memref<512x32xf32>
    scf.for %i = %c0 to %c512 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %row = arith.muli %i, %c32 : index
        %lin = arith.addi %row, %j : index
        %li = arith.index_cast %lin : index to i32
        %f = arith.sitofp %li : i32 to f32
        memref.store %f, %h[%i, %j] : memref<512x32xf32>
      }
    }
    %dg = gpu.alloc () : memref<512x32xf32>
    gpu.memcpy %dg, %h : memref<512x32xf32>, memref<512x32xf32>
    %zero = arith.constant 0 : i32
    %hc = memref.alloc() : memref<1xi32>
    memref.store %zero, %hc[%c0] : memref<1xi32>
    %dbad = gpu.alloc () : memref<1xi32>
    gpu.memcpy %dbad, %hc : memref<1xi32>, memref<1xi32>
    %a = tile.tma_create_descriptor %dg : memref<512x32xf32> -> !desc
    gpu.launch_func @kernels::@dynamic blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
        dynamic_shared_memory_size %smem
        args(%a : !desc, %dg : memref<512x32xf32>, %dbad : memref<1xi32>)
    gpu.memcpy %hc, %dbad : memref<1xi32>, memref<1xi32>
    %bad = memref.load %hc[%c0] : memref<1xi32>
    vector.print str "dynamic shared mismatches: "
    vector.print %bad : i32
    return
  }
}
