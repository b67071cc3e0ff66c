// The role protocol on ping-pong consumers: two warpgroups take turns at a
// one-stage ring (named barriers 9 and 10), warpgroup 1 the units of one
// and of three slices and warpgroup 2 the unit of two between them, each passing the
// other's phases by. Correct, nothing is reported (warpgroup 1's second
// unit returns on phase 3, two past its own last wait: warpgroup 2's turn
// handed it phases 1 and 2). Without the turns, warpgroup 1 takes
// warpgroup 2's phase 1 for its own and both release it: the ring hangs.
// Waiting with a handed phase's parity is reported too.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics

!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 4 roles (1 from thread 0, 127 from thread 1, 128 from thread 128, 128 from thread 256) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @turns(%d: !desc, %out: memref<384xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %warpgroup = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %turn1 = arith.constant 9 : i32
    %turn2 = arith.constant 10 : i32
    %false = arith.constant false
    %true = arith.constant true
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<1x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %full[%c0], %one : !bars
      tile.mbarrier_init %empty[%c0], %warpgroup : !bars
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %c128 : index
    %wg1 = arith.cmpi ult, %tid, %c256 : index
    %c32 = arith.constant 32 : index
    %lane = arith.remui %tid, %c32 : index
    scf.if %producer {
      // Six slices into the one stage: warpgroup 1's, warpgroup 2's two,
      // warpgroup 1's three.
      scf.if %first {
        %ph_end = scf.for %t = %c0 to %c6 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %empty[%c0], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%c0], %bytes : !bars -> !tile.mbarrier_token
          tile.tma_load %d[%c0, %c0] to %ring[%c0], %full[%c0] : !desc, memref<1x32x64xf32, 3>, !bars
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
      }
    } else {
      scf.if %wg1 {
        // Unit 0: phase 0 (parity 0); warpgroup 2's phases 1 and 2 passed by;
        // unit 2: phases 3, 4, 5 (parities 1, 0, 1).
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %v0 = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
        %tok0 = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
        tile.named_barrier_arrive %turn2, 256
        tile.named_barrier_sync %turn1, 256
        %ph_end = scf.for %t = %c0 to %c3 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %full[%c0], %ph : !bars
          %v = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
          %tok = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
        memref.store %v0, %out[%tid] : memref<384xf32>
      } else {
        // Unit 1: phases 1 and 2 (parities 1, 0), after warpgroup 1's turn.
        tile.named_barrier_sync %turn2, 256
        %ph_end = scf.for %t = %c0 to %c1 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %full[%c0], %ph : !bars
          %v = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
          %tok = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %v2 = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
        %tok0 = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
        tile.named_barrier_arrive %turn1, 256
        memref.store %v2, %out[%tid] : memref<384xf32>
      }
    }
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  gpu.func @no_turns(%d: !desc, %out: memref<384xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %warpgroup = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %turn1 = arith.constant 9 : i32
    %turn2 = arith.constant 10 : i32
    %false = arith.constant false
    %true = arith.constant true
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<1x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %full[%c0], %one : !bars
      // expected-note @below {{barrier initialized here}}
      tile.mbarrier_init %empty[%c0], %warpgroup : !bars
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %c128 : index
    %wg1 = arith.cmpi ult, %tid, %c256 : index
    %c32 = arith.constant 32 : index
    %lane = arith.remui %tid, %c32 : index
    scf.if %producer {
      // Six slices into the one stage: warpgroup 1's, warpgroup 2's two,
      // warpgroup 1's three.
      scf.if %first {
        %ph_end = scf.for %t = %c0 to %c6 step %c1 iter_args(%ph = %true) -> (i1) {
          // expected-error @below {{waits for parity 0 of barrier 0 (thread 0) in phase 4, which never completes: every role is blocked or done with 128 of 128 arrivals missing and 0 transaction bytes still expected (T-PROTO-11)}}
          tile.mbarrier_wait_parity %empty[%c0], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%c0], %bytes : !bars -> !tile.mbarrier_token
          tile.tma_load %d[%c0, %c0] to %ring[%c0], %full[%c0] : !desc, memref<1x32x64xf32, 3>, !bars
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
      }
    } else {
      scf.if %wg1 {
        // Unit 0: phase 0 (parity 0); warpgroup 2's phases 1 and 2 passed by;
        // unit 2: phases 3, 4, 5 (parities 1, 0, 1).
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %v0 = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
        %tok0 = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
        tile.named_barrier_arrive %turn2, 256
        %ph_end = scf.for %t = %c0 to %c3 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %full[%c0], %ph : !bars
          %v = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
          %tok = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
        memref.store %v0, %out[%tid] : memref<384xf32>
      } else {
        // Unit 1: phases 1 and 2 (parities 1, 0), after warpgroup 1's turn.
        tile.named_barrier_sync %turn2, 256
        %ph_end = scf.for %t = %c0 to %c1 step %c1 iter_args(%ph = %true) -> (i1) {
          // expected-note @below {{the 128 threads of thread 256's role is blocked here}}
          tile.mbarrier_wait_parity %full[%c0], %ph : !bars
          %v = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
          %tok = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %v2 = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
        %tok0 = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
        memref.store %v2, %out[%tid] : memref<384xf32>
      }
    }
    gpu.return
  }
}

// -----

// A wait for a phase that another role's turn already took: warpgroup 2
// leaves the release of its last stage to warpgroup 1, so phase 2 is still
// the ring's latest when warpgroup 1, handed phases 1 and 2 at the named
// barrier, waits with the parity of phase 2, before releasing that stage.
// The wait returns at once on a phase that is not its own next one
// (T-PROTO-7). (Waiting for phase 3 there would hang instead: phase 3
// needs that release.)

!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  gpu.func @stale(%d: !desc, %out: memref<384xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %one = arith.constant 1 : i32
    %warpgroup = arith.constant 128 : i32
    %bytes = arith.constant 8192 : i32
    %turn1 = arith.constant 9 : i32
    %turn2 = arith.constant 10 : i32
    %false = arith.constant false
    %true = arith.constant true
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<1x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %full[%c0], %one : !bars
      tile.mbarrier_init %empty[%c0], %warpgroup : !bars
    }
    gpu.barrier
    %producer = arith.cmpi ult, %tid, %c128 : index
    %wg1 = arith.cmpi ult, %tid, %c256 : index
    %c32 = arith.constant 32 : index
    %lane = arith.remui %tid, %c32 : index
    scf.if %producer {
      // Six slices into the one stage: warpgroup 1's, warpgroup 2's two,
      // warpgroup 1's three.
      scf.if %first {
        %ph_end = scf.for %t = %c0 to %c6 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %empty[%c0], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%c0], %bytes : !bars -> !tile.mbarrier_token
          tile.tma_load %d[%c0, %c0] to %ring[%c0], %full[%c0] : !desc, memref<1x32x64xf32, 3>, !bars
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
      }
    } else {
      scf.if %wg1 {
        // Unit 0: phase 0 (parity 0); warpgroup 2's phases 1 and 2 passed by;
        // unit 2: phases 3, 4, 5 (parities 1, 0, 1).
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %v0 = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
        %tok0 = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
        tile.named_barrier_arrive %turn2, 256
        tile.named_barrier_sync %turn1, 256
        // Stale: parity 0 names phase 2, warpgroup 2's; then the release of
        // phase 2's stage that warpgroup 2 left to this one.
        // expected-error @below {{waits for parity 0 of barrier 0 (the 128 threads of thread 128's role), which returns at once on phase 2 that a role it waited for at a named barrier already saw: a role that skips the phases of another's turn must wait for the phase after them (T-PROTO-7)}}
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %tok2 = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
        %ph_end = scf.for %t = %c0 to %c3 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %full[%c0], %ph : !bars
          %v = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
          %tok = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
        memref.store %v0, %out[%tid] : memref<384xf32>
      } else {
        // Unit 1: phases 1 and 2 (parities 1, 0), after warpgroup 1's turn.
        tile.named_barrier_sync %turn2, 256
        %ph_end = scf.for %t = %c0 to %c1 step %c1 iter_args(%ph = %true) -> (i1) {
          tile.mbarrier_wait_parity %full[%c0], %ph : !bars
          %v = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
          %tok = tile.mbarrier_arrive %empty[%c0] : !bars -> !tile.mbarrier_token
          %nph = arith.xori %ph, %true : i1
          scf.yield %nph : i1
        }
        tile.mbarrier_wait_parity %full[%c0], %false : !bars
        %v2 = memref.load %ring[%c0, %lane, %c0] : memref<1x32x64xf32, 3>
        tile.named_barrier_arrive %turn1, 256
        memref.store %v2, %out[%tid] : memref<384xf32>
      }
    }
    gpu.return
  }
}
