// T-PROTO-14: a staging tile that a TMA store reads must not be written
// again until a bulk wait_group (.read) has retired the store's bulk group.
// An epilogue in the shape tile.warpgroup_tma_store lowers to: thread 0
// waits for the buffer, the block meets, every thread writes its row, a
// proxy fence, the block meets, thread 0 stores the tile and commits. With
// two staging buffers the wait before a chunk's writes may keep one group
// pending; keeping two lets chunk 2 overwrite buffer 0 while chunk 0's store
// may still read it. (An mbarrier wait makes the role protocol run.)
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol -verify-diagnostics

!dc = !tile.tma_desc<memref<?x?xf32>, box = [1, 32], swizzle = none>
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  gpu.func @staging_reused_too_early(%c: !dc, %v: f32) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %bar = tile.mbarrier_alloc : !bars
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %one : !bars
    }
    gpu.barrier
    // Thread 0 arrives, every thread waits for the phase.
    scf.if %first {
      %token = tile.mbarrier_arrive %bar[%c0] : !bars -> !tile.mbarrier_token
    }
    tile.mbarrier_wait_parity %bar[%c0], %false : !bars
    %staging = tile.shared_alloc : memref<2x1x32xf32, 3>
    scf.for %chunk = %c0 to %c4 step %c1 {
      %buffer = arith.remui %chunk, %c2 : index
      scf.if %first {
        tile.bulk_wait_group 2 read
      }
      gpu.barrier
      // expected-error-re @below {{writes stage 0 ({{.*}}) while a bulk store of thread 0 may still read it: 1 newer bulk group(s) were committed after it, so the wait before the write must keep at most 1 pending (T-PROTO-14)}}
      memref.store %v, %staging[%buffer, %c0, %tid] : memref<2x1x32xf32, 3>
      tile.fence_proxy_async shared_cta
      gpu.barrier
      scf.if %first {
        // expected-note @below {{the bulk store}}
        tile.tma_store %staging[%buffer] to %c[%chunk, %c0] : memref<2x1x32xf32, 3>, !dc
        tile.bulk_commit_group
      }
    }
    scf.if %first {
      tile.bulk_wait_group 0
    }
    gpu.return
  }
}

// -----

// The same with the wait keeping one group pending: nothing to report.
!dc = !tile.tma_desc<memref<?x?xf32>, box = [1, 32], swizzle = none>
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  gpu.func @staging_reused_after_its_store(%c: !dc, %v: f32) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %bar = tile.mbarrier_alloc : !bars
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %one : !bars
    }
    gpu.barrier
    scf.if %first {
      %token = tile.mbarrier_arrive %bar[%c0] : !bars -> !tile.mbarrier_token
    }
    tile.mbarrier_wait_parity %bar[%c0], %false : !bars
    %staging = tile.shared_alloc : memref<2x1x32xf32, 3>
    scf.for %chunk = %c0 to %c4 step %c1 {
      %buffer = arith.remui %chunk, %c2 : index
      scf.if %first {
        tile.bulk_wait_group 1 read
      }
      gpu.barrier
      memref.store %v, %staging[%buffer, %c0, %tid] : memref<2x1x32xf32, 3>
      tile.fence_proxy_async shared_cta
      gpu.barrier
      scf.if %first {
        tile.tma_store %staging[%buffer] to %c[%chunk, %c0] : memref<2x1x32xf32, 3>, !dc
        tile.bulk_commit_group
      }
    }
    scf.if %first {
      tile.bulk_wait_group 0
    }
    gpu.return
  }
}
