// Found by scripts/fuzz: a known_block_size of 2^31 x 1 x 255 threads made
// the aligned-uniformity check evaluate its conditions in every one of
// them (a hang). A block shape no launch can have is not analyzed (the
// protocol check ends), and the pipeline reports it (T-TARGET-8).
// RUN: tile-opt %s -tile-verify-async-protocol | FileCheck %s
// RUN: not tile-opt %s --tile-to-ptx-pipeline=chip=sm_90a 2>&1 | FileCheck %s --check-prefix=TARGET
// CHECK: gpu.func @uniform
// TARGET: error: 'gpu.func' op has a known block size of 2147483647 x 1 x 255, which no launch can have: each extent at least 1 and at most 1024, 1024, 64 (x, y, z), at most 1024 threads in all (T-TARGET-8)

gpu.module @kernels {
  gpu.func @uniform(%n: index) kernel
      attributes {known_block_size = array<i32: 2147483647, 1, 255>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %tid = gpu.thread_id x
    %wg = arith.divui %tid, %c128 : index
    %consumer = arith.cmpi eq, %wg, %c1 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %consumer {
      scf.for %j = %c0 to %n step %c1 {
        %later = arith.cmpi ugt, %j, %c0 : index
        scf.if %later {
          tile.wgmma_wait_group 0
        }
      }
    } else {
      tile.wgmma_wait_group 2147483647
      scf.if %first {
        gpu.printf "thread 0\n"
      }
    }
    gpu.return
  }
}
