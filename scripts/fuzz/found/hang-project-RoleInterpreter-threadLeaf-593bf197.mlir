// tile-opt fuzz reproducer (project)
// command: /work/main/build/bin/tile-opt /work/main/build/fuzz-ci/hang-project-RoleInterpreter-threadLeaf-593bf197.mlir --tile-to-ptx-pipeline=chip=sm_90a -o /dev/null
// signature: hang: (anon)::RoleInterpreter::threadLeaf <- evaluate <- evaluate
// what: timeout
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
    %c64 = arith.constant 64 : index
    %upper = arith.cmpi uge, %tid, %c64 : index
    %both = arith.andi %consumer, %upper : i1
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
