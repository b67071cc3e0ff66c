// The Ampere-style hgemm example (examples/hgemm_sm80.mlir) on the GPU: both
// layouts of B, at a tile-multiple and an odd shape (zero-filled copies,
// bounded stores), every element of C equal to the host's product.
//
// RUN: tile-run %S/../../../examples/hgemm_sm80.mlir --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: hgemm A*B^T 256x384x320 mismatches: 0
// CHECK: hgemm A*B 256x384x320 mismatches: 0
// CHECK: hgemm A*B^T 200x296x200 mismatches: 0
// CHECK: hgemm A*B 200x296x200 mismatches: 0
