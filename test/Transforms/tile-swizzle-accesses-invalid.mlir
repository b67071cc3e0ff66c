// T-SWZ-6: accesses the swizzle would split, and uses that cannot apply it.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-swizzle-accesses

gpu.module @k {
  gpu.func @too_wide(%i: index) kernel {
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    // expected-error @below {{accesses 32 bytes of a buffer with swizzle #tile.swizzle<b128>, whose unit is 16 bytes: the swizzle would split the access (T-SWZ-6)}}
    %w = vector.load %buf[%i, %i] : memref<16x32xf32, 3>, vector<8xf32>
    gpu.return
  }
}

// -----

// CuTe's Swizzle<3, 3, 3> on f16 elements is <3, 4, 3> on bytes; an
// element-wise swizzle <2, 0, 3> on bytes would tear a 4-byte float apart.
gpu.module @k {
  gpu.func @sub_element(%i: index) kernel {
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<2, 0, 3>} : memref<16x32xf32, 3>
    // expected-error @below {{accesses 4 bytes of a buffer with swizzle #tile.swizzle<2, 0, 3>, whose unit is 1 bytes}}
    %v = memref.load %buf[%i, %i] : memref<16x32xf32, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @view(%i: index) kernel {
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<16x16xf32, 3>
    // expected-error @below {{'memref.subview' op uses a buffer with swizzle #tile.swizzle<b64> but cannot apply the swizzle to its accesses; index the buffer directly with memref/vector loads and stores, ldmatrix/stmatrix, tile.async_copy or TMA ops (T-SWZ-6)}}
    %sub = memref.subview %buf[0, 0] [8, 16] [1, 1] : memref<16x16xf32, 3> to memref<8x16xf32, strided<[16, 1]>, 3>
    gpu.return
  }
}

// -----

// T-SWZ-6: swizzled buffers take 1-D vector accesses only.
gpu.module @k {
  gpu.func @vector_2d(%i: index) kernel {
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    // expected-error @+1 {{'vector.load' op accesses a buffer with swizzle #tile.swizzle<b128> with a multi-dimensional vector, which the swizzle would split (T-SWZ-6)}}
    %v = vector.load %buf[%i, %i] : memref<16x32xf32, 3>, vector<2x2xf32>
    gpu.return
  }
}
