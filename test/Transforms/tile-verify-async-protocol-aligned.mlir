// T-PROTO-13: an aligned instruction (PTX .sync.aligned: wgmma, mma.sync,
// ldmatrix, stmatrix, named barriers) under a condition that differs between
// threads of its warp (warpgroup for wgmma): those threads hang. Conditions
// uniform over the unit (a warpgroup's role, a loop count) pass; warpgroups
// that never reach the op are not the ones named.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -verify-diagnostics

// The second warpgroup's wgmma wait on both arms of a "lane 0 releases"
// branch: each arm is its own instruction, so the warpgroup's threads wait
// at different ones.
gpu.module @kernels {
  gpu.func @split_wait(%n: index) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %consumer = arith.cmpi ugt, %wg, %c0 : index
    %lane = arith.remui %tid, %c128 : index
    %signals = arith.cmpi eq, %lane, %c0 : index
    %later = arith.cmpi ugt, %n, %c0 : index
    %release = arith.andi %later, %signals : i1
    scf.if %consumer {
      // expected-note @below {{a part of the condition (true in thread 128, false in thread 129)}}
      scf.if %release {
        // expected-error @below {{an aligned instruction under a condition that differs between threads 128 and 129 of one warpgroup: all 128 must execute the same instruction (PTX .sync.aligned), or they hang (T-PROTO-13)}}
        tile.wgmma_wait_group 0
      } else {
        tile.wgmma_wait_group 0
      }
    }
    gpu.return
  }
}

// -----

// A named barrier that half a warp arrives at.
gpu.module @kernels {
  gpu.func @half_warp(%n: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %id = arith.constant 9 : i32
    %tid = gpu.thread_id x
    %lane = arith.remui %tid, %c32 : index
    %low = arith.cmpi ult, %lane, %c16 : index
    // expected-note @below {{the condition (true in thread 0, false in thread 16)}}
    scf.if %low {
      // expected-error @below {{an aligned instruction under a condition that differs between threads 0 and 16 of one warp: all 32 must execute the same instruction (PTX .sync.aligned), or they hang (T-PROTO-13)}}
      tile.named_barrier_arrive %id, 128
    }
    gpu.return
  }
}

// -----

// Uniform: wgmma waits by warpgroup (tid / 128, also as a conjunction whose
// parts alone are not: warpgroup 1 and tid >= 64), under a loop-carried
// condition, and thread 0's work beside them.
gpu.module @kernels {
  gpu.func @uniform(%n: index) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %consumer = arith.cmpi eq, %wg, %c1 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    %c64 = arith.constant 64 : index
    %upper = arith.cmpi uge, %tid, %c64 : index
    %both = arith.andi %consumer, %upper : i1
    scf.if %both {
      tile.wgmma_wait_group 0
    }
    scf.if %consumer {
      scf.for %j = %c0 to %n step %c1 {
        %later = arith.cmpi ugt, %j, %c0 : index
        scf.if %later {
          tile.wgmma_wait_group 0
        }
      }
    } else {
      tile.wgmma_wait_group 0
      scf.if %first {
        gpu.printf "thread 0\n"
      }
    }
    gpu.return
  }
}
