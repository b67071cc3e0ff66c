// T-SWZ-6: a multi-dimensional vector access of a swizzled buffer, whose
// rows the swizzle would place apart.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-swizzle-accesses

// T-SWZ-6: swizzled buffers take 1-D vector accesses only.
gpu.module @k {
  gpu.func @vector_2d(%i: index) kernel {
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    // expected-error @+1 {{'vector.load' op accesses a buffer with swizzle #tile.swizzle<b128> with a multi-dimensional vector, which the swizzle would split (T-SWZ-6)}}
    %v = vector.load %buf[%i, %i] : memref<16x32xf32, 3>, vector<2x2xf32>
    gpu.return
  }
}
