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
