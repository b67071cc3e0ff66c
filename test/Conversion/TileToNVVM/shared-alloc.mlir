// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

// Each buffer is a private .shared byte array at the alignment its swizzle
// (or TMA's 128-byte minimum) needs, viewed as a static memref descriptor.
// CHECK-LABEL: gpu.module @kernels
//   CHECK-DAG:   llvm.mlir.global internal @__tile_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
//   CHECK-DAG:   llvm.mlir.global internal @__tile_shared_0() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<4096 x i8>
//   CHECK-DAG:   llvm.mlir.global internal @__tile_shared_1() {addr_space = 3 : i32, alignment = 512 : i64} : !llvm.array<2048 x i8>
//       CHECK:   llvm.mlir.addressof @__tile_shared : !llvm.ptr<3>
//       CHECK:   llvm.insertvalue
gpu.module @kernels {
  gpu.func @k() kernel {
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %b = tile.shared_alloc : memref<1024xf32, 3>
    %c = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<32x32xf16, 3>
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0, %c0] : memref<64x64xf16, 3>
    memref.store %v, %c[%c0, %c0] : memref<32x32xf16, 3>
    gpu.return
  }
}
