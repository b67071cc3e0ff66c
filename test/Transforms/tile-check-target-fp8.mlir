// T-TARGET-7: arith.truncf to an FP8 type in device code lowers to
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32: sm_89 and PTX 7.8 or later, from
// f32, f16 or bf16, rounding to nearest even. Host code is not checked.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target="chip=sm_80"

module {
  gpu.module @kernels {
    gpu.func @ampere(%x: f32, %out: memref<4xf8E4M3FN>) kernel {
      %c0 = arith.constant 0 : index
      // expected-error @below {{'arith.truncf' op to 'f8E4M3FN' converts with cvt.rn.satfinite.e4m3x2.f32, which needs sm_89 and PTX ISA 7.8, but the target is sm_80 with PTX 8.0 (T-TARGET-7)}}
      %q = arith.truncf %x : f32 to f8E4M3FN
      memref.store %q, %out[%c0] : memref<4xf8E4M3FN>
      gpu.return
    }
  }
  func.func @host(%x: f32) -> f8E4M3FN {
    %q = arith.truncf %x : f32 to f8E4M3FN
    return %q : f8E4M3FN
  }
}
