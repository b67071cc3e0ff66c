// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

// Dynamic buffers are offsets into one 1024-byte-aligned extern .shared
// array, in program order at their alignments: 16 KB at 0, 100 bytes of f32
// at 16384, the b64-swizzled buffer at the next 512-byte boundary (16896).
// CHECK-LABEL: gpu.module @kernels
//       CHECK:   llvm.mlir.global external @__tile_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
//       CHECK:   gpu.func @k
//       CHECK:     %[[BASE:.*]] = llvm.mlir.addressof @__tile_dynamic_shared : !llvm.ptr<3>
//       CHECK:     llvm.getelementptr %[[BASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
//       CHECK:     llvm.getelementptr %{{.*}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
//       CHECK:     llvm.getelementptr %{{.*}}[16896] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
gpu.module @kernels {
  gpu.func @k() kernel {
    %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xf32, 3>
    %b = tile.shared_alloc dynamic : memref<25xf32, 3>
    %c = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b64>} : memref<16x16xf32, 3>
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0, %c0] : memref<64x64xf32, 3>
    memref.store %v, %b[%c0] : memref<25xf32, 3>
    memref.store %v, %c[%c0, %c0] : memref<16x16xf32, 3>
    gpu.return
  }
}
