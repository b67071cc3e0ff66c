// A user's test of the errors tile-opt reports: -verify-diagnostics checks
// that each `expected-error` comment names an error on the line it points
// at (@+1: the next line) and that no other error is reported;
// -split-input-file checks the pieces between the separator lines on their
// own.
//
// RUN: tile-opt %s -split-input-file -verify-diagnostics

gpu.module @kernels {
  gpu.func @bad_size(%src: memref<64xf16>) kernel {
    %smem = tile.shared_alloc : memref<64xf16, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{expected a copy size of 4, 8 or 16 bytes, got 12 (T-CPASYNC-1)}}
    tile.async_copy %src[%c0] to %smem[%c0], 12 bytes, cache = ca
        : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @bad_cache(%src: memref<64xf16>) kernel {
    %smem = tile.shared_alloc : memref<64xf16, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{cache = cg requires a 16-byte copy, got 8 bytes (T-CPASYNC-2)}}
    tile.async_copy %src[%c0] to %smem[%c0], 8 bytes, cache = cg
        : memref<64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
    gpu.return
  }
}
