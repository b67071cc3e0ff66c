// T-TARGET-7 on a chip that has the conversion: the source type and the
// rounding mode (cvt.rn: to nearest even only).
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target="chip=sm_90a"

module {
  gpu.module @kernels {
    gpu.func @f64(%x: f64, %out: memref<4xf8E5M2>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'arith.truncf' op to 'f8E5M2' converts from f32, f16 or bf16, got 'f64' (T-TARGET-7)}}
      %q = arith.truncf %x : f64 to f8E5M2
      memref.store %q, %out[%c0] : memref<4xf8E5M2>
      gpu.return
    }
  }
}

// -----

module {
  gpu.module @kernels {
    gpu.func @toward_zero(%x: vector<2xf32>, %out: memref<2xf8E4M3FN>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'arith.truncf' op to 'f8E4M3FN' rounds to nearest even only (cvt.rn), got rounding mode toward_zero (T-TARGET-7)}}
      %q = arith.truncf %x toward_zero : vector<2xf32> to vector<2xf8E4M3FN>
      vector.store %q, %out[%c0] : memref<2xf8E4M3FN>, vector<2xf8E4M3FN>
      gpu.return
    }
  }
}

// -----

module {
  gpu.module @kernels {
    // Accepted: f32, f16 and bf16 to both FP8 types, to nearest even.
    gpu.func @accepted(%x: f32, %h: vector<2xf16>, %b: bf16, %o: memref<4xf8E4M3FN>,
                       %p: memref<4xf8E5M2>) kernel {
      %c0 = arith.constant 0 : index
      %q = arith.truncf %x : f32 to f8E4M3FN
      %r = arith.truncf %h to_nearest_even : vector<2xf16> to vector<2xf8E5M2>
      %s = arith.truncf %b : bf16 to f8E4M3FN
      memref.store %q, %o[%c0] : memref<4xf8E4M3FN>
      vector.store %r, %p[%c0] : memref<4xf8E5M2>, vector<2xf8E5M2>
      memref.store %s, %o[%c0] : memref<4xf8E4M3FN>
      gpu.return
    }
  }
}
