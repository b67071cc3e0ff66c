// A TMA ring whose refill is not ordered after the reads of the slot: thread 0
// issues the loads into a 2-slot ring, every thread waits on the slot's full
// barrier and reads it, and thread 0 refills the slot in the same iteration
// with nothing (a barrier, an empty mbarrier) ordering the other threads'
// reads before the refill: a write-after-read race. The role protocol sees
// the other threads fall behind the ring (T-PROTO-11); the message names the
// refilling role and what would order the reads before the refill.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol -verify-diagnostics
// Informational remarks name the kernel by its location, without printing it.
// RUN: not tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN

!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @refill_without_barrier(%d: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 8192 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        // expected-note @below {{barrier initialized here}}
        tile.mbarrier_init %full[%s], %one : !bars
      }
      scf.for %s = %c0 to %c2 step %c1 {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %row = arith.muli %s, %c32 : index
        tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
      }
    }
    gpu.barrier
    %row = arith.remui %tid, %c32 : index
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.remui %k, %c2 : index
      %round = arith.divui %k, %c2 : index
      %bit = arith.remui %round, %c2 : index
      %ph = arith.index_cast %bit : index to i1
      // expected-error @below {{waits for parity 0 of barrier 0 (the 127 threads of thread 1's role) in phase 2, which never completes: every role is blocked or done with 1 of 1 arrivals missing and 0 transaction bytes still expected; the barrier is past the phase this role meant (this is its first wait on it): thread 0 issued the copies that refill the stages this role reads (the last one for phase 1 of barrier 0) without waiting for this role's reads of the stage, so the ring ran ahead of them (a write-after-read race on the ring); order the reads before the refill: a gpu.barrier (or a named barrier) between the reads and the refill, or an arrival of the readers on an empty mbarrier that the producer waits on before the refill (T-PROTO-11)}}
      tile.mbarrier_wait_parity %full[%s], %ph : !bars
      %v = memref.load %ring[%s, %row, %c0] : memref<2x32x64xf32, 3>
      %a = arith.addf %acc, %v : f32
      // No gpu.barrier here: the refill may overwrite the slot before the
      // other threads have read it.
      %next = arith.addi %k, %c2 : index
      %more = arith.cmpi ult, %next, %c4 : index
      %refill = arith.andi %first, %more : i1
      scf.if %refill {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %nrow = arith.muli %next, %c32 : index
        // expected-note @below {{the refill (thread 0), not ordered after the reads}}
        tile.tma_load %d[%nrow, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
      }
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// With 5 loads the other threads' first wait returns, on phase 2 (T-PROTO-7),
// with the same explanation.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @refill_returns_late(%d: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 8192 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
      }
      scf.for %s = %c0 to %c2 step %c1 {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %row = arith.muli %s, %c32 : index
        tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
      }
    }
    gpu.barrier
    %row = arith.remui %tid, %c32 : index
    %sum = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.remui %k, %c2 : index
      %round = arith.divui %k, %c2 : index
      %bit = arith.remui %round, %c2 : index
      %ph = arith.index_cast %bit : index to i1
      // expected-error @below {{waits for parity 0 of barrier 0 (the 127 threads of thread 1's role) and returns on phase 2, though this is its first wait on it: the role fell two phases behind the ring and a parity names a phase only modulo 2: thread 0 issued the copies that refill the stages this role reads (the last one for phase 2 of barrier 0) without waiting for this role's reads of the stage, so the ring ran ahead of them (a write-after-read race on the ring); order the reads before the refill: a gpu.barrier (or a named barrier) between the reads and the refill, or an arrival of the readers on an empty mbarrier that the producer waits on before the refill (T-PROTO-7)}}
      tile.mbarrier_wait_parity %full[%s], %ph : !bars
      %v = memref.load %ring[%s, %row, %c0] : memref<2x32x64xf32, 3>
      %a = arith.addf %acc, %v : f32
      // No gpu.barrier here: the refill may overwrite the slot before the
      // other threads have read it.
      %next = arith.addi %k, %c2 : index
      %more = arith.cmpi ult, %next, %c5 : index
      %refill = arith.andi %first, %more : i1
      scf.if %refill {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %nrow = arith.muli %next, %c32 : index
        // expected-note @below {{the refill (thread 0), not ordered after the reads}}
        tile.tma_load %d[%nrow, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
      }
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// The fix: a gpu.barrier between the reads and the refill.
// EXPLAIN: remark: role protocol: 2 roles (1 from thread 0, 127 from thread 1) simulated with sample values 1, 200, 520: nothing to report
// EXPLAIN-NOT: see current operation
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @refill_after_barrier(%d: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 8192 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
      }
      scf.for %s = %c0 to %c2 step %c1 {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %row = arith.muli %s, %c32 : index
        tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
      }
    }
    gpu.barrier
    %row = arith.remui %tid, %c32 : index
    %sum = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %s = arith.remui %k, %c2 : index
      %round = arith.divui %k, %c2 : index
      %bit = arith.remui %round, %c2 : index
      %ph = arith.index_cast %bit : index to i1
      tile.mbarrier_wait_parity %full[%s], %ph : !bars
      %v = memref.load %ring[%s, %row, %c0] : memref<2x32x64xf32, 3>
      %a = arith.addf %acc, %v : f32
      gpu.barrier
      %next = arith.addi %k, %c2 : index
      %more = arith.cmpi ult, %next, %c4 : index
      %refill = arith.andi %first, %more : i1
      scf.if %refill {
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %nrow = arith.muli %next, %c32 : index
        tile.tma_load %d[%nrow, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
      }
      scf.yield %a : f32
    }
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}
