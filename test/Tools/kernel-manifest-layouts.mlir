// The kernel manifest takes memref parameters whose layout is strided with
// non-negative strides and offset (launchers fill their descriptors from an
// array's strides); others are rejected naming the parameter.
//
// RUN: not tile-opt %s --split-input-file --tile-kernel-manifest 2>&1 | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK: error: kernel parameter 1 has type 'memref<8xf32, affine_map<(d0) -> (d0 mod 4)>>', whose layout is not strided with non-negative strides and offset: launchers pass memrefs as descriptors of such layouts (use the identity layout or strided<[...], offset: ...>) (T-LAUNCH-1)
    gpu.func @modulo(%a: memref<?xf32>, %b: memref<8xf32, affine_map<(d0) -> (d0 mod 4)>>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // CHECK: error: kernel parameter 0 has type 'memref<4x4xf32, strided<[-4, 1], offset: 12>>', whose layout is not strided with non-negative strides and offset
    gpu.func @reversed(%a: memref<4x4xf32, strided<[-4, 1], offset: 12>>) kernel {
      gpu.return
    }
  }
}
