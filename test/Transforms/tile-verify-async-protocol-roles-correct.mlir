// Correct kernels the role protocol must simulate with nothing to report:
// collectives passed by a whole warp, reads ordered by a CTA barrier after
// one thread's wait, rings staged by a second leading index, 2-D blocks,
// block shapes from the launches, arrive_drop, roles by subgroup_id, and
// loop bounds computed from the warp index.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics

// Two warps each run ldmatrix on a stage and their lane 0 releases it: the aligned collective is passed by all the roles of a warp together (not pairwise).
!desc = !tile.tma_desc<memref<?x64xf16>, box = [32, 64]>
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 3 roles (1 from thread 0, 62 from thread 1, 1 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @coll(%d: !desc, %k: index, %out: memref<64xf16>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %bytes = arith.constant 4096 : i32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x64xf16, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %two : !bars
      }
    }
    gpu.barrier
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %lane, %c0 : index
    scf.for %t = %c0 to %k step %c1 {
      %s = arith.remui %t, %c2 : index
      %round = arith.divui %t, %c2 : index
      %r1 = arith.remui %round, %c2 : index
      %pfull = arith.cmpi eq, %r1, %c1 : index
      %pempty = arith.cmpi eq, %r1, %c0 : index
      scf.if %first {
        tile.mbarrier_wait_parity %empty[%s], %pempty : !bars
        %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
        %row = arith.muli %t, %c32 : index
        tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf16, 3>, !bars
      }
      tile.mbarrier_wait_parity %full[%s], %pfull : !bars
      %v = tile.ldmatrix %ring[%s, %lane, %c0] x4 : memref<2x32x64xf16, 3> -> vector<4x2xf16>
      // Each warp's lane 0 releases the stage after the warp's ldmatrix.
      scf.if %leader {
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
      }
    }
    gpu.return
  }
}

// -----

// Thread 0 waits on the barrier, then gpu.barrier, then every thread reads: the bar.sync orders the reads after thread 0's wait.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 2 roles (1 from thread 0, 63 from thread 1) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @syncread(%d: !desc, %out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %bytes = arith.constant 8192 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %buf = tile.shared_alloc : memref<32x64xf32, 3>
    %bar = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %one : !bars
    }
    gpu.barrier
    scf.if %first {
      %tok = tile.mbarrier_arrive_expect_tx %bar[%c0], %bytes : !bars -> !tile.mbarrier_token
      tile.tma_load %d[%c0, %c0] to %buf, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bars
      tile.mbarrier_wait_parity %bar[%c0], %false : !bars
    }
    // Thread 0 waited; the CTA barrier publishes the tile to every thread.
    gpu.barrier
    %row = arith.remui %tid, %c32 : index
    %v = memref.load %buf[%row, %c0] : memref<32x64xf32, 3>
    memref.store %v, %out[%tid] : memref<64xf32>
    gpu.return
  }
}

// -----

// A ring whose stage is the second of two leading indices (%ring[%c0, %s]): stages are keyed by all of a copy's leading indices.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  // {{role protocol: 3 roles (1 from thread 0, 31 from thread 1, 128 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
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
    %ring = tile.shared_alloc : memref<1x3x32x64xf32, 3>
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
          tile.tma_load %d[%row, %c0] to %ring[%c0, %s], %full[%s] : !desc, memref<1x3x32x64xf32, 3>, !bars
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
        %v = memref.load %ring[%c0, %s, %row, %c0] : memref<1x3x32x64xf32, 3>
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

// A 32x2 block: `thread_id x == 0` runs in one thread per row (2 threads), which is what the barrier expects (T-PROTO-8 counts blockDim.y * z).
!bars = !tile.mbarrier<count = 1>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-remark @below {{role protocol: 4 roles (1 from thread 0, 31 from thread 1, 1 from thread 32, 31 from thread 33) simulated with sample values 1, 200, 520: nothing to report}}
    gpu.func @dims() kernel {
      %c0 = arith.constant 0 : index
      %two = arith.constant 2 : i32
      %false = arith.constant false
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bar = tile.mbarrier_alloc : !bars
      %x0 = arith.cmpi eq, %tx, %c0 : index
      %y0 = arith.cmpi eq, %ty, %c0 : index
      %first = arith.andi %x0, %y0 : i1
      scf.if %first {
        tile.mbarrier_init %bar[%c0], %two : !bars
      }
      gpu.barrier
      // Thread x == 0 of each of the two rows arrives: 2 arrivals.
      scf.if %x0 {
        %t = tile.mbarrier_arrive %bar[%c0] : !bars -> !tile.mbarrier_token
      }
      tile.mbarrier_wait_parity %bar[%c0], %false : !bars
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@dims blocks in (%c1, %c1, %c1) threads in (%c32, %c2, %c1)
    return
  }
}

// -----

// The same with the block shape from the launches instead of known_block_size.
!bars = !tile.mbarrier<count = 1>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-remark @below {{role protocol: 4 roles (1 from thread 0, 31 from thread 1, 1 from thread 32, 31 from thread 33) simulated with sample values 1, 200, 520: nothing to report}}
    gpu.func @dims() kernel {
      %c0 = arith.constant 0 : index
      %two = arith.constant 2 : i32
      %false = arith.constant false
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bar = tile.mbarrier_alloc : !bars
      %x0 = arith.cmpi eq, %tx, %c0 : index
      %y0 = arith.cmpi eq, %ty, %c0 : index
      %first = arith.andi %x0, %y0 : i1
      scf.if %first {
        tile.mbarrier_init %bar[%c0], %two : !bars
      }
      gpu.barrier
      // Thread x == 0 of each of the two rows arrives: 2 arrivals.
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %c1 step %c1 {
        scf.if %x0 {
          %t = tile.mbarrier_arrive %bar[%c0] : !bars -> !tile.mbarrier_token
        }
      }
      tile.mbarrier_wait_parity %bar[%c0], %false : !bars
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @kernels::@dims blocks in (%c1, %c1, %c1) threads in (%c32, %c2, %c1)
    return
  }
}

// -----

// arrive_drop that removes the last expected arrival completes the phase.
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 3 roles (1 from thread 0, 62 from thread 1, 1 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @drop(%out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %two = arith.constant 2 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %bar = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %two : !bars
    }
    gpu.barrier
    %lane = arith.remui %tid, %c32 : index
    %leader = arith.cmpi eq, %lane, %c0 : index
    scf.if %leader {
      %t = tile.mbarrier_arrive_drop %bar[%c0] : !bars -> !tile.mbarrier_token
    }
    tile.mbarrier_wait_parity %bar[%c0], %false : !bars
    gpu.return
  }
}

// -----

// Roles chosen by gpu.subgroup_id (the warp index), not a sample value.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  // {{role protocol: 3 roles (1 from thread 0, 31 from thread 1, 128 from thread 32) simulated with sample values 1, 200, 520: nothing to report}}
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
    %warp = gpu.subgroup_id : index
    %producer = arith.cmpi eq, %warp, %c0 : index
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

// Consumer warps take alternate tiles (loop bounds computed from the warp index): roles split on loop bounds.
!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bars = !tile.mbarrier<count = 2>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 6 roles (1 from thread 0, 31 from thread 1, 1 from thread 32, 31 from thread 33, 1 from thread 64, 31 from thread 65) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @splitk(%d: !desc, %k: index, %out: memref<96xf32>) kernel
      attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %c32i = arith.constant 32 : i32
    %bytes = arith.constant 8192 : i32
    %true = arith.constant true
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %ring = tile.shared_alloc : memref<2x32x64xf32, 3>
    %full = tile.mbarrier_alloc : !bars
    %empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c2 step %c1 {
        tile.mbarrier_init %full[%s], %one : !bars
        tile.mbarrier_init %empty[%s], %c32i : !bars
      }
    }
    gpu.barrier
    %warp = arith.divui %tid, %c32 : index
    %producer = arith.cmpi eq, %warp, %c0 : index
    scf.if %producer {
      scf.if %first {
        scf.for %t = %c0 to %k step %c1 {
          %s = arith.remui %t, %c2 : index
          %round = arith.divui %t, %c2 : index
          %r1 = arith.remui %round, %c2 : index
          %ph = arith.cmpi eq, %r1, %c0 : index
          tile.mbarrier_wait_parity %empty[%s], %ph : !bars
          %tok = tile.mbarrier_arrive_expect_tx %full[%s], %bytes : !bars -> !tile.mbarrier_token
          %row = arith.muli %t, %c32 : index
          tile.tma_load %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<2x32x64xf32, 3>, !bars
        }
      }
    } else {
      // Consumer warp w (1 or 2) takes the tiles t = w - 1 (mod 2): stage w - 1.
      %lane = arith.remui %tid, %c32 : index
      %leader = arith.cmpi eq, %lane, %c0 : index
      %start = arith.subi %warp, %c1 : index
      %sum = scf.for %t = %start to %k step %c2 iter_args(%acc = %zero) -> (f32) {
        %s = arith.remui %t, %c2 : index
        %round = arith.divui %t, %c2 : index
        %r1 = arith.remui %round, %c2 : index
        %ph = arith.cmpi eq, %r1, %c1 : index
        tile.mbarrier_wait_parity %full[%s], %ph : !bars
        %v = memref.load %ring[%s, %lane, %c0] : memref<2x32x64xf32, 3>
        %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
        %a = arith.addf %acc, %v : f32
        scf.yield %a : f32
      }
      memref.store %sum, %out[%tid] : memref<96xf32>
    }
    gpu.return
  }
}
