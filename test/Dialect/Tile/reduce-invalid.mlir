// T-RED-1..5: tile.reduce's verifier (T-RED-6, divergence, is
// tile-verify-async-protocol's: test/Transforms/tile-verify-async-protocol-reduce.mlir).
// RUN: tile-opt %s -split-input-file -verify-diagnostics

gpu.module @k {
  gpu.func @vector(%x: vector<4xf32>) kernel {
    // expected-error @below {{reduces a scalar over threads, got 'vector<4xf32>'; reduce the thread's vector with vector.reduction first (T-RED-1)}}
    %r = tile.reduce add %x over warp : vector<4xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @half(%x: f16) kernel {
    // expected-error @below {{reduces f32, got 'f16'; extend the values to f32 with arith.extf first (16-bit sums lose precision; tl.sum accumulates in f32 too) (T-RED-1)}}
    %r = tile.reduce add %x over block : f16
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @bf16(%x: bf16) kernel {
    // expected-error @below {{reduces f32, got 'bf16'; extend the values to f32 with arith.extf first}}
    %r = tile.reduce maximumf %x over warp : bf16
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @wide(%x: f64) kernel {
    // expected-error @below {{reduces f32 or i32 values, got 'f64' (T-RED-1)}}
    %r = tile.reduce add %x over warp : f64
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @i64(%x: i64) kernel {
    // expected-error @below {{reduces f32 or i32 values, got 'i64' (T-RED-1)}}
    %r = tile.reduce add %x over warp : i64
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @int_kind_on_float(%x: f32) kernel {
    // expected-error @below {{integer reduction 'maxsi' on f32; use add, mul, minnumf, maxnumf, minimumf or maximumf (T-RED-2)}}
    %r = tile.reduce maxsi %x over warp : f32
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @float_kind_on_int(%x: i32) kernel {
    // expected-error @below {{float reduction 'maximumf' on 'i32'; use add, mul, minsi, minui, maxsi, maxui, and, or or xor (T-RED-2)}}
    %r = tile.reduce maximumf %x over block : i32
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @lanes_not_power_of_two(%x: f32) kernel {
    // expected-error @below {{'lanes' must be a power of two in 2..32, got 6 (T-RED-3)}}
    %r = tile.reduce add %x over warp, lanes 6 : f32
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @lanes_too_many(%x: f32) kernel {
    // expected-error @below {{'lanes' must be a power of two in 2..32, got 64 (T-RED-3)}}
    %r = tile.reduce add %x over warp, lanes 64 : f32
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @lanes_one(%x: f32) kernel {
    // expected-error @below {{'lanes' must be a power of two in 2..32, got 1 (T-RED-3)}}
    %r = tile.reduce add %x over warp, lanes 1 : f32
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @lanes_block(%x: f32) kernel {
    // expected-error @below {{'lanes 4' needs scope warp, got block (T-RED-3)}}
    %r = tile.reduce add %x over block, lanes 4 : f32
    gpu.return
  }
}

// -----

func.func @host(%x: f32) -> f32 {
  // expected-error @below {{reduces over the threads of a GPU kernel: it must be in a gpu.func, a gpu.launch body or a gpu.module, not host code (T-RED-4)}}
  %r = tile.reduce add %x over warp : f32
  return %r : f32
}

// -----

gpu.module @k {
  gpu.func @partial_warp(%x: f32) kernel
      attributes {known_block_size = array<i32: 48, 1, 1>} {
    // expected-error @below {{scope block needs a block of a multiple of 32 threads, got 48x1x1 = 48 (T-RED-5)}}
    %r = tile.reduce add %x over block : f32
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @partial_warpgroup(%x: f32) kernel
      attributes {known_block_size = array<i32: 32, 6, 1>} {
    // expected-error @below {{scope warpgroup needs a block of a multiple of 128 threads, got 32x6x1 = 192 (T-RED-5)}}
    %r = tile.reduce add %x over warpgroup : f32
    gpu.return
  }
}

// -----

func.func @launch(%x: f32) {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c100, %sy = %c1, %sz = %c1) {
    // expected-error @below {{scope warp needs a block of a multiple of 32 threads, got 100x1x1 = 100 (T-RED-5)}}
    %r = tile.reduce add %x over warp : f32
    gpu.terminator
  }
  return
}

// -----

gpu.module @k {
  gpu.func @bad_kind(%x: f32) kernel {
    // expected-error @below {{expected a reduction kind (add, mul, minui, minsi, minnumf, maxui, maxsi, maxnumf, and, or, xor, minimumf, maximumf), got 'sum'}}
    %r = tile.reduce sum %x over warp : f32
    gpu.return
  }
}

// -----

// A warpgroup or block reduction outside a kernel body (a device function)
// has no place for its shared scratch.
gpu.module @k {
  func.func @device_function(%x: f32) -> f32 {
    // expected-error @below {{a block reduction must be in a gpu.func or a gpu.launch body: its scratch is the kernel's static shared memory (T-RED-4)}}
    %r = tile.reduce add %x over block : f32
    return %r : f32
  }
}
