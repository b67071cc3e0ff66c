// A tensor map that breaks a cuTensorMapEncodeTiled rule fails on the host,
// before the driver is called, with the rule and the values named (the driver
// itself would only say CUDA_ERROR_INVALID_VALUE). Dimensions are numbered
// as in the memref, outermost first. No GPU is needed: the
// module has no kernel, and the check runs before the driver is loaded.
//
// RUN: split-file %s %t
// RUN: not tile-run %t/stride.mlir 2>&1 | FileCheck %s --check-prefix=STRIDE
// STRIDE: tile-runtime: cannot encode tensor map: the stride of dimension 0 is 200 bytes; it must be a multiple of 16 and less than 2^40 (T-TMA-9); rank 2, f16, dims [64, 100], strides [200] bytes, box [64, 64], swizzle none (outermost dimension first)
// RUN: not tile-run %t/box.mlir 2>&1 | FileCheck %s --check-prefix=BOX
// BOX: tile-runtime: cannot encode tensor map: box dimension 0 is 300, not in [1, 256] (T-TMA-3); rank 2, f16, dims [512, 64], strides [128] bytes, box [300, 64]
// RUN: not tile-run %t/span.mlir 2>&1 | FileCheck %s --check-prefix=SPAN
// RUN: not tile-run %t/inner.mlir 2>&1 | FileCheck %s --check-prefix=INNER
// SPAN: tile-runtime: cannot encode tensor map: the inner box dimension spans 256 bytes, more than the 128-byte span of swizzle 128B (T-TMA-6)
// INNER: tile-runtime: cannot encode tensor map: the innermost stride is 2 elements; TMA needs 1 (T-TMA-9); rank 2, f16, dims [64, 64], strides [256] bytes

//--- stride.mlir
// Rows of 100 f16 are 200 bytes apart: not a multiple of 16.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @main() {
  %c64 = arith.constant 64 : index
  %m = memref.alloc() : memref<64x100xf16>
  %u = memref.cast %m : memref<64x100xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !desc
  return
}

//--- box.mlir
// A box of 300 rows, given at run time.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @main() {
  %c64 = arith.constant 64 : index
  %c300 = arith.constant 300 : index
  %m = memref.alloc() : memref<512x64xf16>
  %u = memref.cast %m : memref<512x64xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c300, %c64] : memref<*xf16> -> !desc
  return
}

//--- span.mlir
// 128 f16 (256 bytes) per box row under the 128-byte swizzle.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
func.func @main() {
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m = memref.alloc() : memref<64x256xf16>
  %u = memref.cast %m : memref<64x256xf16> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c128] : memref<*xf16> -> !desc
  return
}

//--- inner.mlir
// Every other column: an innermost stride of 2 elements.
!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @main() {
  %c64 = arith.constant 64 : index
  %m = memref.alloc() : memref<64x128xf16>
  %v = memref.subview %m[0, 0] [64, 64] [1, 2] : memref<64x128xf16> to memref<64x64xf16, strided<[128, 2]>>
  %u = memref.cast %v : memref<64x64xf16, strided<[128, 2]>> to memref<*xf16>
  %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xf16> -> !desc
  return
}
