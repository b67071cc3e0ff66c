// The Ampere-style GEMM example with an f32 result: %f32-out (lit.cfg.py)
// makes C's type `!out` memref<?x?xf32> (tile.mma_store then writes the
// f32 accumulators as 8-byte pairs) and the host check read C without
// widening. f16 and bf16 operands, both layouts of B, a tile-multiple and
// an odd shape, every element against the host.
//
// RUN: %f32-out %S/../../../examples/hgemm_sm80.mlir > %t.f16.mlir
// RUN: tile-run %t.f16.mlir --chip=sm_90a --timeout=60 | FileCheck %s
// RUN: sed 's/^!e = f16/!e = bf16/' %t.f16.mlir | tile-run - --chip=sm_90a --timeout=60 | FileCheck %s
// RUN: grep -c "memref<?x?xf32>" %t.f16.mlir | FileCheck %s --check-prefix=REWRITTEN
// CHECK: hgemm A*B^T 256x384x320 mismatches: 0
// CHECK: hgemm A*B 256x384x320 mismatches: 0
// CHECK: hgemm A*B^T 200x296x200 mismatches: 0
// CHECK: hgemm A*B 200x296x200 mismatches: 0
// REWRITTEN: 1
