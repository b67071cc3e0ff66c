// Bulk copies in the protocol checker: reads before the completing mbarrier
// wait (T-PROTO-1), expect_tx bytes against the bytes the copies deliver
// (T-PROTO-9), and generic stores read by the async proxy without a proxy
// fence (T-PROTO-10).
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-verify-async-protocol

func.func @read_before_wait(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %ph: i1) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %n = arith.constant 4096 : i32
  %b = tile.mbarrier_alloc : !tile.mbarrier
  tile.mbarrier_init %b[%c0], %one : !tile.mbarrier
  %t = tile.mbarrier_arrive_expect_tx %b[%c0], %n : !tile.mbarrier -> !tile.mbarrier_token
  // expected-note @below {{copy issued here}}
  tile.bulk_copy_global_to_shared %g[%c0] to %s[%c0], %n, %b[%c0] : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
  // expected-error @below {{reads shared memory that a bulk copy may still be writing: wait on the mbarrier it completes first (T-PROTO-1)}}
  %v = memref.load %s[%c0] : memref<1024xf32, 3>
  tile.mbarrier_wait_parity %b[%c0], %ph : !tile.mbarrier
  %w = memref.load %s[%c0] : memref<1024xf32, 3>
  return
}

// -----

// T-PROTO-9 in a kernel of known block size: the leader expects 2048 bytes,
// its copy brings 4096.
gpu.module @kernels {
  gpu.func @tx_mismatch(%g: memref<4096xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %half = arith.constant 2048 : i32
    %n = arith.constant 4096 : i32
    %false = arith.constant false
    %s = memref.alloca() : memref<1024xf32, 3>
    %tid = gpu.thread_id x
    %b = tile.mbarrier_alloc : !tile.mbarrier
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      tile.mbarrier_init %b[%c0], %one : !tile.mbarrier
      // expected-error @below {{barrier 0 expects 2048 transaction bytes per phase, but the copies and complete_tx that signal it deliver 4096: the transaction count underflows (T-PROTO-9)}}
      %t = tile.mbarrier_arrive_expect_tx %b[%c0], %half : !tile.mbarrier -> !tile.mbarrier_token
      // expected-note @below {{bytes delivered here}}
      tile.bulk_copy_global_to_shared %g[%c0] to %s[%c0], %n, %b[%c0] : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
    }
    tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier
    gpu.return
  }
}

// -----

// Matching bytes: silent.
gpu.module @kernels {
  gpu.func @tx_match(%g: memref<4096xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %false = arith.constant false
    %s = memref.alloca() : memref<1024xf32, 3>
    %tid = gpu.thread_id x
    %b = tile.mbarrier_alloc : !tile.mbarrier
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      tile.mbarrier_init %b[%c0], %one : !tile.mbarrier
      %t = tile.mbarrier_arrive_expect_tx %b[%c0], %n : !tile.mbarrier -> !tile.mbarrier_token
      tile.bulk_copy_global_to_shared %g[%c0] to %s[%c0], %n, %b[%c0] : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
    }
    tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier
    gpu.return
  }
}

// -----

// T-PROTO-10: generic stores, then an async-proxy read, no proxy fence.
func.func @missing_proxy_fence(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %v: f32) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 4096 : i32
  // expected-note @below {{generic store here}}
  memref.store %v, %s[%c0] : memref<1024xf32, 3>
  gpu.barrier
  // expected-error @below {{reads shared memory written by generic stores without tile.fence_proxy_async shared_cta in between: the async proxy may read stale data (T-PROTO-10)}}
  tile.bulk_copy_shared_to_global %s[%c0] to %g[%c0], %n : memref<1024xf32, 3> to memref<4096xf32>
  tile.bulk_commit_group
  tile.bulk_wait_group 0
  return
}

// -----

func.func @fenced(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %v: f32) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 4096 : i32
  memref.store %v, %s[%c0] : memref<1024xf32, 3>
  tile.fence_proxy_async shared_cta
  gpu.barrier
  tile.bulk_copy_shared_to_global %s[%c0] to %g[%c0], %n : memref<1024xf32, 3> to memref<4096xf32>
  tile.bulk_commit_group
  tile.bulk_wait_group 0
  return
}
