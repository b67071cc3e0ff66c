// RUN: tile-opt %s -tile-lower-tile-ops -canonicalize | FileCheck %s

// Seed 003's G2SCopyA: thread t copies 8 f16 at row t / 4, column 8 (t % 4)
// of each 32x32 tiler, one 16-byte cp.async.cg per tiler repeat (2 x 1).
// CHECK-LABEL: gpu.func @copy
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//       CHECK:   %[[T:.*]] = gpu.thread_id x
//       CHECK:   %[[ACTIVE:.*]] = arith.cmpi ult, %[[T]], %[[C128]] : index
//       CHECK:   scf.if %[[ACTIVE]] {
//       CHECK:     scf.for %[[RM:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:       tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}], 16 bytes, cache = cg : memref<?x?xf16> to memref<64x32xf16, 3>
gpu.module @kernels {
  gpu.func @copy(%a: memref<?x?xf16>, %i: index) kernel {
    %s = tile.shared_alloc : memref<64x32xf16, 3>
    tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<64x32xf16, 3>
    gpu.return
  }
}

// tile.tma_copy: thread (0, 0, 0) announces the box bytes (64 x 64 f16 =
// 8192) on the barrier, then starts the TMA load.
// CHECK-LABEL: gpu.func @tma_copy
//   CHECK-DAG:   %[[BYTES:.*]] = arith.constant 8192 : i32
//       CHECK:   %[[X:.*]] = gpu.thread_id x
//       CHECK:   arith.cmpi eq, %[[X]]
//       CHECK:   %[[Y:.*]] = gpu.thread_id y
//       CHECK:   %[[Z:.*]] = gpu.thread_id z
//       CHECK:   scf.if
//  CHECK-NEXT:     tile.mbarrier_arrive_expect_tx %[[BARS:.*]][%[[I:.*]]], %[[BYTES]]
//  CHECK-NEXT:     tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}, %[[BARS]][%[[I]]] :
//   CHECK-NOT:   tile.tma_copy
!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
gpu.module @tma {
  gpu.func @tma_copy(%d: !desc, %i: index) kernel {
    %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    tile.tma_copy %d[%i, %i] to %s, %bars[%i] : !desc, memref<64x64xf16, 3>, !tile.mbarrier<count = 2>
    gpu.return
  }
}

// tile.warp_specialize: warpgroup 0 (thread x / 128 == 0) lowers its
// registers and runs the producer; the others raise theirs and run the
// consumer with their index (warpgroup - 1).
// CHECK-LABEL: gpu.func @ws
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//       CHECK:   %[[T:.*]] = gpu.thread_id x
//       CHECK:   %[[WG:.*]] = arith.divui %[[T]], %[[C128]] : index
//       CHECK:   %[[P:.*]] = arith.cmpi eq, %[[WG]], %[[C0]] : index
//       CHECK:   scf.if %[[P]] {
//  CHECK-NEXT:     tile.setmaxnreg dec 40
//  CHECK-NEXT:     memref.store %{{.*}}, %{{.*}}[%{{.*}}]
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     tile.setmaxnreg inc 232
//  CHECK-NEXT:     %[[C:.*]] = arith.subi %[[WG]], %[[C1]] : index
//  CHECK-NEXT:     memref.store %{{.*}}, %{{.*}}[%[[C]]]
gpu.module @ws {
  gpu.func @ws(%out: memref<3xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    tile.warp_specialize producer(registers = 40) {
      memref.store %one, %out[%c2] : memref<3xf32>
    } consumers(2, registers = 232) {
    ^bb0(%consumer: index):
      memref.store %one, %out[%consumer] : memref<3xf32>
    }
    gpu.return
  }
}
