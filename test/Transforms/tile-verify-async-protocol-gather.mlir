// Rings that cp.async copies fill, completed on mbarriers
// (cp.async.mbarrier.arrive.noinc: each copying thread's arrival counts
// when its copies land): a copy fills its stage with the phase its
// thread's next cp.async arrive is counted in, and reads of the stage are
// checked against it as against a TMA copy's (T-PROTO-12). A warp gathers
// a stage, a thread a row; the other warp's threads read it after the full
// wait and release it. Correct; the reader without its wait; a producer
// arriving before its copy (the copy then belongs to the next arrival: the
// first phase completes with no copy into the stage).
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null

!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 3 roles (1 from thread 0, 31 from thread 1, 32 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @gather(%g: memref<?x8xf16>, %k: index, %out: memref<64xf16>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %gatherers = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x8xf16, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %gatherers : !bars
        tile.mbarrier_init %empty[%s], %gatherers : !bars
      }
    }
    gpu.barrier
    %lane = arith.remui %tid, %c32 : index
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.for %t = %c0 to %k step %c1 {
      %s = arith.remui %t, %c2 : index
      %round = arith.divui %t, %c2 : index
      %r1 = arith.remui %round, %c2 : index
      %pfull = arith.cmpi eq, %r1, %c1 : index
      %pempty = arith.cmpi eq, %r1, %c0 : index
      scf.if %producer {
        // Thread t copies row t of the stage; its arrival (noinc: one of
        // the 32) comes when its copy lands.
        tile.mbarrier_wait_parity %empty[%s], %pempty : !bars
        %row = arith.muli %t, %c32 : index
        %src = arith.addi %row, %lane : index
        tile.async_copy %g[%src, %c0] to %ring[%s, %lane, %c0], 16 bytes, cache = cg : memref<?x8xf16> to memref<2x32x8xf16, 3>
        tile.async_copy_mbarrier_arrive %full[%s] noinc : !bars
      } else {
        tile.mbarrier_wait_parity %full[%s], %pfull : !bars
        %v = memref.load %ring[%s, %lane, %c0] : memref<2x32x8xf16, 3>
        memref.store %v, %out[%lane] : memref<64xf16>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      }
    }
    tile.async_wait_all
    gpu.return
  }
}

// -----

!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @no_wait(%g: memref<?x8xf16>, %k: index, %out: memref<64xf16>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %gatherers = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x8xf16, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %gatherers : !bars
        tile.mbarrier_init %empty[%s], %gatherers : !bars
      }
    }
    gpu.barrier
    %lane = arith.remui %tid, %c32 : index
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.for %t = %c0 to %k step %c1 {
      %s = arith.remui %t, %c2 : index
      %round = arith.divui %t, %c2 : index
      %r1 = arith.remui %round, %c2 : index
      %pfull = arith.cmpi eq, %r1, %c1 : index
      %pempty = arith.cmpi eq, %r1, %c0 : index
      scf.if %producer {
        // Thread t copies row t of the stage; its arrival (noinc: one of
        // the 32) comes when its copy lands.
        tile.mbarrier_wait_parity %empty[%s], %pempty : !bars
        %row = arith.muli %t, %c32 : index
        %src = arith.addi %row, %lane : index
        // expected-note @below {{the copy}}
        // expected-note @below {{copy issued here}}
        tile.async_copy %g[%src, %c0] to %ring[%s, %lane, %c0], 16 bytes, cache = cg : memref<?x8xf16> to memref<2x32x8xf16, 3>
        tile.async_copy_mbarrier_arrive %full[%s] noinc : !bars
      } else {
        // expected-error @+3 {{reads stage 0 (the 32 threads of thread 32's role) written by a copy that completes phase 0 of barrier 0, which this role never waited for: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
        // (The thread analysis sees the copy still open there as well.)
        // expected-error @+1 {{reads shared memory that a cp.async group may still be writing (stage 0): the copy is not committed and waited for yet (T-PROTO-1)}}
        %v = memref.load %ring[%s, %lane, %c0] : memref<2x32x8xf16, 3>
        memref.store %v, %out[%lane] : memref<64xf16>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      }
    }
    tile.async_wait_all
    gpu.return
  }
}

// -----

!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  gpu.func @arrive_first(%g: memref<?x8xf16>, %k: index, %out: memref<64xf16>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %gatherers = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x8xf16, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %gatherers : !bars
        tile.mbarrier_init %empty[%s], %gatherers : !bars
      }
    }
    gpu.barrier
    %lane = arith.remui %tid, %c32 : index
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.for %t = %c0 to %k step %c1 {
      %s = arith.remui %t, %c2 : index
      %round = arith.divui %t, %c2 : index
      %r1 = arith.remui %round, %c2 : index
      %pfull = arith.cmpi eq, %r1, %c1 : index
      %pempty = arith.cmpi eq, %r1, %c0 : index
      scf.if %producer {
        // Thread t copies row t of the stage; its arrival (noinc: one of
        // the 32) comes when its copy lands.
        tile.mbarrier_wait_parity %empty[%s], %pempty : !bars
        %row = arith.muli %t, %c32 : index
        %src = arith.addi %row, %lane : index
        tile.async_copy_mbarrier_arrive %full[%s] noinc : !bars
        tile.async_copy %g[%src, %c0] to %ring[%s, %lane, %c0], 16 bytes, cache = cg : memref<?x8xf16> to memref<2x32x8xf16, 3>
      } else {
        tile.mbarrier_wait_parity %full[%s], %pfull : !bars
        // expected-error @+1 {{reads stage 0 (the 32 threads of thread 32's role) that copies fill before any copy into it completed: its wait returned too early (T-PROTO-12)}}
        %v = memref.load %ring[%s, %lane, %c0] : memref<2x32x8xf16, 3>
        memref.store %v, %out[%lane] : memref<64xf16>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      }
    }
    tile.async_wait_all
    gpu.return
  }
}

// -----

// A kernel that also completes cp.async copies by wait groups (a tile the
// consumers copy for themselves): its gathered ring is left to the thread
// protocol, and the wait-group tile is not taken for a ring's stage.
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 3 roles (1 from thread 0, 31 from thread 1, 32 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @mixed(%g: memref<?x8xf16>, %k: index, %out: memref<64xf16>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %gatherers = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x8xf16, 3>
    %tile = tile.shared_alloc : memref<32x8xf16, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %gatherers : !bars
        tile.mbarrier_init %empty[%s], %gatherers : !bars
      }
    }
    gpu.barrier
    %lane = arith.remui %tid, %c32 : index
    %producer = arith.cmpi ult, %tid, %c32 : index
    scf.for %t = %c0 to %k step %c1 {
      %s = arith.remui %t, %c2 : index
      %round = arith.divui %t, %c2 : index
      %r1 = arith.remui %round, %c2 : index
      %pfull = arith.cmpi eq, %r1, %c1 : index
      %pempty = arith.cmpi eq, %r1, %c0 : index
      scf.if %producer {
        // Thread t copies row t of the stage; its arrival (noinc: one of
        // the 32) comes when its copy lands.
        tile.mbarrier_wait_parity %empty[%s], %pempty : !bars
        %row = arith.muli %t, %c32 : index
        %src = arith.addi %row, %lane : index
        tile.async_copy %g[%src, %c0] to %ring[%s, %lane, %c0], 16 bytes, cache = cg : memref<?x8xf16> to memref<2x32x8xf16, 3>
        tile.async_copy_mbarrier_arrive %full[%s] noinc : !bars
        // (An empty group: both branches commit one.)
        %none = tile.async_commit_group
      } else {
        // A tile of its own by cp.async, completed by a wait group.
        tile.async_copy %g[%lane, %c0] to %tile[%lane, %c0], 16 bytes, cache = cg : memref<?x8xf16> to memref<32x8xf16, 3>
        %grp = tile.async_commit_group
        tile.async_wait_group 0
        %w = memref.load %tile[%lane, %c0] : memref<32x8xf16, 3>
        memref.store %w, %out[%lane] : memref<64xf16>
        tile.mbarrier_wait_parity %full[%s], %pfull : !bars
        %v = memref.load %ring[%s, %lane, %c0] : memref<2x32x8xf16, 3>
        memref.store %v, %out[%lane] : memref<64xf16>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      }
    }
    tile.async_wait_all
    gpu.return
  }
}

