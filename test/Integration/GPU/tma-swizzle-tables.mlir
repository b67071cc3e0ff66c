// TMA's swizzle patterns (CUtensorMapSwizzle 32B/64B/128B), measured on the
// GPU: a 1024x1024 f32 matrix whose rows all hold 0..1023 is TMA-loaded with
// a box of 16x8 (32B swizzle), 16x16 (64B), 16x32 (128B) and 32x16 (128B,
// narrower than the span: each 64-byte box row is padded to 128 bytes, so the
// tile takes 4096 bytes). The shared buffers are first zeroed with generic
// stores, then each tile's physical bytes are copied out with a bulk copy and
// printed row by row; FileCheck compares them with the expected XOR patterns.
// The same tiles read back through generic (swizzled) loads must give the
// logical box, element (r, c) = c.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 --debug-wait-limit=100000000 | FileCheck %s

// CHECK-LABEL: b32 physical 16x8
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3{{$}}
// CHECK-LABEL: b64 physical 16x16
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-LABEL: b128 physical 16x32
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 20 21 22 23 16 17 18 19 28 29 30 31 24 25 26 27{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 16 17 18 19 20 21 22 23{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3 28 29 30 31 24 25 26 27 20 21 22 23 16 17 18 19{{$}}
// CHECK-NEXT: {{^}}16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}20 21 22 23 16 17 18 19 28 29 30 31 24 25 26 27 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}24 25 26 27 28 29 30 31 16 17 18 19 20 21 22 23 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}28 29 30 31 24 25 26 27 20 21 22 23 16 17 18 19 12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 20 21 22 23 16 17 18 19 28 29 30 31 24 25 26 27{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 24 25 26 27 28 29 30 31 16 17 18 19 20 21 22 23{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3 28 29 30 31 24 25 26 27 20 21 22 23 16 17 18 19{{$}}
// CHECK-NEXT: {{^}}16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}20 21 22 23 16 17 18 19 28 29 30 31 24 25 26 27 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}24 25 26 27 28 29 30 31 16 17 18 19 20 21 22 23 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}28 29 30 31 24 25 26 27 20 21 22 23 16 17 18 19 12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-LABEL: b128_narrow physical 32x32
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK-NEXT: {{^}}0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7{{$}}
// CHECK-NEXT: {{^}}0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 12 13 14 15 8 9 10 11 4 5 6 7 0 1 2 3{{$}}
// CHECK: logical mismatches: 0

!d_b32 = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 8], swizzle = b32>
!d_b64 = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 16], swizzle = b64>
!d_b128 = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
!d_b128_narrow = !tile.tma_desc<memref<1024x1024xf32>, box = [32, 16], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tables(%d_b32: !d_b32, %d_b64: !d_b64, %d_b128: !d_b128, %d_b128_narrow: !d_b128_narrow, %o_b32: memref<128xf32>, %o_b64: memref<256xf32>, %o_b128: memref<512xf32>, %o_b128_narrow: memref<1024xf32>, %bad: memref<1xi32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %one = arith.constant 1 : i32
      %zero = arith.constant 0.0 : f32
      %false = arith.constant false
      %tid = gpu.thread_id x
      %leader = arith.cmpi eq, %tid, %c0 : index
      %bars = tile.mbarrier_alloc : !bars
      %s_b32 = tile.shared_alloc {swizzle = #tile.swizzle<b32>} : memref<16x8xf32, 3>
      %s_b64 = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<16x16xf32, 3>
      %s_b128 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
      %s_b128_narrow = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      scf.if %leader {
        %i0 = arith.constant 0 : index
        tile.mbarrier_init %bars[%i0], %one : !bars
        %i1 = arith.constant 1 : index
        tile.mbarrier_init %bars[%i1], %one : !bars
        %i2 = arith.constant 2 : index
        tile.mbarrier_init %bars[%i2], %one : !bars
        %i3 = arith.constant 3 : index
        tile.mbarrier_init %bars[%i3], %one : !bars
      }
      // Zero every buffer (generic stores go through the swizzle, which
      // permutes each buffer onto itself).
      %rows_b32 = arith.constant 16 : index
      %cols_b32 = arith.constant 8 : index
      %count_b32 = arith.constant 128 : index
      scf.for %e = %tid to %count_b32 step %c128 {
        %row = arith.divui %e, %cols_b32 : index
        %col = arith.remui %e, %cols_b32 : index
        memref.store %zero, %s_b32[%row, %col] : memref<16x8xf32, 3>
      }
      %rows_b64 = arith.constant 16 : index
      %cols_b64 = arith.constant 16 : index
      %count_b64 = arith.constant 256 : index
      scf.for %e = %tid to %count_b64 step %c128 {
        %row = arith.divui %e, %cols_b64 : index
        %col = arith.remui %e, %cols_b64 : index
        memref.store %zero, %s_b64[%row, %col] : memref<16x16xf32, 3>
      }
      %rows_b128 = arith.constant 16 : index
      %cols_b128 = arith.constant 32 : index
      %count_b128 = arith.constant 512 : index
      scf.for %e = %tid to %count_b128 step %c128 {
        %row = arith.divui %e, %cols_b128 : index
        %col = arith.remui %e, %cols_b128 : index
        memref.store %zero, %s_b128[%row, %col] : memref<16x32xf32, 3>
      }
      %rows_b128_narrow = arith.constant 32 : index
      %cols_b128_narrow = arith.constant 32 : index
      %count_b128_narrow = arith.constant 1024 : index
      scf.for %e = %tid to %count_b128_narrow step %c128 {
        %row = arith.divui %e, %cols_b128_narrow : index
        %col = arith.remui %e, %cols_b128_narrow : index
        memref.store %zero, %s_b128_narrow[%row, %col] : memref<32x32xf32, 3>
      }
      // The async proxy (TMA) writes after generic writes: fence first.
      tile.fence_proxy_async shared_cta
      gpu.barrier
      scf.if %leader {
        %j0 = arith.constant 0 : index
        %tx0 = arith.constant 512 : i32
        %t0 = tile.mbarrier_arrive_expect_tx %bars[%j0], %tx0 : !bars -> !tile.mbarrier_token
        tile.tma_load %d_b32[%c0, %c0] to %s_b32, %bars[%j0] : !d_b32, memref<16x8xf32, 3>, !bars
        %j1 = arith.constant 1 : index
        %tx1 = arith.constant 1024 : i32
        %t1 = tile.mbarrier_arrive_expect_tx %bars[%j1], %tx1 : !bars -> !tile.mbarrier_token
        tile.tma_load %d_b64[%c0, %c0] to %s_b64, %bars[%j1] : !d_b64, memref<16x16xf32, 3>, !bars
        %j2 = arith.constant 2 : index
        %tx2 = arith.constant 2048 : i32
        %t2 = tile.mbarrier_arrive_expect_tx %bars[%j2], %tx2 : !bars -> !tile.mbarrier_token
        tile.tma_load %d_b128[%c0, %c0] to %s_b128, %bars[%j2] : !d_b128, memref<16x32xf32, 3>, !bars
        %j3 = arith.constant 3 : index
        %tx3 = arith.constant 2048 : i32
        %t3 = tile.mbarrier_arrive_expect_tx %bars[%j3], %tx3 : !bars -> !tile.mbarrier_token
        tile.tma_load %d_b128_narrow[%c0, %c0] to %s_b128_narrow, %bars[%j3] : !d_b128_narrow, memref<32x32xf32, 3>, !bars
      }
      %w0 = arith.constant 0 : index
      tile.mbarrier_wait_parity %bars[%w0], %false : !bars
      %w1 = arith.constant 1 : index
      tile.mbarrier_wait_parity %bars[%w1], %false : !bars
      %w2 = arith.constant 2 : index
      tile.mbarrier_wait_parity %bars[%w2], %false : !bars
      %w3 = arith.constant 3 : index
      tile.mbarrier_wait_parity %bars[%w3], %false : !bars
      // The physical bytes of each tile.
      scf.if %leader {
        %bytes_b32 = arith.constant 512 : i32
        tile.bulk_copy_shared_to_global %s_b32[%c0, %c0] to %o_b32[%c0], %bytes_b32
            : memref<16x8xf32, 3> to memref<128xf32>
        %bytes_b64 = arith.constant 1024 : i32
        tile.bulk_copy_shared_to_global %s_b64[%c0, %c0] to %o_b64[%c0], %bytes_b64
            : memref<16x16xf32, 3> to memref<256xf32>
        %bytes_b128 = arith.constant 2048 : i32
        tile.bulk_copy_shared_to_global %s_b128[%c0, %c0] to %o_b128[%c0], %bytes_b128
            : memref<16x32xf32, 3> to memref<512xf32>
        %bytes_b128_narrow = arith.constant 4096 : i32
        tile.bulk_copy_shared_to_global %s_b128_narrow[%c0, %c0] to %o_b128_narrow[%c0], %bytes_b128_narrow
            : memref<32x32xf32, 3> to memref<1024xf32>
        tile.bulk_commit_group
        tile.bulk_wait_group 0
      }
      // The logical box through generic loads: element (r, c) is c.
      %boxr_b32 = arith.constant 16 : index
      %boxc_b32 = arith.constant 8 : index
      %boxn_b32 = arith.constant 128 : index
      scf.for %e = %tid to %boxn_b32 step %c128 {
        %row = arith.divui %e, %boxc_b32 : index
        %col = arith.remui %e, %boxc_b32 : index
        %v = memref.load %s_b32[%row, %col] : memref<16x8xf32, 3>
        %ci = arith.index_cast %col : index to i32
        %cf = arith.sitofp %ci : i32 to f32
        %ne = arith.cmpf une, %v, %cf : f32
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      %boxr_b64 = arith.constant 16 : index
      %boxc_b64 = arith.constant 16 : index
      %boxn_b64 = arith.constant 256 : index
      scf.for %e = %tid to %boxn_b64 step %c128 {
        %row = arith.divui %e, %boxc_b64 : index
        %col = arith.remui %e, %boxc_b64 : index
        %v = memref.load %s_b64[%row, %col] : memref<16x16xf32, 3>
        %ci = arith.index_cast %col : index to i32
        %cf = arith.sitofp %ci : i32 to f32
        %ne = arith.cmpf une, %v, %cf : f32
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      %boxr_b128 = arith.constant 16 : index
      %boxc_b128 = arith.constant 32 : index
      %boxn_b128 = arith.constant 512 : index
      scf.for %e = %tid to %boxn_b128 step %c128 {
        %row = arith.divui %e, %boxc_b128 : index
        %col = arith.remui %e, %boxc_b128 : index
        %v = memref.load %s_b128[%row, %col] : memref<16x32xf32, 3>
        %ci = arith.index_cast %col : index to i32
        %cf = arith.sitofp %ci : i32 to f32
        %ne = arith.cmpf une, %v, %cf : f32
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      %boxr_b128_narrow = arith.constant 32 : index
      %boxc_b128_narrow = arith.constant 16 : index
      %boxn_b128_narrow = arith.constant 512 : index
      scf.for %e = %tid to %boxn_b128_narrow step %c128 {
        %row = arith.divui %e, %boxc_b128_narrow : index
        %col = arith.remui %e, %boxc_b128_narrow : index
        %v = memref.load %s_b128_narrow[%row, %col] : memref<32x32xf32, 3>
        %ci = arith.index_cast %col : index to i32
        %cf = arith.sitofp %ci : i32 to f32
        %ne = arith.cmpf une, %v, %cf : f32
        scf.if %ne {
          %old = memref.atomic_rmw addi %one, %bad[%c0] : (i32, memref<1xi32>) -> i32
        }
      }
      gpu.return
    }
  }

  func.func private @printTable(%t: memref<?xf32>, %rows: index, %cols: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %r = %c0 to %rows step %c1 {
      scf.for %c = %c0 to %cols step %c1 {
        %first = arith.cmpi eq, %c, %c0 : index
        scf.if %first {
        } else {
          vector.print str " "
        }
        %base = arith.muli %r, %cols : index
        %i = arith.addi %base, %c : index
        %v = memref.load %t[%i] : memref<?xf32>
        %vi = arith.fptosi %v : f32 to i32
        vector.print %vi : i32 punctuation <no_punctuation>
      }
      vector.print punctuation <newline>
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = arith.constant 1024 : index
    %a = memref.alloc() : memref<1024x1024xf32>
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c0 to %n step %c1 {
        %ji = arith.index_cast %j : index to i32
        %f = arith.sitofp %ji : i32 to f32
        memref.store %f, %a[%i, %j] : memref<1024x1024xf32>
      }
    }
    %da = gpu.alloc () : memref<1024x1024xf32>
    gpu.memcpy %da, %a : memref<1024x1024xf32>, memref<1024x1024xf32>
    %zero = arith.constant 0 : i32
    %hbad = memref.alloc() : memref<1xi32>
    memref.store %zero, %hbad[%c0] : memref<1xi32>
    %dbad = gpu.alloc () : memref<1xi32>
    gpu.memcpy %dbad, %hbad : memref<1xi32>, memref<1xi32>
    %d_b32 = tile.tma_create_descriptor %da : memref<1024x1024xf32> -> !d_b32
    %do_b32 = gpu.alloc () : memref<128xf32>
    %d_b64 = tile.tma_create_descriptor %da : memref<1024x1024xf32> -> !d_b64
    %do_b64 = gpu.alloc () : memref<256xf32>
    %d_b128 = tile.tma_create_descriptor %da : memref<1024x1024xf32> -> !d_b128
    %do_b128 = gpu.alloc () : memref<512xf32>
    %d_b128_narrow = tile.tma_create_descriptor %da : memref<1024x1024xf32> -> !d_b128_narrow
    %do_b128_narrow = gpu.alloc () : memref<1024xf32>
    gpu.launch_func @kernels::@tables blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%d_b32 : !d_b32, %d_b64 : !d_b64, %d_b128 : !d_b128, %d_b128_narrow : !d_b128_narrow, %do_b32 : memref<128xf32>, %do_b64 : memref<256xf32>, %do_b128 : memref<512xf32>, %do_b128_narrow : memref<1024xf32>, %dbad : memref<1xi32>)
    %h_b32 = memref.alloc() : memref<128xf32>
    gpu.memcpy %h_b32, %do_b32 : memref<128xf32>, memref<128xf32>
    %dyn_b32 = memref.cast %h_b32 : memref<128xf32> to memref<?xf32>
    %pr_b32 = arith.constant 16 : index
    %pc_b32 = arith.constant 8 : index
    vector.print str "b32 physical 16x8\n"
    func.call @printTable(%dyn_b32, %pr_b32, %pc_b32) : (memref<?xf32>, index, index) -> ()
    %h_b64 = memref.alloc() : memref<256xf32>
    gpu.memcpy %h_b64, %do_b64 : memref<256xf32>, memref<256xf32>
    %dyn_b64 = memref.cast %h_b64 : memref<256xf32> to memref<?xf32>
    %pr_b64 = arith.constant 16 : index
    %pc_b64 = arith.constant 16 : index
    vector.print str "b64 physical 16x16\n"
    func.call @printTable(%dyn_b64, %pr_b64, %pc_b64) : (memref<?xf32>, index, index) -> ()
    %h_b128 = memref.alloc() : memref<512xf32>
    gpu.memcpy %h_b128, %do_b128 : memref<512xf32>, memref<512xf32>
    %dyn_b128 = memref.cast %h_b128 : memref<512xf32> to memref<?xf32>
    %pr_b128 = arith.constant 16 : index
    %pc_b128 = arith.constant 32 : index
    vector.print str "b128 physical 16x32\n"
    func.call @printTable(%dyn_b128, %pr_b128, %pc_b128) : (memref<?xf32>, index, index) -> ()
    %h_b128_narrow = memref.alloc() : memref<1024xf32>
    gpu.memcpy %h_b128_narrow, %do_b128_narrow : memref<1024xf32>, memref<1024xf32>
    %dyn_b128_narrow = memref.cast %h_b128_narrow : memref<1024xf32> to memref<?xf32>
    %pr_b128_narrow = arith.constant 32 : index
    %pc_b128_narrow = arith.constant 32 : index
    vector.print str "b128_narrow physical 32x32\n"
    func.call @printTable(%dyn_b128_narrow, %pr_b128_narrow, %pc_b128_narrow) : (memref<?xf32>, index, index) -> ()
    gpu.memcpy %hbad, %dbad : memref<1xi32>, memref<1xi32>
    %bad = memref.load %hbad[%c0] : memref<1xi32>
    vector.print str "logical mismatches: "
    vector.print %bad : i32
    return
  }
}
