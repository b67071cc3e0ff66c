// The role protocol of tile-verify-async-protocol on hand-written rings:
// a correct one (nothing reported, and the remark shows it was simulated)
// and one mutation per rule.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics

// A CUTLASS-style warp-specialized ring without tile.warp_specialize: warp 0
// produces (thread 0 issues TMA loads into a 3-stage ring), warps 1..4
// consume; (stage, phase) are loop-carried, the producer starting at parity 1
// (a fresh barrier's preceding phase counts as complete), the consumers' stage
// wrapping by remui and their phase flipping by select. Nothing to report.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 3 roles (1 from thread 0, 31 from thread 1, 128 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @ring(%d: !desc, %k: index, %out: memref<160xf32>) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %consumers = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<3x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %consumers : !bars
      }
    }
    gpu.barrier
    // Warp 0 produces (thread 0 issues the loads), warps 1..4 consume.
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %first {
        %r:2 = scf.for %t = %c0 to %k step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %empty[%s], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<3x32x64xf32, 3>, !bars
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c3 : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %ns, %nph : index, i1
        }
      }
    } else {
      %lane = arith.subi %tid, %c32 : index
      %row = arith.remui %lane, %c32 : index
      %sum:3 = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
        tile.mbarrier_wait_parity %full[%s], %ph : !bars
        %v = memref.load %ring[%s, %row, %c0] : memref<3x32x64xf32, 3>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        %a = arith.addf %acc, %v : f32
        // The stage counter wraps by remui, the phase flips by select.
        %next = arith.addi %s, %c1 : index
        %ns = arith.remui %next, %c3 : index
        %wrap = arith.cmpi eq, %ns, %c0 : index
        %flipped = arith.xori %ph, %true : i1
        %nph = arith.select %wrap, %flipped, %ph : i1
        scf.yield %a, %ns, %nph : f32, index, i1
      }
      memref.store %sum#0, %out[%tid] : memref<160xf32>
    }
    gpu.return
  }
}

// -----

// T-PROTO-11: the empty barriers expect 129 arrivals, the 128 consumers give
// 128 per phase: the producer never refills, the consumers wait forever.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @too_many(%d: !desc, %k: index, %out: memref<160xf32>) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %consumers = arith.constant 129 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<3x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        // expected-note @below {{barrier initialized here}}
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %consumers : !bars
      }
    }
    gpu.barrier
    // Warp 0 produces (thread 0 issues the loads), warps 1..4 consume.
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %first {
        %r:2 = scf.for %t = %c0 to %k step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          // expected-note @below {{thread 0 is blocked here}}
          tile.mbarrier_wait_parity %empty[%s], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<3x32x64xf32, 3>, !bars
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c3 : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %ns, %nph : index, i1
        }
      }
    } else {
      %lane = arith.subi %tid, %c32 : index
      %row = arith.remui %lane, %c32 : index
      %sum:3 = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
        // expected-error @below {{waits for parity 1 of barrier 0 (the 128 threads of thread 32's role) in phase 1, which never completes: every role is blocked or done with 1 of 1 arrivals missing and 0 transaction bytes still expected (T-PROTO-11)}}
        tile.mbarrier_wait_parity %full[%s], %ph : !bars
        %v = memref.load %ring[%s, %row, %c0] : memref<3x32x64xf32, 3>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        %a = arith.addf %acc, %v : f32
        // The stage counter wraps by remui, the phase flips by select.
        %next = arith.addi %s, %c1 : index
        %ns = arith.remui %next, %c3 : index
        %wrap = arith.cmpi eq, %ns, %c0 : index
        %flipped = arith.xori %ph, %true : i1
        %nph = arith.select %wrap, %flipped, %ph : i1
        scf.yield %a, %ns, %nph : f32, index, i1
      }
      memref.store %sum#0, %out[%tid] : memref<160xf32>
    }
    gpu.return
  }
}

// -----

// T-PROTO-7: the consumers' phase never flips: at the ring's second round their
// wait returns at once on the phase they already saw.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @no_flip(%d: !desc, %k: index, %out: memref<160xf32>) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %consumers = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<3x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %consumers : !bars
      }
    }
    gpu.barrier
    // Warp 0 produces (thread 0 issues the loads), warps 1..4 consume.
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %first {
        %r:2 = scf.for %t = %c0 to %k step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %empty[%s], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<3x32x64xf32, 3>, !bars
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c3 : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %ns, %nph : index, i1
        }
      }
    } else {
      %lane = arith.subi %tid, %c32 : index
      %row = arith.remui %lane, %c32 : index
      %sum:3 = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
        // expected-error @below {{waits for parity 0 of barrier 0 (the 128 threads of thread 32's role), which returns at once on phase 0 that this role already saw: the parity must flip each time the ring comes back to the barrier (T-PROTO-7)}}
        tile.mbarrier_wait_parity %full[%s], %ph : !bars
        %v = memref.load %ring[%s, %row, %c0] : memref<3x32x64xf32, 3>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        %a = arith.addf %acc, %v : f32
        // The stage counter wraps by remui, the phase flips by select.
        %next = arith.addi %s, %c1 : index
        %ns = arith.remui %next, %c3 : index
        %wrap = arith.cmpi eq, %ns, %c0 : index
        %flipped = arith.xori %ph, %true : i1
        %nph = arith.select %wrap, %ph, %ph : i1
        scf.yield %a, %ns, %nph : f32, index, i1
      }
      memref.store %sum#0, %out[%tid] : memref<160xf32>
    }
    gpu.return
  }
}

// -----

// T-PROTO-12: the consumers read a stage without waiting on its full barrier.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @no_wait(%d: !desc, %k: index, %out: memref<160xf32>) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %consumers = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<3x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %consumers : !bars
      }
    }
    gpu.barrier
    // Warp 0 produces (thread 0 issues the loads), warps 1..4 consume.
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %first {
        %r:2 = scf.for %t = %c0 to %k step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %empty[%s], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          // expected-note @below {{the copy}}
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<3x32x64xf32, 3>, !bars
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c3 : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %ns, %nph : index, i1
        }
      }
    } else {
      %lane = arith.subi %tid, %c32 : index
      %row = arith.remui %lane, %c32 : index
      %sum:3 = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
        // expected-error @below {{reads stage 0 (the 128 threads of thread 32's role) written by a copy that completes phase 0 of barrier 0, which this role never waited for: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
        %v = memref.load %ring[%s, %row, %c0] : memref<3x32x64xf32, 3>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        %a = arith.addf %acc, %v : f32
        // The stage counter wraps by remui, the phase flips by select.
        %next = arith.addi %s, %c1 : index
        %ns = arith.remui %next, %c3 : index
        %wrap = arith.cmpi eq, %ns, %c0 : index
        %flipped = arith.xori %ph, %true : i1
        %nph = arith.select %wrap, %flipped, %ph : i1
        scf.yield %a, %ns, %nph : f32, index, i1
      }
      memref.store %sum#0, %out[%tid] : memref<160xf32>
    }
    gpu.return
  }
}

// -----

// T-PROTO-12: the consumers release a stage before reading it: the producer
// may refill it first.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @early(%d: !desc, %k: index, %out: memref<160xf32>) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    %consumers = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<3x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %consumers : !bars
      }
    }
    gpu.barrier
    // Warp 0 produces (thread 0 issues the loads), warps 1..4 consume.
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      scf.if %first {
        %r:2 = scf.for %t = %c0 to %k step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %empty[%s], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          // expected-note @below {{the copy}}
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<3x32x64xf32, 3>, !bars
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c3 : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %ns, %nph : index, i1
        }
      }
    } else {
      %lane = arith.subi %tid, %c32 : index
      %row = arith.remui %lane, %c32 : index
      %sum:3 = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
        tile.mbarrier_wait_parity %full[%s], %ph : !bars
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        // expected-error @below {{reads stage 0 (the 128 threads of thread 32's role) written by a copy that completes phase 1 of barrier 0, but this role's last wait on it saw phase 0: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
        %v = memref.load %ring[%s, %row, %c0] : memref<3x32x64xf32, 3>
        %a = arith.addf %acc, %v : f32
        // The stage counter wraps by remui, the phase flips by select.
        %next = arith.addi %s, %c1 : index
        %ns = arith.remui %next, %c3 : index
        %wrap = arith.cmpi eq, %ns, %c0 : index
        %flipped = arith.xori %ph, %true : i1
        %nph = arith.select %wrap, %flipped, %ph : i1
        scf.yield %a, %ns, %nph : f32, index, i1
      }
      memref.store %sum#0, %out[%tid] : memref<160xf32>
    }
    gpu.return
  }
}

// -----

// An init count the kernel only knows at run time is not simulated (a sample
// value would be no plausible count): the remark says why.
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  // expected-remark @below {{role protocol not modeled: a count known only at run time (tile.mbarrier_init at}}
  gpu.func @runtime_count(%count: i32) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %false = arith.constant false
    %tid = gpu.thread_id x
    %bar = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %count : !bars
    }
    gpu.barrier
    %tok = tile.mbarrier_arrive %bar[%c0] : !bars -> !tile.mbarrier_token
    tile.mbarrier_wait_parity %bar[%c0], %false : !bars
    gpu.return
  }
}

// -----

// T-PROTO-11 (and T-PROTO-7 where the lagging wait still returns): the whole
// producer warp runs the ring though only thread 0 loads: the other 31
// threads only wait on the empty barriers and may fall behind the ring,
// where a parity names the wrong phase (CUTLASS runs the producer loop in
// one elected thread).
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @lagging_waiters(%d: !desc, %k: index, %out: memref<160xf32>) kernel
      attributes {known_block_size = array<i32: 160, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %consumers = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<3x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        // expected-note @below {{barrier initialized here}}
        tile.mbarrier_init %empty[%s], %consumers : !bars
      }
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.if %producer {
      %r:2 = scf.for %t = %c0 to %k step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
        // expected-error @below {{waits for parity 1 of barrier 0 (the 31 threads of thread 1's role) in phase 1, which never completes: every role is blocked or done with 128 of 128 arrivals missing and 0 transaction bytes still expected; the barrier is past the phase this role meant (this is its first wait on it): threads that only wait on a ring fall behind it and a parity names a phase only modulo 2; let one thread run the ring (T-PROTO-11)}}
        tile.mbarrier_wait_parity %empty[%s], %ph : !bars
        scf.if %first {
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<3x32x64xf32, 3>, !bars
        }
        %next = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %next, %c3 : index
        %ns = arith.select %wrap, %c0, %next : index
        %nph = arith.xori %ph, %wrap : i1
        scf.yield %ns, %nph : index, i1
      }
    } else {
      %lane = arith.subi %tid, %c32 : index
      %row = arith.remui %lane, %c32 : index
      %sum:3 = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
        tile.mbarrier_wait_parity %full[%s], %ph : !bars
        %v = memref.load %ring[%s, %row, %c0] : memref<3x32x64xf32, 3>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        %a = arith.addf %acc, %v : f32
        %next = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %next, %c3 : index
        %ns = arith.select %wrap, %c0, %next : index
        %nph = arith.xori %ph, %wrap : i1
        scf.yield %a, %ns, %nph : f32, index, i1
      }
      memref.store %sum#0, %out[%tid] : memref<160xf32>
    }
    gpu.return
  }
}

// -----

// T-PROTO-12: the block reads a buffer that a TMA load fills only later.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @read_before_copy(%d: !desc, %out: memref<32xf32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %tile = tile.shared_alloc : memref<32x64xf32, 3>
    %bar = tile.mbarrier_alloc : !bar
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %one : !bar
    }
    gpu.barrier
    // expected-error @below {{reads a buffer (thread 0) that copies fill before any copy into it completed: its wait returned too early (T-PROTO-12)}}
    %v = memref.load %tile[%tid, %c0] : memref<32x64xf32, 3>
    scf.if %first {
      %tok = tile.mbarrier_arrive_expect_tx %bar[%c0], %bytes : !bar -> !tile.mbarrier_token
      tile.tma_load %d[%c0, %c0] to %tile, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
    }
    tile.mbarrier_wait_parity %bar[%c0], %false : !bar
    memref.store %v, %out[%tid] : memref<32xf32>
    gpu.return
  }
}
