// TMA tensor copies in the protocol checker: a read of the tile before the
// completing mbarrier wait (T-PROTO-1), expect_tx byte counts that differ
// from the box bytes (T-PROTO-9), and a TMA store or reduce, or a wgmma, of
// generic writes without a proxy fence (T-PROTO-10).
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-verify-async-protocol

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @kernels {
  gpu.func @read_before_wait(%d: !d, %ph: i1) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 2048 : i32
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    %b = tile.mbarrier_alloc : !tile.mbarrier
    tile.mbarrier_init %b[%c0], %one : !tile.mbarrier
    %t = tile.mbarrier_arrive_expect_tx %b[%c0], %n : !tile.mbarrier -> !tile.mbarrier_token
    // expected-note @below {{copy issued here}}
    tile.tma_load %d[%c0, %c0] to %s, %b[%c0] : !d, memref<16x32xf32, 3>, !tile.mbarrier
    // expected-error @below {{reads shared memory that a bulk copy may still be writing: wait on the mbarrier it completes first (T-PROTO-1)}}
    %v = memref.load %s[%c0, %c0] : memref<16x32xf32, 3>
    tile.mbarrier_wait_parity %b[%c0], %ph : !tile.mbarrier
    %w = memref.load %s[%c0, %c0] : memref<16x32xf32, 3>
    gpu.return
  }
}

// -----

// The box is 16x32 f32 = 2048 bytes; expecting the 4096 bytes of the
// padded tile (or any other count) never completes the phase.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @kernels {
  gpu.func @tx_mismatch(%d: !d) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %false = arith.constant false
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    %tid = gpu.thread_id x
    %b = tile.mbarrier_alloc : !tile.mbarrier
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      tile.mbarrier_init %b[%c0], %one : !tile.mbarrier
      // expected-error @below {{barrier 0 expects 4096 transaction bytes per phase, but the copies and complete_tx that signal it deliver 2048: the phase never completes (T-PROTO-9)}}
      %t = tile.mbarrier_arrive_expect_tx %b[%c0], %n : !tile.mbarrier -> !tile.mbarrier_token
      // expected-note @below {{bytes delivered here}}
      tile.tma_load %d[%c0, %c0] to %s, %b[%c0] : !d, memref<16x32xf32, 3>, !tile.mbarrier
    }
    tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier
    gpu.return
  }
}

// -----

// Matching counts, two boxes on one barrier: silent.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @kernels {
  gpu.func @tx_match(%d: !d) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %n = arith.constant 4096 : i32
    %false = arith.constant false
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x16x32xf32, 3>
    %tid = gpu.thread_id x
    %b = tile.mbarrier_alloc : !tile.mbarrier
    %leader = arith.cmpi eq, %tid, %c0 : index
    scf.if %leader {
      tile.mbarrier_init %b[%c0], %one : !tile.mbarrier
      %t = tile.mbarrier_arrive_expect_tx %b[%c0], %n : !tile.mbarrier -> !tile.mbarrier_token
      tile.tma_load %d[%c0, %c0] to %s[%c0], %b[%c0] : !d, memref<2x16x32xf32, 3>, !tile.mbarrier
      tile.tma_load %d[%c16, %c0] to %s[%c1], %b[%c0] : !d, memref<2x16x32xf32, 3>, !tile.mbarrier
    }
    tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @kernels {
  gpu.func @store_without_fence(%d: !d, %v: f32) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    // expected-note @below {{generic store here}}
    memref.store %v, %s[%c0, %c0] : memref<16x32xf32, 3>
    gpu.barrier
    // expected-error @below {{reads shared memory written by generic stores without tile.fence_proxy_async shared_cta in between: the async proxy may read stale data (T-PROTO-10)}}
    tile.tma_store %s to %d[%c0, %c0] : memref<16x32xf32, 3>, !d
    tile.bulk_commit_group
    tile.bulk_wait_group 0
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32]>
gpu.module @kernels {
  gpu.func @reduce_without_fence(%d: !d, %v: f32) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<16x32xf32, 3>
    // expected-note @below {{generic store here}}
    memref.store %v, %s[%c0, %c0] : memref<16x32xf32, 3>
    // expected-error @below {{(T-PROTO-10)}}
    tile.tma_reduce add %s to %d[%c0, %c0] : memref<16x32xf32, 3>, !d
    gpu.return
  }
}

// -----

// With the fence, silent.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32]>
gpu.module @kernels {
  gpu.func @fenced(%d: !d, %v: f32) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<16x32xf32, 3>
    memref.store %v, %s[%c0, %c0] : memref<16x32xf32, 3>
    tile.fence_proxy_async shared_cta
    tile.tma_store %s to %d[%c0, %c0] : memref<16x32xf32, 3>, !d
    gpu.return
  }
}

// -----

// wgmma reads its shared operands through the async proxy too: accumulators
// stored into a tile that a wgmma then reads (the attention backward's dS^T)
// need the proxy fence between, at tile level and as lowered descriptors.
gpu.module @kernels {
  gpu.func @wgmma_operand_without_fence(%acc: vector<32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xf16, 3>
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    // expected-note @below {{generic store here}}
    tile.warpgroup_mma_store %acc, %a[%c0, %c0, %c0] {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<1x64x64xf16, 3>
    // expected-error @below {{reads shared memory written by generic stores without tile.fence_proxy_async shared_cta in between: the async proxy may read stale data (T-PROTO-10)}}
    %d = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c0, %c0], %zero
        {shape = array<i64: 64, 64, 64>, wait = 0 : i32, transpose_a}
        : memref<1x64x64xf16, 3>, memref<64x64xf16, 3>, vector<32xf32>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @wgmma_operand_fenced(%acc: vector<32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xf16, 3>
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    tile.warpgroup_mma_store %acc, %a[%c0, %c0, %c0] {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<1x64x64xf16, 3>
    tile.fence_proxy_async shared_cta
    %d = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c0, %c0], %zero
        {shape = array<i64: 64, 64, 64>, wait = 0 : i32, transpose_a}
        : memref<1x64x64xf16, 3>, memref<64x64xf16, 3>, vector<32xf32>
    gpu.return
  }
}
