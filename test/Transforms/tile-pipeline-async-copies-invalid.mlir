// T-PIPE-1 / T-PIPE-2: loops marked for pipelining that cannot be pipelined:
// cp.async loops without the copy / commit / wait / barrier / compute shape,
// stage counts that are not integers of at least 2, buffers the stages
// cannot take, and TMA rings whose copies or barrier the pipeliner cannot
// follow.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-pipeline-async-copies

gpu.module @k {
  gpu.func @no_wait(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{cannot be pipelined: expected tile.async_wait_group 0 after the commit (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      gpu.barrier
      %v = memref.load %buf[%i] : memref<512xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @buffer_escapes(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{cannot be pipelined: its buffer is also used outside the loop (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%i] : memref<512xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    %w = memref.load %buf[%i] : memref<512xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @side_effect(%src: memref<4096xf32>, %out: memref<4xf32>, %i: index, %f: f32) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{cannot be pipelined: the producer part has 'memref.store', which has side effects (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      memref.store %f, %out[%c0] : memref<4xf32>
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%i] : memref<512xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @one_stage(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{needs at least 2 pipeline stages, got 1 (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%i] : memref<512xf32, 3>
    } {tile.pipeline_stages = 1 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @unaligned_stages(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<20xf32, 3>
    // expected-error @below {{cannot be pipelined: the buffer's 80 bytes are not a multiple of its 128-byte alignment, so stages would misalign (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<20xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%i] : memref<20xf32, 3>
    } {tile.pipeline_stages = 2 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @view_of_buffer(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      // expected-error @below {{'memref.subview' op uses the pipelined buffer but cannot take a stage index (T-PIPE-1)}}
      %v = memref.subview %buf[0] [16] [1] : memref<512xf32, 3> to memref<16xf32, strided<[1]>, 3>
    } {tile.pipeline_stages = 2 : i64}
    gpu.return
  }
}

// -----

// T-PIPE-2: the TMA ring counts one release per thread.
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
gpu.module @k {
  gpu.func @no_block_size(%d: !desc, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %false = arith.constant false
    %bar = tile.mbarrier_alloc : !tile.mbarrier
    %buf = tile.shared_alloc : memref<32x64xf32, 3>
    // expected-error @below {{cannot be pipelined: the TMA ring counts one release per thread, so the kernel needs known_block_size (T-PIPE-2)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.tma_copy %d[%k, %c0] to %buf, %bar[%c0] : !desc, memref<32x64xf32, 3>, !tile.mbarrier
      tile.mbarrier_wait_parity %bar[%c0], %false : !tile.mbarrier
      %v = memref.load %buf[%i, %i] : memref<32x64xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
gpu.module @k {
  gpu.func @nested_copy(%d: !desc, %i: index, %p: i1) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %false = arith.constant false
    %bar = tile.mbarrier_alloc : !tile.mbarrier
    %buf = tile.shared_alloc : memref<32x64xf32, 3>
    // expected-error @below {{cannot be pipelined: a tile.tma_copy is nested in control flow, so its arrivals cannot be counted (T-PIPE-2)}}
    scf.for %k = %c0 to %c8 step %c1 {
      scf.if %p {
        tile.tma_copy %d[%k, %c0] to %buf, %bar[%c0] : !desc, memref<32x64xf32, 3>, !tile.mbarrier
      }
      tile.mbarrier_wait_parity %bar[%c0], %false : !tile.mbarrier
      %v = memref.load %buf[%i, %i] : memref<32x64xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
gpu.module @k {
  gpu.func @other_barrier(%d: !desc, %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %false = arith.constant false
    %bar = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
    %buf = tile.shared_alloc : memref<32x64xf32, 3>
    // expected-error @below {{cannot be pipelined: expected a tile.mbarrier_wait_parity on the copies' barrier after the copies (T-PIPE-2)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.tma_copy %d[%k, %c0] to %buf, %bar[%c0] : !desc, memref<32x64xf32, 3>, !tile.mbarrier<count = 2>
      tile.mbarrier_wait_parity %bar[%c1], %false : !tile.mbarrier<count = 2>
      %v = memref.load %buf[%i, %i] : memref<32x64xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
gpu.module @k {
  gpu.func @mixed(%d: !desc, %src: memref<4096xf32>, %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %false = arith.constant false
    %bar = tile.mbarrier_alloc : !tile.mbarrier
    %buf = tile.shared_alloc : memref<32x64xf32, 3>
    %other = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{cannot be pipelined: it mixes cp.async and TMA copies (T-PIPE-2)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.tma_copy %d[%k, %c0] to %buf, %bar[%c0] : !desc, memref<32x64xf32, 3>, !tile.mbarrier
      tile.async_copy %src[%i] to %other[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      tile.mbarrier_wait_parity %bar[%c0], %false : !tile.mbarrier
      %v = memref.load %buf[%i, %i] : memref<32x64xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
gpu.module @k {
  gpu.func @copies_on_two_barriers(%d: !desc, %i: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %false = arith.constant false
    %bar = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
    %a = tile.shared_alloc : memref<32x64xf32, 3>
    %b = tile.shared_alloc : memref<32x64xf32, 3>
    // expected-error @below {{cannot be pipelined: its tile.tma_copy ops arrive on different barriers (T-PIPE-2)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.tma_copy %d[%k, %c0] to %a, %bar[%c0] : !desc, memref<32x64xf32, 3>, !tile.mbarrier<count = 2>
      tile.tma_copy %d[%k, %c0] to %b, %bar[%c1] : !desc, memref<32x64xf32, 3>, !tile.mbarrier<count = 2>
      tile.mbarrier_wait_parity %bar[%c0], %false : !tile.mbarrier<count = 2>
      %v = memref.load %a[%i, %i] : memref<32x64xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @no_copies(%i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{cannot be pipelined: expected tile.async_copy or tile.tma_copy ops before the commit or wait (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @no_barrier(%src: memref<4096xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    // expected-error @below {{cannot be pipelined: expected a gpu.barrier after the wait (T-PIPE-1)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      %v = memref.load %buf[%i] : memref<512xf32, 3>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}

// -----

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

// -----

// T-SMEM-4: 4 stages of a static 16 KB buffer would take 64 KB of static
// shared memory; a dynamic buffer can.
gpu.module @k {
  gpu.func @static_ring_too_large(%src: memref<65536xf32>, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = tile.shared_alloc : memref<4096xf32, 3>
    // expected-error @below {{cannot be pipelined with 4 stages: the ring of a static buffer of 16384 bytes takes 65536, more than the 49152 bytes (48 KB) of static shared memory a kernel may have; allocate the buffer with `tile.shared_alloc dynamic` (T-SMEM-4)}}
    scf.for %k = %c0 to %c8 step %c1 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<65536xf32> to memref<4096xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0 for %g
      gpu.barrier
      %v = memref.load %buf[%i] : memref<4096xf32, 3>
    } {tile.pipeline_stages = 4 : i64}
    gpu.return
  }
}

// -----

// The ring's stage arithmetic is on `index` values.
gpu.module @k {
  gpu.func @i32_loop(%src: memref<65536xf32>, %i: index, %n: i32) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %buf = tile.shared_alloc : memref<1024xf32, 3>
    // expected-error @below {{pipelines loops over `index` values, got an induction variable of type 'i32'; cast the bounds with arith.index_cast (T-PIPE-1)}}
    scf.for %k = %c0 to %n step %c1 : i32 {
      tile.async_copy %src[%i] to %buf[%i], 16 bytes, cache = cg : memref<65536xf32> to memref<1024xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0 for %g
      gpu.barrier
      %v = memref.load %buf[%i] : memref<1024xf32, 3>
    } {tile.pipeline_stages = 2 : i64}
    gpu.return
  }
}
