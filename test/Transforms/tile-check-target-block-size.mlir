// T-TARGET-8: a kernel's known_block_size is a CTA the driver launches:
// every extent at least 1 and at most 1024, 1024, 64, at most 1024 threads.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target

gpu.module @kernels {
  // A warp-specialized kernel's 384 x 1 x 1: launchable, no error.
  gpu.func @three_warpgroups() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    gpu.return
  }
  // 32 x 32 x 1: exactly 1024 threads.
  gpu.func @square() kernel attributes {known_block_size = array<i32: 32, 32, 1>} {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{'gpu.func' op has a known block size of 2048 x 1 x 1, which no launch can have: each extent at least 1 and at most 1024, 1024, 64 (x, y, z), at most 1024 threads in all (T-TARGET-8)}}
  gpu.func @too_wide() kernel attributes {known_block_size = array<i32: 2048, 1, 1>} {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{'gpu.func' op has a known block size of 64 x 4 x 8, which no launch can have: each extent at least 1 and at most 1024, 1024, 64 (x, y, z), at most 1024 threads in all (T-TARGET-8)}}
  gpu.func @too_many_threads() kernel attributes {known_block_size = array<i32: 64, 4, 8>} {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{'gpu.func' op has a known block size of 1 x 1 x 128, which no launch can have: each extent at least 1 and at most 1024, 1024, 64 (x, y, z), at most 1024 threads in all (T-TARGET-8)}}
  gpu.func @too_deep() kernel attributes {known_block_size = array<i32: 1, 1, 128>} {
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{'gpu.func' op has a known block size of 0 x 1 x 1, which no launch can have: each extent at least 1 and at most 1024, 1024, 64 (x, y, z), at most 1024 threads in all (T-TARGET-8)}}
  gpu.func @empty() kernel attributes {known_block_size = array<i32: 0, 1, 1>} {
    gpu.return
  }
}
