// The Ampere-style GEMM example with bf16 operands and result (f32
// accumulation), both layouts of B, at a tile-multiple and an odd shape (zero-filled
// copies, bounded stores), every element against the host.
//
// RUN: sed 's/^!e = f16/!e = bf16/' %S/../../../examples/hgemm_sm80.mlir | tile-run - --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: hgemm A*B^T 256x384x320 mismatches: 0
// CHECK: hgemm A*B 256x384x320 mismatches: 0
// CHECK: hgemm A*B^T 200x296x200 mismatches: 0
// CHECK: hgemm A*B 200x296x200 mismatches: 0
