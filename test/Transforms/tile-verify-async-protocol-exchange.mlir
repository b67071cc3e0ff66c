// Shared buffers that generic stores write and wgmmas read, exchanged
// between roles (T-PROTO-15), in the role protocol.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-verify-async-protocol

// One warpgroup's accumulators handed to the other's wgmma through shared
// memory (T-PROTO-15): ordered by a fence and named barrier 9 (bar.sync of
// both warpgroups, 256 threads), clean.
gpu.module @kernels {
  gpu.func @exchange(%acc: vector<32xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %id = arith.constant 9 : i32
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xf16, 3>
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %ready = tile.mbarrier_alloc : !tile.mbarrier<count = 1>
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %producers = arith.constant 128 : i32
    %false = arith.constant false
    scf.if %first {
      tile.mbarrier_init %ready[%c0], %producers : !tile.mbarrier<count = 1>
    }
    gpu.barrier
    tile.warp_specialize producer(registers = 24) {
      // Before the stores: the wait below orders nothing of them.
      %tok = tile.mbarrier_arrive %ready[%c0] : !tile.mbarrier<count = 1> -> !tile.mbarrier_token
      tile.warpgroup_mma_store %acc, %a[%c0, %c0, %c0] {shape = array<i64: 64, 64>}
          : vector<32xf32>, memref<1x64x64xf16, 3>
      tile.fence_proxy_async shared_cta
      tile.named_barrier_sync %id, 256
    } consumers(1, registers = 240) {
    ^bb0(%wg: index):
      tile.mbarrier_wait_parity %ready[%c0], %false : !tile.mbarrier<count = 1>
      tile.named_barrier_sync %id, 256
      %d = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c0, %c0], %zero
          {shape = array<i64: 64, 64, 64>, wait = 0 : i32, transpose_a}
          : memref<1x64x64xf16, 3>, memref<64x64xf16, 3>, vector<32xf32>
    }
    gpu.return
  }
}

// -----

// Without the named barrier, the wgmma may read the tile before the stores
// (the mbarrier's arrivals come before them).
gpu.module @kernels {
  gpu.func @exchange_unordered(%acc: vector<32xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xf16, 3>
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %ready = tile.mbarrier_alloc : !tile.mbarrier<count = 1>
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %producers = arith.constant 128 : i32
    %false = arith.constant false
    scf.if %first {
      tile.mbarrier_init %ready[%c0], %producers : !tile.mbarrier<count = 1>
    }
    gpu.barrier
    tile.warp_specialize producer(registers = 24) {
      // Before the stores: the wait below orders nothing of them.
      %tok = tile.mbarrier_arrive %ready[%c0] : !tile.mbarrier<count = 1> -> !tile.mbarrier_token
      // expected-note @below {{the write}}
      tile.warpgroup_mma_store %acc, %a[%c0, %c0, %c0] {shape = array<i64: 64, 64>}
          : vector<32xf32>, memref<1x64x64xf16, 3>
      tile.fence_proxy_async shared_cta
    } consumers(1, registers = 240) {
    ^bb0(%wg: index):
      tile.mbarrier_wait_parity %ready[%c0], %false : !tile.mbarrier<count = 1>
      // expected-error @below {{reads stage 0 (the 128 threads of thread 128's role) that thread 0 wrote with nothing ordering the write before the read: a barrier that both pass between them, after a fence.proxy.async for a wgmma's read (T-PROTO-15)}}
      %d = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c0, %c0], %zero
          {shape = array<i64: 64, 64, 64>, wait = 0 : i32, transpose_a}
          : memref<1x64x64xf16, 3>, memref<64x64xf16, 3>, vector<32xf32>
    }
    gpu.return
  }
}

// -----

// A named barrier the other warpgroup never reaches: the consumers hang.
gpu.module @kernels {
  gpu.func @exchange_hangs(%acc: vector<32xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %id = arith.constant 9 : i32
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xf16, 3>
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %ready = tile.mbarrier_alloc : !tile.mbarrier<count = 1>
    %tid = gpu.thread_id x
    %first = arith.cmpi eq, %tid, %c0 : index
    %producers = arith.constant 128 : i32
    %false = arith.constant false
    scf.if %first {
      tile.mbarrier_init %ready[%c0], %producers : !tile.mbarrier<count = 1>
    }
    gpu.barrier
    tile.warp_specialize producer(registers = 24) {
      %tok = tile.mbarrier_arrive %ready[%c0] : !tile.mbarrier<count = 1> -> !tile.mbarrier_token
      tile.warpgroup_mma_store %acc, %a[%c0, %c0, %c0] {shape = array<i64: 64, 64>}
          : vector<32xf32>, memref<1x64x64xf16, 3>
      tile.fence_proxy_async shared_cta
    } consumers(1, registers = 240) {
    ^bb0(%wg: index):
      tile.mbarrier_wait_parity %ready[%c0], %false : !tile.mbarrier<count = 1>
      // expected-error @below {{waits at named barrier 9 (the 128 threads of thread 128's role) for 256 threads, of which 128 arrive: every role is blocked or done, a hang (T-PROTO-11)}}
      tile.named_barrier_sync %id, 256
      %d = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c0, %c0], %zero
          {shape = array<i64: 64, 64, 64>, wait = 0 : i32, transpose_a}
          : memref<1x64x64xf16, 3>, memref<64x64xf16, 3>, vector<32xf32>
    }
    gpu.return
  }
}
