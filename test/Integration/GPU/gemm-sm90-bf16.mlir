// The Hopper GEMM example with bf16 operands and result (f32 accumulation),
// element by element against the host at both shapes.
//
// RUN: sed 's/^!e = f16/!e = bf16/' %tile_kernels/gemm_sm90.mlir | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: gemm A*B^T 256x512x512 mismatches: 0
// CHECK: gemm A*B 256x512x512 mismatches: 0
// CHECK: gemm A*B^T 200x296x200 mismatches: 0
// CHECK: gemm A*B 200x296x200 mismatches: 0
// CHECK: gemm A*B^T 13x304x200 mismatches: 0
