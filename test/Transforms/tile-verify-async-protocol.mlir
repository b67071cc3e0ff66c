// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-verify-async-protocol

// A 3-stage cp.async ring (K = 3): K - 1 stages in flight before the loop, then
// wait_group(K - 2) before reading stage k mod K. Correct: no report, for a
// constant and for a dynamic trip count.
func.func @k_stage_ring(%g: memref<1024x64xf32>, %s: memref<3x64xf32, 3>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  scf.for %p = %c0 to %c2 step %c1 {
    tile.async_copy %g[%p, %c0] to %s[%p, %c0], 16 bytes, cache = cg : memref<1024x64xf32> to memref<3x64xf32, 3>
    %g0 = tile.async_commit_group
  }
  scf.for %k = %c0 to %c16 step %c1 {
    tile.async_wait_group 1
    gpu.barrier
    %stage = arith.remui %k, %c3 : index
    %v = memref.load %s[%stage, %c0] : memref<3x64xf32, 3>
    %kn = arith.addi %k, %c2 : index
    %next = arith.remui %kn, %c3 : index
    tile.async_copy %g[%kn, %c0] to %s[%next, %c0], 16 bytes, cache = cg : memref<1024x64xf32> to memref<3x64xf32, 3>
    %g1 = tile.async_commit_group
  }
  scf.for %k = %c0 to %n step %c1 {
    tile.async_wait_group 1
    %stage = arith.remui %k, %c3 : index
    %v = memref.load %s[%stage, %c0] : memref<3x64xf32, 3>
    %kn = arith.addi %k, %c2 : index
    %next = arith.remui %kn, %c3 : index
    tile.async_copy %g[%kn, %c0] to %s[%next, %c0], 16 bytes, cache = cg : memref<1024x64xf32> to memref<3x64xf32, 3>
    %g1 = tile.async_commit_group
  }
  tile.async_wait_group 0
  return
}

// -----

// T-PROTO-1: the same ring with K - 1 groups left in flight reads a stage
// whose copy may not have landed.
func.func @k_stage_ring_wrong_wait(%g: memref<1024x64xf32>, %s: memref<3x64xf32, 3>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  scf.for %p = %c0 to %c2 step %c1 {
    // expected-note @below {{copy issued here}}
    tile.async_copy %g[%p, %c0] to %s[%p, %c0], 16 bytes, cache = cg : memref<1024x64xf32> to memref<3x64xf32, 3>
    %g0 = tile.async_commit_group
  }
  scf.for %k = %c0 to %c16 step %c1 {
    tile.async_wait_group 2
    %stage = arith.remui %k, %c3 : index
    // expected-error @below {{reads shared memory that a cp.async group may still be writing (stage 0): 1 newer group(s) were committed after it, so wait_group must keep at most 1 pending (T-PROTO-1)}}
    %v = memref.load %s[%stage, %c0] : memref<3x64xf32, 3>
    %kn = arith.addi %k, %c2 : index
    %next = arith.remui %kn, %c3 : index
    tile.async_copy %g[%kn, %c0] to %s[%next, %c0], 16 bytes, cache = cg : memref<1024x64xf32> to memref<3x64xf32, 3>
    %g1 = tile.async_commit_group
  }
  tile.async_wait_all
  return
}

// -----

// T-PROTO-1: read before the copy is even committed.
func.func @read_before_commit(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  // expected-note @below {{copy issued here}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  // expected-error @below {{reads shared memory that a cp.async group may still be writing: the copy is not committed and waited for yet (T-PROTO-1)}}
  %v = memref.load %s[%i] : memref<64xf32, 3>
  tile.async_wait_all
  return
}

// -----

// Reading another buffer, or after the wait, is fine.
func.func @other_buffer_and_after_wait(%g: memref<64xf32>, %s: memref<64xf32, 3>, %t: memref<64xf32, 3>, %i: index) {
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  %grp = tile.async_commit_group
  %a = memref.load %t[%i] : memref<64xf32, 3>
  tile.async_wait_group 0 for %grp
  %b = memref.load %s[%i] : memref<64xf32, 3>
  return
}

// -----

// T-PROTO-2: a commit inside `if` (cp_async_fence under a condition), then
// a wait whose count names different groups on the two paths.
func.func @commit_in_if(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %p: i1) {
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  // expected-warning @below {{leaves 1 cp.async group(s) committed since the last full wait on one branch and 0 on the other: later wait_group counts name different groups on the two paths; commit unconditionally (an empty group is legal) (T-PROTO-2)}}
  scf.if %p {
    %grp = tile.async_commit_group
  }
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  %next = tile.async_commit_group
  // expected-note @below {{this wait leaves 1 group(s) pending of the 1 or 0 committed}}
  tile.async_wait_group 1
  tile.async_wait_all
  return
}

// -----

// T-PROTO-2 through a loop's back edge: the conditional commit at the
// bottom, the count at the top of the next iteration.
func.func @commit_in_if_in_loop(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %n: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %n step %c1 {
    // expected-note @below {{this wait leaves 1 group(s) pending of the 2 or 1 committed}}
    tile.async_wait_group 1
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %a = tile.async_commit_group
    // expected-warning @below {{leaves 2 cp.async group(s) committed since the last full wait on one branch and 1 on the other: later wait_group counts name different groups on the two paths; commit unconditionally (an empty group is legal) (T-PROTO-2)}}
    scf.if %p {
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
      %b = tile.async_commit_group
    }
  }
  tile.async_wait_all
  return
}

// -----

// Every conditional commit before the count is reported, not the last one.
func.func @two_commits_in_ifs(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %p: i1, %q: i1) {
  // expected-warning @below {{leaves 1 cp.async group(s) committed since the last full wait on one branch and 0 on the other: later wait_group counts name different groups on the two paths; commit unconditionally (an empty group is legal) (T-PROTO-2)}}
  scf.if %p {
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %b = tile.async_commit_group
  }
  // expected-warning @below {{leaves 2 cp.async group(s) committed since the last full wait on one branch and 1 on the other: later wait_group counts name different groups on the two paths; commit unconditionally (an empty group is legal) (T-PROTO-2)}}
  scf.if %q {
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %b = tile.async_commit_group
  }
  // expected-note @+2 {{this wait leaves 1 group(s) pending of the 1 or 0 committed}}
  // expected-note @+1 {{this wait leaves 1 group(s) pending of the 2 or 1 committed}}
  tile.async_wait_group 1
  tile.async_wait_all
  return
}

// -----

// One pass of an scf.while body: reported at the if, whatever follows.
func.func @commit_in_if_in_while(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %n: index, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%k = %c0) : (index) -> index {
    %c = arith.cmpi ult, %k, %n : index
    scf.condition(%c) %k : index
  } do {
  ^bb0(%k: index):
    tile.async_wait_group 1
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %a = tile.async_commit_group
    // expected-warning @below {{leaves 2 cp.async group(s) committed since the last full wait on one branch and 1 on the other: later wait_group counts name different groups on the two paths; commit unconditionally (an empty group is legal) (T-PROTO-2)}}
    scf.if %p {
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
      %b = tile.async_commit_group
    }
    %k1 = arith.addi %k, %c1 : index
    scf.yield %k1 : index
  }
  tile.async_wait_all
  return
}

// -----

// No count depends on a conditional commit that a full wait follows, in the
// branch or after it: warp roles that commit differently and wait for
// everything (consumers copying with cp.async beside a TMA producer), then a
// counted pipeline; nor on a condition the simulation knows (a prologue's
// first iterations).
func.func @conditional_commits_that_no_count_names(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %p: i1, %q: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.if %p {
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %b = tile.async_commit_group
    tile.async_wait_group 0
  }
  scf.if %q {
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %b = tile.async_commit_group
  }
  tile.async_wait_all
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  %a = tile.async_commit_group
  scf.for %k = %c0 to %c4 step %c1 {
    %first = arith.cmpi ult, %k, %c2 : index
    scf.if %first {
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
      %b = tile.async_commit_group
    }
    tile.async_wait_group 1
  }
  tile.async_wait_all
  return
}

// -----

// T-PROTO-3: copies in flight at the end of the kernel.
gpu.module @kernels {
  gpu.func @exit_in_flight(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) kernel {
    // expected-note @below {{copy issued here}}
    tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
    %grp = tile.async_commit_group
    // expected-warning @below {{returns while cp.async copies may still be in flight; wait for them (tile.async_wait_group 0) before exit (T-PROTO-3)}}
    gpu.return
  }
}

// -----

// Copies handed to an mbarrier complete at a wait on it.
func.func @mbarrier_tracked(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %n: i32, %ph: i1) {
  %c0 = arith.constant 0 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier
  tile.mbarrier_init %b[%c0], %n : !tile.mbarrier
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  tile.async_copy_mbarrier_arrive %b[%c0] noinc : !tile.mbarrier
  tile.mbarrier_wait_parity %b[%c0], %ph : !tile.mbarrier
  %v = memref.load %s[%i] : memref<64xf32, 3>
  return
}

// -----

// T-PROTO-1: ... but not before that wait.
func.func @mbarrier_tracked_no_wait(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %n: i32) {
  %c0 = arith.constant 0 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier
  tile.mbarrier_init %b[%c0], %n : !tile.mbarrier
  // expected-note @below {{copy issued here}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  tile.async_copy_mbarrier_arrive %b[%c0] noinc : !tile.mbarrier
  // expected-error @below {{reads shared memory that a cp.async group may still be writing: the copy is not committed and waited for yet (T-PROTO-1)}}
  %v = memref.load %s[%i] : memref<64xf32, 3>
  tile.async_wait_all
  return
}

// -----

// T-PROTO-4: wait on a barrier nobody initialized.
func.func @wait_before_init(%ph: i1) {
  %c0 = arith.constant 0 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier
  // expected-error @below {{uses an mbarrier before it is initialized with tile.mbarrier_init (T-PROTO-4)}}
  tile.mbarrier_wait_parity %b[%c0], %ph : !tile.mbarrier
  return
}

// -----

// One thread initializes under a condition, everyone waits after: fine.
func.func @init_by_leader(%leader: i1, %n: i32, %ph: i1) {
  %c0 = arith.constant 0 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier
  scf.if %leader {
    tile.mbarrier_init %b[%c0], %n : !tile.mbarrier
  }
  gpu.barrier
  tile.mbarrier_wait_parity %b[%c0], %ph : !tile.mbarrier
  return
}

// -----

// T-PROTO-5: a second init without inval.
func.func @reinit(%n: i32) {
  %c1 = arith.constant 1 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
  // expected-note @below {{first initialized here}}
  tile.mbarrier_init %b[%c1], %n : !tile.mbarrier<count = 2>
  // expected-error @below {{initializes barrier 1 again without tile.mbarrier_inval (T-PROTO-5)}}
  tile.mbarrier_init %b[%c1], %n : !tile.mbarrier<count = 2>
  return
}

// -----

// With inval in between it is a legal re-initialization.
func.func @reinit_after_inval(%n: i32) {
  %c1 = arith.constant 1 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
  tile.mbarrier_init %b[%c1], %n : !tile.mbarrier<count = 2>
  tile.mbarrier_inval %b[%c1] : !tile.mbarrier<count = 2>
  tile.mbarrier_init %b[%c1], %n : !tile.mbarrier<count = 2>
  return
}

// -----

// T-PROTO-6: a cluster-scope barrier used across the cluster before
// fence_mbarrier_init.
func.func @cluster_init_unfenced(%n: i32) {
  %c0 = arith.constant 0 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier<scope = cluster>
  // expected-note @below {{barrier initialized here}}
  tile.mbarrier_init %b[%c0], %n : !tile.mbarrier<scope = cluster>
  // expected-warning @below {{makes a cluster-scope mbarrier visible to other CTAs before tile.fence_mbarrier_init orders its initialization (T-PROTO-6)}}
  tile.cluster_arrive
  tile.cluster_wait
  return
}

// -----

func.func @cluster_init_fenced(%n: i32) {
  %c0 = arith.constant 0 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier<scope = cluster>
  tile.mbarrier_init %b[%c0], %n : !tile.mbarrier<scope = cluster>
  tile.fence_mbarrier_init
  tile.cluster_arrive
  tile.cluster_wait
  return
}

// -----

// A 4-stage full-barrier ring: stage = k mod 4, phase = (k / 4) mod 2. The
// phase bit flips each time the ring wraps: silent.
func.func @ring_phases(%n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
  scf.for %s = %c0 to %c4 step %c1 {
    tile.mbarrier_init %b[%s], %n : !tile.mbarrier<count = 4>
  }
  scf.for %k = %c0 to %c12 step %c1 {
    %stage = arith.remui %k, %c4 : index
    %round = arith.divui %k, %c4 : index
    %bit = arith.remui %round, %c2 : index
    %bit32 = arith.index_cast %bit : index to i32
    %phase = arith.trunci %bit32 : i32 to i1
    tile.mbarrier_wait_parity %b[%stage], %phase : !tile.mbarrier<count = 4>
  }
  return
}

// -----

// T-PROTO-7: the same ring with a phase that never flips.
func.func @ring_phase_stuck(%n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %false = arith.constant false
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
  scf.for %s = %c0 to %c4 step %c1 {
    tile.mbarrier_init %b[%s], %n : !tile.mbarrier<count = 4>
  }
  scf.for %k = %c0 to %c12 step %c1 {
    %stage = arith.remui %k, %c4 : index
    // expected-warning @below {{waits for phase parity 0 of barrier 0, but this is wait 2 on it, which completes with parity 1: the phase bit must flip each time the ring returns to this barrier (T-PROTO-7)}}
    tile.mbarrier_wait_parity %b[%stage], %false : !tile.mbarrier<count = 4>
  }
  return
}
