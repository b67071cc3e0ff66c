// RUN: tile-opt %s -split-input-file -tile-swizzle-accesses | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-swizzle-accesses -canonicalize | FileCheck %s --check-prefix=FOLD

// Generic accesses of a swizzled buffer go through a flat view at the
// swizzled element: byte offset x -> x ^ ((x & 0x380) >> 3) for b128.
// CHECK-LABEL: gpu.func @swizzled
//       CHECK:   %[[BUF:.*]] = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[BUF]] {{\[}}[0, 1]] : memref<16x32xf32, 3> into memref<512xf32, 3>
//       CHECK:   arith.andi %{{.*}}, %{{.*}} : index
//       CHECK:   arith.shrui
//       CHECK:   arith.xori
//       CHECK:   %[[I:.*]] = arith.divui
//       CHECK:   memref.load %[[FLAT]][%[[I]]] : memref<512xf32, 3>
//       CHECK:   memref.store %{{.*}}, %[[FLAT]][%{{.*}}] : memref<512xf32, 3>
//       CHECK:   vector.load %[[FLAT]][%{{.*}}] : memref<512xf32, 3>, vector<4xf32>
//       CHECK:   tile.async_copy %{{.*}}[%{{.*}}] to %[[FLAT]][%{{.*}}], 16 bytes
// TMA ops keep the logical buffer: the hardware swizzles.
//       CHECK:   tile.tma_store %[[BUF]] to
// ldmatrix: each thread's 16-byte row address follows the swizzle.
//       CHECK:   tile.ldmatrix %{{.*}}[%{{.*}}] x4 : memref<1024xf16, 3>
// Constant indices fold to the swizzled element: (1, 0) is byte 128, which
// b128 sends to 128 ^ 16 = 144, element 36.
// FOLD-LABEL: gpu.func @swizzled
//       FOLD:   %[[C36:.*]] = arith.constant 36 : index
//       FOLD:   memref.load %{{.*}}[%[[C36]]] : memref<512xf32, 3>
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @swizzled(%d: !d, %g: memref<1024xf32>, %i: index, %j: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    %v = memref.load %buf[%c1, %c0] : memref<16x32xf32, 3>
    memref.store %v, %buf[%i, %j] : memref<16x32xf32, 3>
    %w = vector.load %buf[%i, %j] : memref<16x32xf32, 3>, vector<4xf32>
    tile.async_copy %g[%i] to %buf[%i, %j], 16 bytes, cache = cg : memref<1024xf32> to memref<16x32xf32, 3>
    tile.tma_store %buf to %d[%c0, %c0] : memref<16x32xf32, 3>, !d
    %h = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x64xf16, 3>
    %frag = tile.ldmatrix %h[%i, %j] x4 : memref<16x64xf16, 3> -> vector<4x2xf16>
    gpu.return
  }
}

// -----

// Unswizzled buffers are left alone.
// CHECK-LABEL: gpu.func @plain
//   CHECK-NOT:   memref.collapse_shape
//       CHECK:   memref.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x32xf32, 3>
gpu.module @k {
  gpu.func @plain(%i: index) kernel {
    %buf = tile.shared_alloc : memref<16x32xf32, 3>
    %v = memref.load %buf[%i, %i] : memref<16x32xf32, 3>
    gpu.return
  }
}
