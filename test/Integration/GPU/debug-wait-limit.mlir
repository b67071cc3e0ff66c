// The watchdog test's hang, lowered with debug-wait-limit: the stuck wait
// gives up, prints what it waited for and traps, and the runtime names the
// kernel — a diagnosis in well under a second instead of a hang. (The init
// count arrives as a kernel argument; as a constant, the protocol checker
// would reject the kernel at compile time, T-PROTO-8.)
//
// RUN: not tile-run %s --debug-wait-limit=100000 --timeout=30 2>&1 | FileCheck %s
// CHECK-DAG: tile: mbarrier_wait_parity gave up after 100000 rounds: barrier at shared address 0x{{[0-9a-f]+}}, waiting for phase parity 0, block 0, thread 0, {{.*}}debug-wait-limit.mlir
// CHECK-DAG: tile-runtime: {{.*}}failed: {{CUDA_ERROR_[A-Z_]+}} {{.*}}last kernel launched: 'never_done'

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @never_done(%two: i32) kernel {
      %c0 = arith.constant 0 : index
      %phase = arith.constant false
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      tile.mbarrier_init %bars[%c0], %two : !tile.mbarrier
      %t = tile.mbarrier_arrive %bars[%c0] : !tile.mbarrier -> !tile.mbarrier_token
      tile.mbarrier_wait_parity %bars[%c0], %phase : !tile.mbarrier
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %two = arith.constant 2 : i32
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@never_done blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%two : i32)
    gpu.wait [%t1]
    return
  }
}
