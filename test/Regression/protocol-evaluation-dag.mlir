// Index arithmetic that reuses values (each x_i = x_{i-1} xor x_{i-1}, 26
// levels) is evaluated once per value: the checker answers at once (it took
// 2^26 evaluations per thread before). All 32 threads arrive on a barrier
// that expects one arrival: 32 phases complete and the wait for parity 0 is
// one phase late.
// RUN: not tile-opt %s -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: waits for parity 0 of barrier 0 {{.*}} in phase 32, which never completes{{.*}}(T-PROTO-11)
!bars = !tile.mbarrier<count = 1>
gpu.module @kernels {
  gpu.func @chain() kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %tid = gpu.thread_id x
    %bar = tile.mbarrier_alloc : !bars
    %x0 = arith.xori %tid, %tid : index
    %x1 = arith.xori %x0, %x0 : index
    %x2 = arith.xori %x1, %x1 : index
    %x3 = arith.xori %x2, %x2 : index
    %x4 = arith.xori %x3, %x3 : index
    %x5 = arith.xori %x4, %x4 : index
    %x6 = arith.xori %x5, %x5 : index
    %x7 = arith.xori %x6, %x6 : index
    %x8 = arith.xori %x7, %x7 : index
    %x9 = arith.xori %x8, %x8 : index
    %x10 = arith.xori %x9, %x9 : index
    %x11 = arith.xori %x10, %x10 : index
    %x12 = arith.xori %x11, %x11 : index
    %x13 = arith.xori %x12, %x12 : index
    %x14 = arith.xori %x13, %x13 : index
    %x15 = arith.xori %x14, %x14 : index
    %x16 = arith.xori %x15, %x15 : index
    %x17 = arith.xori %x16, %x16 : index
    %x18 = arith.xori %x17, %x17 : index
    %x19 = arith.xori %x18, %x18 : index
    %x20 = arith.xori %x19, %x19 : index
    %x21 = arith.xori %x20, %x20 : index
    %x22 = arith.xori %x21, %x21 : index
    %x23 = arith.xori %x22, %x22 : index
    %x24 = arith.xori %x23, %x23 : index
    %x25 = arith.xori %x24, %x24 : index
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %one : !bars
    }
    gpu.barrier
    %t = tile.mbarrier_arrive %bar[%x25] : !bars -> !tile.mbarrier_token
    tile.mbarrier_wait_parity %bar[%c0], %false : !bars
    gpu.return
  }
}
