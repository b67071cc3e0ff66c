// RUN: tile-opt %s -convert-tile-to-nvvm="debug-wait-limit=1000" | FileCheck %s
// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s --check-prefix=PLAIN

// A bounded wait counts try_wait rounds and, past the limit, reports the
// barrier, phase parity, block, thread and source location, then traps.
// CHECK-LABEL: gpu.func @bounded_wait(
//       CHECK:   %[[ZERO:.*]] = llvm.mlir.constant(0 : i64) : i64
//       CHECK:   scf.while (%[[N:.*]] = %[[ZERO]]) : (i64) -> i64 {
//       CHECK:     nvvm.mbarrier.try_wait
//       CHECK:     %[[ROUNDS:.*]] = llvm.add %[[N]], %{{.*}} : i64
//       CHECK:     %[[LIMIT:.*]] = llvm.mlir.constant(1000 : i64) : i64
//       CHECK:     llvm.icmp "uge" %[[ROUNDS]], %[[LIMIT]] : i64
//       CHECK:     scf.if
//       CHECK:       gpu.printf "tile: mbarrier_wait_parity gave up after %lu rounds: barrier at shared address 0x%lx, waiting for phase parity %u, block %lu, thread %lu, {{.*}}debug-wait-limit.mlir
//       CHECK:       llvm.intr.trap
//       CHECK:     scf.condition(%{{.*}}) %[[ROUNDS]] : i64
// PLAIN-LABEL: gpu.func @bounded_wait(
//   PLAIN-NOT:   gpu.printf
//       PLAIN:   scf.while : () -> () {
gpu.module @kernels {
  gpu.func @bounded_wait(%n: i32, %p: i1) kernel {
    %c0 = arith.constant 0 : index
    %b = tile.mbarrier_alloc : !tile.mbarrier
    tile.mbarrier_init %b[%c0], %n : !tile.mbarrier
    tile.mbarrier_wait_parity %b[%c0], %p : !tile.mbarrier
    gpu.return
  }
}
