// Reads of a ring that bulk copies fill row by row, through a
// memref.reinterpret_cast of it (a zero-stride view of one row, as the
// attention backward reads a query tile's nlse): the role protocol takes
// the row of the view's offset as the stage read (T-PROTO-12).
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol -verify-diagnostics

// Thread 0 fills a 2-row ring 4 times, every thread waits for its row, reads
// it through the view and releases it on an empty barrier: silent.
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @rows_through_views(%g: memref<?xf32>, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %all = arith.constant 128 : i32
    %bytes = arith.constant 256 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %all : !bars
      }
      scf.for %s = %c0 to %c2 step %c1 {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %at = arith.muli %s, %c64 : index
        tile.bulk_copy_global_to_shared %g[%at] to %ring[%s, %c0], %bytes, %full[%s] : memref<?xf32> to memref<2x64xf32, 3>, !bars
      }
    }
    gpu.barrier
    %col = arith.remui %tid, %c64 : index
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.remui %k, %c2 : index
      %round = arith.divui %k, %c2 : index
      %bit = arith.remui %round, %c2 : index
      %ph = arith.index_cast %bit : index to i1
      tile.mbarrier_wait_parity %full[%s], %ph : !bars
      // Row s as the columns of a 64 x 64 view with a zero row stride.
      %at = arith.muli %s, %c64 : index
      %view = memref.reinterpret_cast %ring to offset: [%at], sizes: [64, 64], strides: [0, 1]
          : memref<2x64xf32, 3> to memref<64x64xf32, strided<[0, 1], offset: ?>, 3>
      %v = memref.load %view[%c0, %col] : memref<64x64xf32, strided<[0, 1], offset: ?>, 3>
      %a = arith.addf %acc, %v : f32
      %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      %next = arith.addi %k, %c2 : index
      %more = arith.cmpi ult, %next, %c4 : index
      %refill = arith.andi %first, %more : i1
      scf.if %refill {
        tile.mbarrier_wait_parity %empty[%s], %ph : !bars
        %etok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %nat = arith.muli %next, %c64 : index
        tile.bulk_copy_global_to_shared %g[%nat] to %ring[%s, %c0], %bytes, %full[%s] : memref<?xf32> to memref<2x64xf32, 3>, !bars
      }
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// The view always at row 0 (offset 0 x 64): at the second step thread 0
// reads row 0 again, after refilling it for the third step and before
// waiting for that copy.
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @rows_of_stage_zero(%g: memref<?xf32>, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %all = arith.constant 128 : i32
    %bytes = arith.constant 256 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %all : !bars
      }
      scf.for %s = %c0 to %c2 step %c1 {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %at = arith.muli %s, %c64 : index
        tile.bulk_copy_global_to_shared %g[%at] to %ring[%s, %c0], %bytes, %full[%s] : memref<?xf32> to memref<2x64xf32, 3>, !bars
      }
    }
    gpu.barrier
    %col = arith.remui %tid, %c64 : index
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.remui %k, %c2 : index
      %round = arith.divui %k, %c2 : index
      %bit = arith.remui %round, %c2 : index
      %ph = arith.index_cast %bit : index to i1
      tile.mbarrier_wait_parity %full[%s], %ph : !bars
      // Row s as the columns of a 64 x 64 view with a zero row stride.
      %at = arith.muli %c0, %c64 : index
      %view = memref.reinterpret_cast %ring to offset: [%at], sizes: [64, 64], strides: [0, 1]
          : memref<2x64xf32, 3> to memref<64x64xf32, strided<[0, 1], offset: ?>, 3>
      // expected-error @below {{reads stage (0, 0) (thread 0) written by a copy that completes phase 1 of barrier 0, but this role's last wait on it saw phase 0: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
      %v = memref.load %view[%c0, %col] : memref<64x64xf32, strided<[0, 1], offset: ?>, 3>
      %a = arith.addf %acc, %v : f32
      %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      %next = arith.addi %k, %c2 : index
      %more = arith.cmpi ult, %next, %c4 : index
      %refill = arith.andi %first, %more : i1
      scf.if %refill {
        tile.mbarrier_wait_parity %empty[%s], %ph : !bars
        %etok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %nat = arith.muli %next, %c64 : index
        // expected-note @below {{the copy}}
        tile.bulk_copy_global_to_shared %g[%nat] to %ring[%s, %c0], %bytes, %full[%s] : memref<?xf32> to memref<2x64xf32, 3>, !bars
      }
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}
