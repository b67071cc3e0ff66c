// T-PIPE-1 / T-PIPE-2: more loops marked for pipelining that cannot be
// pipelined: a stage count that is not an integer, cp.async copies without
// their commit, and a TMA barrier that is not defined outside the loop.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-pipeline-async-copies

// T-PIPE-1: the stage count is an integer attribute.
gpu.module @k {
  gpu.func @stages_not_integer(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @+1 {{'scf.for' op tile.pipeline_stages must be an integer (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%i] : memref<512xf32, 3>
    } {tile.pipeline_stages = "3"}
    gpu.return
  }
}

// -----

// T-PIPE-1: the cp.async copies are followed by their commit.
gpu.module @k {
  gpu.func @no_commit(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @+1 {{cannot be pipelined: expected a tile.async_commit_group after the copies (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

// T-PIPE-2: the copies' barrier is defined outside the loop (here it is
// carried by the loop).
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
gpu.module @k {
  gpu.func @barrier_in_loop(%d: !desc, %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %false = arith.constant false
    %bar0 = tile.mbarrier_alloc : !tile.mbarrier
    %buf = tile.shared_alloc : memref<32x64xf32, 3>
    // expected-error @+1 {{cannot be pipelined: the copies' barrier must be defined outside the loop (T-PIPE-2)}}
    %r = scf.for %k = %c0 to %c8 step %c1 iter_args(%bar = %bar0) -> (!tile.mbarrier) {
      tile.tma_copy %d[%k, %c0] to %buf, %bar[%c0] : !desc, memref<32x64xf32, 3>, !tile.mbarrier
      tile.mbarrier_wait_parity %bar[%c0], %false : !tile.mbarrier
      %v = memref.load %buf[%i, %i] : memref<32x64xf32, 3>
      scf.yield %bar : !tile.mbarrier
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}
