// T-PROTO-8: with the block size known (known_block_size or constant launch
// sizes), arrivals per phase are counted over the threads that execute each
// arrive: all of them, one under `thread_id x == c`, one per warp under
// elect_sync.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-verify-async-protocol

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Init expects 2 arrivals, one thread arrives once: a hang.
    gpu.func @too_few() kernel attributes {known_block_size = array<i32: 1, 1, 1>} {
      %c0 = arith.constant 0 : index
      %two = arith.constant 2 : i32
      %false = arith.constant false
      %b = tile.mbarrier_alloc : !tile.mbarrier
      // expected-note @below {{initialized here}}
      tile.mbarrier_init %b[%c0], %two : !tile.mbarrier
      %t = tile.mbarrier_arrive %b[%c0] : !tile.mbarrier -> !tile.mbarrier_token
      // expected-error @below {{waits on barrier 0, which expects 2 arrivals per phase, but the 1 threads of a block arrive at most 1 times: the phase never completes (T-PROTO-8)}}
      tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier
      gpu.return
    }
  }
}

// -----

// The block size from the launches: 128 threads, but only thread 0 arrives
// while the barrier expects all 128.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @leader_only() kernel {
      %c0 = arith.constant 0 : index
      %n = arith.constant 128 : i32
      %false = arith.constant false
      %tid = gpu.thread_id x
      %b = tile.mbarrier_alloc : !tile.mbarrier
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        // expected-note @below {{initialized here}}
        tile.mbarrier_init %b[%c0], %n : !tile.mbarrier
        %t = tile.mbarrier_arrive %b[%c0] : !tile.mbarrier -> !tile.mbarrier_token
      }
      gpu.barrier
      // expected-error @below {{waits on barrier 0, which expects 128 arrivals per phase, but the 128 threads of a block arrive at most 1 times: the phase never completes (T-PROTO-8)}}
      tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@leader_only blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
    return
  }
}

// -----

// Matching counts are silent: every thread, the leader, one lane per warp.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @balanced() kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %all = arith.constant 128 : i32
      %one = arith.constant 1 : i32
      %warps = arith.constant 4 : i32
      %false = arith.constant false
      %tid = gpu.thread_id x
      %b = tile.mbarrier_alloc : !tile.mbarrier<count = 3>
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %b[%c0], %all : !tile.mbarrier<count = 3>
        tile.mbarrier_init %b[%c1], %one : !tile.mbarrier<count = 3>
        tile.mbarrier_init %b[%c2], %warps : !tile.mbarrier<count = 3>
      }
      gpu.barrier
      %t0 = tile.mbarrier_arrive %b[%c0] : !tile.mbarrier<count = 3> -> !tile.mbarrier_token
      scf.if %leader {
        %t1 = tile.mbarrier_arrive %b[%c1] : !tile.mbarrier<count = 3> -> !tile.mbarrier_token
      }
      %elected = tile.elect_sync : i1
      scf.if %elected {
        %t2 = tile.mbarrier_arrive %b[%c2] : !tile.mbarrier<count = 3> -> !tile.mbarrier_token
      }
      tile.mbarrier_wait_parity %b[%c0], %false : !tile.mbarrier<count = 3>
      tile.mbarrier_wait_parity %b[%c1], %false : !tile.mbarrier<count = 3>
      tile.mbarrier_wait_parity %b[%c2], %false : !tile.mbarrier<count = 3>
      gpu.return
    }
  }
}
