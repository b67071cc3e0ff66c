// The thread protocol of tile-verify-async-protocol follows values carried
// through scf.for iter_args: a cp.async ring whose read and load stages are
// loop-carried counters wrapped by compare/select (T-PROTO-1 holds exactly:
// the stage read is known, not "any stage"), and an mbarrier ring whose
// phase bit is loop-carried (T-PROTO-7, thread model: the n-th wait of the
// thread waits for parity n mod 2). Positive and negative for each.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol -verify-diagnostics

// Three stages, two in flight: wait_group 1 before reading the oldest.
func.func @carried_cp_async_ring(%src: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %c128 = arith.constant 128 : index
  %buf = tile.shared_alloc : memref<3x128xf32, 3>
  tile.async_copy %src[%c0] to %buf[%c0, %c0], 16 bytes, cache = cg : memref<4096xf32> to memref<3x128xf32, 3>
  %g0 = tile.async_commit_group
  tile.async_copy %src[%c128] to %buf[%c1, %c0], 16 bytes, cache = cg : memref<4096xf32> to memref<3x128xf32, 3>
  %g1 = tile.async_commit_group
  %r:2 = scf.for %k = %c0 to %c12 step %c1 iter_args(%read = %c0, %load = %c2) -> (index, index) {
    tile.async_wait_group 1
    %v = memref.load %buf[%read, %c0] : memref<3x128xf32, 3>
    %from = arith.muli %k, %c128 : index
    tile.async_copy %src[%from] to %buf[%load, %c0], 16 bytes, cache = cg : memref<4096xf32> to memref<3x128xf32, 3>
    %g = tile.async_commit_group
    %rn = arith.addi %read, %c1 : index
    %rw = arith.cmpi eq, %rn, %c3 : index
    %nread = arith.select %rw, %c0, %rn : index
    %ln = arith.addi %load, %c1 : index
    %lw = arith.cmpi eq, %ln, %c3 : index
    %nload = arith.select %lw, %c0, %ln : index
    scf.yield %nread, %nload : index, index
  }
  tile.async_wait_group 0
  return
}

// -----

// The same ring reading with two groups still pending.
func.func @carried_cp_async_ring_wait_too_shallow(%src: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  %c128 = arith.constant 128 : index
  %buf = tile.shared_alloc : memref<3x128xf32, 3>
  // expected-note @below {{copy issued here}}
  tile.async_copy %src[%c0] to %buf[%c0, %c0], 16 bytes, cache = cg : memref<4096xf32> to memref<3x128xf32, 3>
  %g0 = tile.async_commit_group
  tile.async_copy %src[%c128] to %buf[%c1, %c0], 16 bytes, cache = cg : memref<4096xf32> to memref<3x128xf32, 3>
  %g1 = tile.async_commit_group
  %r:2 = scf.for %k = %c0 to %c12 step %c1 iter_args(%read = %c0, %load = %c2) -> (index, index) {
    tile.async_wait_group 2
    // expected-error @below {{reads shared memory that a cp.async group may still be writing (stage 0): 1 newer group(s) were committed after it, so wait_group must keep at most 1 pending (T-PROTO-1)}}
    %v = memref.load %buf[%read, %c0] : memref<3x128xf32, 3>
    %from = arith.muli %k, %c128 : index
    tile.async_copy %src[%from] to %buf[%load, %c0], 16 bytes, cache = cg : memref<4096xf32> to memref<3x128xf32, 3>
    %g = tile.async_commit_group
    %rn = arith.addi %read, %c1 : index
    %rw = arith.cmpi eq, %rn, %c3 : index
    %nread = arith.select %rw, %c0, %rn : index
    %ln = arith.addi %load, %c1 : index
    %lw = arith.cmpi eq, %ln, %c3 : index
    %nload = arith.select %lw, %c0, %ln : index
    scf.yield %nread, %nload : index, index
  }
  tile.async_wait_group 0
  return
}

// -----

// An mbarrier ring of 4 whose (stage, phase) are carried: the phase flips by
// xori when the stage wraps.
func.func @carried_phase(%n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %false = arith.constant false
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
  scf.for %s = %c0 to %c4 step %c1 {
    tile.mbarrier_init %b[%s], %n : !tile.mbarrier<count = 4>
  }
  %r:2 = scf.for %k = %c0 to %c12 step %c1 iter_args(%s = %c0, %ph = %false) -> (index, i1) {
    tile.mbarrier_wait_parity %b[%s], %ph : !tile.mbarrier<count = 4>
    %next = arith.addi %s, %c1 : index
    %wrap = arith.cmpi eq, %next, %c4 : index
    %ns = arith.select %wrap, %c0, %next : index
    %nph = arith.xori %ph, %wrap : i1
    scf.yield %ns, %nph : index, i1
  }
  return
}

// -----

// The same ring flipping its phase one stage early (at stage 3, not on the
// wrap): the fourth wait, the first on barrier 3, waits for parity 1.
func.func @carried_phase_flips_early(%n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c12 = arith.constant 12 : index
  %false = arith.constant false
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
  scf.for %s = %c0 to %c4 step %c1 {
    tile.mbarrier_init %b[%s], %n : !tile.mbarrier<count = 4>
  }
  %r:2 = scf.for %k = %c0 to %c12 step %c1 iter_args(%s = %c0, %ph = %false) -> (index, i1) {
    // expected-warning @below {{waits for phase parity 1 of barrier 3, but this is wait 1 on it, which completes with parity 0: the phase bit must flip each time the ring returns to this barrier (T-PROTO-7)}}
    tile.mbarrier_wait_parity %b[%s], %ph : !tile.mbarrier<count = 4>
    %next = arith.addi %s, %c1 : index
    %wrap = arith.cmpi eq, %next, %c4 : index
    %ns = arith.select %wrap, %c0, %next : index
    %early = arith.cmpi eq, %next, %c3 : index
    %nph = arith.xori %ph, %early : i1
    scf.yield %ns, %nph : index, i1
  }
  return
}
