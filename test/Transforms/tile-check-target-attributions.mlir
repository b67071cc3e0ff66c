// T-TARGET-6: a kernel's workgroup and private attributions have the
// identity layout (upstream's gpu.func lowering allocates them densely).
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target

gpu.module @kernels {
  // expected-error @below {{'gpu.func' op workgroup attribution 0 'memref<32x8xf32, affine_map<(d0, d1) -> (d1, d0)>, 3>' has a non-identity layout, which the LLVM lowering cannot allocate (it reserves the shape's elements densely); declare it with the identity layout 'memref<32x8xf32, 3>' and take a strided view of it inside the kernel, e.g. with memref.transpose or memref.subview (T-TARGET-6)}}
  gpu.func @transposed() workgroup(%s: memref<32x8xf32, affine_map<(d0, d1) -> (d1, d0)>, 3>) kernel {
    gpu.return
  }
}

// -----

// A strided layout is rejected too: its row stride would address past the
// 256 elements the lowering reserves.
gpu.module @kernels {
  // expected-error @below {{'gpu.func' op workgroup attribution 1 'memref<32x8xf32, strided<[16, 1]>, 3>' has a non-identity layout, which the LLVM lowering cannot allocate (it reserves the shape's elements densely); declare it with the identity layout 'memref<32x8xf32, 3>' and take a strided view of it inside the kernel, e.g. with memref.transpose or memref.subview (T-TARGET-6)}}
  gpu.func @strided() workgroup(%a: memref<64xf32, 3>, %s: memref<32x8xf32, strided<[16, 1]>, 3>) kernel {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{'gpu.func' op private attribution 0 'memref<4xf32, strided<[1], offset: 2>, 5>' has a non-identity layout, which the LLVM lowering cannot allocate (it reserves the shape's elements densely); declare it with the identity layout 'memref<4xf32, 5>' and take a strided view of it inside the kernel, e.g. with memref.transpose or memref.subview (T-TARGET-6)}}
  gpu.func @offset() private(%p: memref<4xf32, strided<[1], offset: 2>, 5>) kernel {
    gpu.return
  }
}

// -----

// Identity layouts, and views of them inside the kernel, are fine.
gpu.module @kernels {
  gpu.func @view() workgroup(%s: memref<8x32xf32, 3>) private(%p: memref<4xf32, 5>) kernel {
    %t = memref.transpose %s (d0, d1) -> (d1, d0) : memref<8x32xf32, 3> to memref<32x8xf32, strided<[1, 32]>, 3>
    gpu.return
  }
}
