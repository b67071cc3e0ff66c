// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @wgmma
gpu.module @k {
  gpu.func @wgmma(%acc: vector<32xf32>, %k: index) kernel {
    %c0 = arith.constant 0 : index
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<64x32xbf16, 3>
    // CHECK: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xf16, 3>
    %da = tile.wgmma_descriptor %a[%c0, %k] : memref<64x64xf16, 3>
    // CHECK: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x32xbf16, 3>
    %db = tile.wgmma_descriptor %b[%c0, %k] : memref<64x32xbf16, 3>
    // CHECK: tile.wgmma_fence
    tile.wgmma_fence
    // CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f16, n = 64 : i64} : vector<32xf32>
    %d = tile.wgmma %da, %da, %acc {n = 64 : i64, inputType = f16} : vector<32xf32>
    // An MN-major B: two 64-column chunks of 32 K rows (row-major K x N).
    %bt = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x32x64xf16, 3>
    // CHECK: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {mn_major} : memref<2x32x64xf16, 3>
    %dbt = tile.wgmma_descriptor %bt[%c0, %k, %c0] {mn_major} : memref<2x32x64xf16, 3>
    // CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f16, n = 64 : i64, transpose_b} : vector<32xf32>
    %dt = tile.wgmma %da, %dbt, %d {n = 64 : i64, inputType = f16, transpose_b} : vector<32xf32>
    // 8-bit floats: 128-element rows fill the 128-byte span; k32.
    %a8 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x128xf8E4M3FN, 3>
    %b8 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x128xf8E5M2, 3>
    // CHECK: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x128xf8E4M3FN, 3>
    %da8 = tile.wgmma_descriptor %a8[%c0, %k] : memref<64x128xf8E4M3FN, 3>
    %db8 = tile.wgmma_descriptor %b8[%c0, %k] : memref<64x128xf8E5M2, 3>
    // CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f8E4M3FN, inputTypeB = f8E5M2, n = 64 : i64} : vector<32xf32>
    %d8 = tile.wgmma %da8, %db8, %dt {n = 64 : i64, inputType = f8E4M3FN, inputTypeB = f8E5M2} : vector<32xf32>
    // f16 accumulators (two to a register) for 8-bit and f16 inputs.
    %h = arith.constant dense<0.0> : vector<32xf16>
    // CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f8E4M3FN, n = 64 : i64} : vector<32xf16>
    %h8 = tile.wgmma %da8, %da8, %h {n = 64 : i64, inputType = f8E4M3FN} : vector<32xf16>
    // CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f16, n = 64 : i64} : vector<32xf16>
    %h16 = tile.wgmma %da, %da, %h8 {n = 64 : i64, inputType = f16} : vector<32xf16>
    // CHECK: tile.wgmma_commit_group
    tile.wgmma_commit_group
    // CHECK: tile.wgmma_wait_group 1
    tile.wgmma_wait_group 1
    // CHECK: tile.wgmma_fence_operand %{{.*}} : vector<32xf32>
    %pinned = tile.wgmma_fence_operand %d8 : vector<32xf32>
    // CHECK: tile.wgmma_fence_operand %{{.*}} : vector<32xf16>
    %pinned16 = tile.wgmma_fence_operand %h16 : vector<32xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @fence_operand_odd_f16(%v: vector<3xf16>) kernel {
    // expected-error @below {{'tile.wgmma_fence_operand' op f16 accumulators are two to a register (T-WGMMA-2), got 'vector<3xf16>'}}
    %p = tile.wgmma_fence_operand %v : vector<3xf16>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @fence_operand_integers(%v: vector<4xi32>) kernel {
    // expected-error @below {{'tile.wgmma_fence_operand' op operand #0 must be vector of 32-bit float or 16-bit float values of ranks 1}}
    %p = tile.wgmma_fence_operand %v : vector<4xi32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @unswizzled(%k: index) kernel {
    %c0 = arith.constant 0 : index
    %a = tile.shared_alloc : memref<64x64xf16, 3>
    // expected-error @below {{needs a tile.shared_alloc buffer with a 32B, 64B or 128B swizzle (T-WGMMA-1)}}
    %da = tile.wgmma_descriptor %a[%c0, %k] : memref<64x64xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @row_not_span(%k: index) kernel {
    %c0 = arith.constant 0 : index
    %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x32xf16, 3>
    // expected-error @below {{expected K-major rows of exactly the 128-byte swizzle span, got 64-byte rows in 'memref<64x32xf16, 3>' (T-WGMMA-1)}}
    %da = tile.wgmma_descriptor %a[%c0, %k] : memref<64x32xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @mn_major_rank2(%k: index) kernel {
    %c0 = arith.constant 0 : index
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    // expected-error @below {{expected an MN-major tile as (MN chunks, K rows, span) with K rows a multiple of 8, got 'memref<64x64xf16, 3>' (T-WGMMA-1)}}
    %db = tile.wgmma_descriptor %b[%c0, %k] {mn_major} : memref<64x64xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @mn_major_partial_k_group(%k: index) kernel {
    %c0 = arith.constant 0 : index
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<4x20x32xf16, 3>
    // expected-error @below {{expected an MN-major tile as (MN chunks, K rows, span) with K rows a multiple of 8, got 'memref<4x20x32xf16, 3>' (T-WGMMA-1)}}
    %db = tile.wgmma_descriptor %b[%c0, %k, %c0] {mn_major} : memref<4x20x32xf16, 3>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @mn_major_row_not_span(%k: index) kernel {
    %c0 = arith.constant 0 : index
    %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x64x128xf16, 3>
    // expected-error @below {{expected MN-major rows of exactly the 128-byte swizzle span, got 256-byte rows in 'memref<4x64x128xf16, 3>' (T-WGMMA-1)}}
    %db = tile.wgmma_descriptor %b[%c0, %k, %c0] {mn_major} : memref<4x64x128xf16, 3>
    gpu.return
  }
}

// -----

func.func @n_range(%d: i64, %acc: vector<4xf32>) {
  // expected-error @below {{N must be a multiple of 8 in [8, 256], got 12 (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 12 : i64, inputType = f16} : vector<4xf32>
  return
}

// -----

func.func @accumulators(%d: i64, %acc: vector<16xf32>) {
  // expected-error @below {{m64n64k16 needs 32 f32 accumulators per thread, got 'vector<16xf32>' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f16} : vector<16xf32>
  return
}

// -----

func.func @input_type(%d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{multiplies f16 x f16, bf16 x bf16 or 8-bit floats (f8E4M3FN, f8E5M2) in any pair, got 'f32' x 'f32' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f32} : vector<32xf32>
  return
}

// -----

func.func @mixed_16_bit(%d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{got 'f16' x 'bf16' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f16, inputTypeB = bf16} : vector<32xf32>
  return
}

// -----

func.func @fp8_with_f16(%d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{got 'f8E4M3FN' x 'f16' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f8E4M3FN, inputTypeB = f16} : vector<32xf32>
  return
}

// -----

func.func @fp8_transposed(%d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{8-bit float operands must be K-major: PTX transposes only f16/bf16 tiles (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f8E5M2, transpose_b} : vector<32xf32>
  return
}

// -----

func.func @fp8_accumulators(%d: i64, %acc: vector<16xf32>) {
  // expected-error @below {{m64n64k32 needs 32 f32 accumulators per thread, got 'vector<16xf32>' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f8E4M3FN} : vector<16xf32>
  return
}

// -----

func.func @bf16_f16_accumulators(%d: i64, %acc: vector<32xf16>) {
  // expected-error @below {{accumulates 'bf16' x 'bf16' in f32, or in f16 for f16 and 8-bit float inputs; got 'f16' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = bf16} : vector<32xf16>
  return
}

// -----

func.func @f16_accumulator_count(%d: i64, %acc: vector<16xf16>) {
  // expected-error @below {{m64n64k32 needs 32 f16 accumulators per thread, got 'vector<16xf16>' (T-WGMMA-2)}}
  %r = tile.wgmma %d, %d, %acc {n = 64 : i64, inputType = f8E5M2} : vector<16xf16>
  return
}

// -----

// tile.wgmma_rs (T-WGMMA-4): A's 8 16-bit elements (or 16 8-bit floats) per
// thread in registers, B a descriptor (K-major, or MN-major with
// transpose_b), N/2 f32 accumulators, or f16 ones for f16 and 8-bit inputs.
// CHECK-LABEL: gpu.func @wgmma_rs
gpu.module @k {
  gpu.func @wgmma_rs(%a: vector<8xbf16>, %ah: vector<8xf16>, %db: i64, %acc: vector<64xf32>, %hacc: vector<32xf16>,
                     %a8: vector<16xf8E4M3FN>, %a5: vector<16xf8E5M2>) kernel {
    // CHECK: tile.wgmma_rs %{{.*}}, %{{.*}}, %{{.*}} {n = 128 : i64, transpose_b} : vector<8xbf16>, vector<64xf32>
    %0 = tile.wgmma_rs %a, %db, %acc {n = 128 : i64, transpose_b} : vector<8xbf16>, vector<64xf32>
    // CHECK: tile.wgmma_rs %{{.*}}, %{{.*}}, %{{.*}} {n = 64 : i64} : vector<8xf16>, vector<32xf16>
    %1 = tile.wgmma_rs %ah, %db, %hacc {n = 64 : i64} : vector<8xf16>, vector<32xf16>
    // CHECK: tile.wgmma_rs %{{.*}}, %{{.*}}, %{{.*}} {n = 128 : i64} : vector<8xf16>, vector<64xf32>
    %2 = tile.wgmma_rs %ah, %db, %0 {n = 128 : i64} : vector<8xf16>, vector<64xf32>
    // CHECK: tile.wgmma_rs %{{.*}}, %{{.*}}, %{{.*}} {n = 8 : i64} : vector<8xbf16>, vector<4xf32>
    %small = arith.constant dense<0.0> : vector<4xf32>
    %3 = tile.wgmma_rs %a, %db, %small {n = 8 : i64} : vector<8xbf16>, vector<4xf32>
    // CHECK: tile.wgmma_rs %{{.*}}, %{{.*}}, %{{.*}} {n = 128 : i64} : vector<16xf8E4M3FN>, vector<64xf32>
    %4 = tile.wgmma_rs %a8, %db, %acc {n = 128 : i64} : vector<16xf8E4M3FN>, vector<64xf32>
    // CHECK: tile.wgmma_rs %{{.*}}, %{{.*}}, %{{.*}} {n = 64 : i64} : vector<16xf8E5M2>, vector<32xf16>
    %5 = tile.wgmma_rs %a5, %db, %hacc {n = 64 : i64} : vector<16xf8E5M2>, vector<32xf16>
    gpu.return
  }
}

// -----

func.func @rs_n_range(%a: vector<8xbf16>, %d: i64, %acc: vector<4xf32>) {
  // expected-error @below {{N must be a multiple of 8 in [8, 256], got 12 (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 12 : i64} : vector<8xbf16>, vector<4xf32>
  return
}

// -----

func.func @rs_n_too_large(%a: vector<8xbf16>, %d: i64, %acc: vector<132xf32>) {
  // expected-error @below {{N must be a multiple of 8 in [8, 256], got 264 (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 264 : i64} : vector<8xbf16>, vector<132xf32>
  return
}

// -----

func.func @rs_a_elements(%a: vector<16xbf16>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{a thread holds 8 elements of the 64x16 'bf16' A tile, got 'vector<16xbf16>' (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64} : vector<16xbf16>, vector<32xf32>
  return
}

// -----

func.func @rs_fp8_elements(%a: vector<8xf8E4M3FN>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{a thread holds 16 elements of the 64x32 'f8E4M3FN' A tile, got 'vector<8xf8E4M3FN>' (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64} : vector<8xf8E4M3FN>, vector<32xf32>
  return
}

// -----

func.func @rs_fp8_transposed(%a: vector<16xf8E4M3FN>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{an 8-bit float B must be K-major: PTX transposes only f16/bf16 tiles (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64, transpose_b} : vector<16xf8E4M3FN>, vector<32xf32>
  return
}

// -----

func.func @rs_a_too_few(%a: vector<4xf16>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{a thread holds 8 elements of the 64x16 'f16' A tile, got 'vector<4xf16>' (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64} : vector<4xf16>, vector<32xf32>
  return
}

// -----

// PTX has no .f16 D with .bf16 inputs.
func.func @rs_bf16_f16_accumulators(%a: vector<8xbf16>, %d: i64, %acc: vector<32xf16>) {
  // expected-error @below {{accumulates 'bf16' in f32, or in f16 for f16 and 8-bit float inputs; got 'f16' (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64} : vector<8xbf16>, vector<32xf16>
  return
}

// -----

func.func @rs_accumulators(%a: vector<8xf16>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{m64n128k16 needs 64 accumulators per thread, got 'vector<32xf32>' (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 128 : i64} : vector<8xf16>, vector<32xf32>
  return
}

// -----

func.func @rs_f16_accumulator_count(%a: vector<8xf16>, %d: i64, %acc: vector<64xf16>) {
  // expected-error @below {{m64n64k16 needs 32 accumulators per thread, got 'vector<64xf16>' (T-WGMMA-4)}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64} : vector<8xf16>, vector<64xf16>
  return
}

// -----

// A in registers is f16 or bf16 (the type constraint).
func.func @rs_a_type(%a: vector<8xf32>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{operand #0 must be vector of 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values of ranks 1, but got 'vector<8xf32>'}}
  %r = tile.wgmma_rs %a, %d, %acc {n = 64 : i64} : vector<8xf32>, vector<32xf32>
  return
}

// -----

func.func @rs_result_type(%a: vector<8xf16>, %d: i64, %acc: vector<32xf32>) {
  // expected-error @below {{all of {acc, result} have same type}}
  %r = "tile.wgmma_rs"(%a, %d, %acc) {n = 64 : i64} : (vector<8xf16>, i64, vector<32xf32>) -> vector<32xf16>
  return
}
