// tile.named_barrier_sync -> nvvm.barrier (bar.sync id, threads) and
// tile.named_barrier_arrive -> nvvm.barrier.arrive (bar.arrive id, threads):
// the id operand passes through (constant or computed), the thread count
// becomes an i32 constant.
// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: gpu.func @ping_pong(
//  CHECK-SAME: %[[WG:[a-z0-9]+]]: i32)
gpu.module @k {
  gpu.func @ping_pong(%wg: i32) kernel {
    // CHECK: %[[C9:.*]] = arith.constant 9 : i32
    %c9 = arith.constant 9 : i32
    // CHECK: %[[T256:.*]] = llvm.mlir.constant(256 : i32) : i32
    // CHECK-NEXT: nvvm.barrier id = %[[C9]] number_of_threads = %[[T256]]
    tile.named_barrier_sync %c9, 256
    // CHECK: %[[ID:.*]] = arith.addi %[[WG]], %[[C9]] : i32
    %id = arith.addi %c9, %wg : i32
    // CHECK-NEXT: %[[T128:.*]] = llvm.mlir.constant(128 : i32) : i32
    // CHECK-NEXT: nvvm.barrier.arrive id = %[[ID]] number_of_threads = %[[T128]]
    tile.named_barrier_arrive %id, 128
    // CHECK-NEXT: %[[T1024:.*]] = llvm.mlir.constant(1024 : i32) : i32
    // CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %[[T1024]]
    tile.named_barrier_sync %id, 1024
    // CHECK-NOT: tile.named_barrier
    gpu.return
  }
}
