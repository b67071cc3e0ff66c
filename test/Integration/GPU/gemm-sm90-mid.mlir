// The Hopper GEMM with the 192-wide tiles tile.matmul compiles where they
// fit N or the SMs better (python -m tile gemm --tile-n 192), bf16, element
// by element against the host at the file's shapes (N = 512, 296 and 304:
// whole and partial 192-wide tiles; three staging buffers a warpgroup).
//
// RUN: %python -m tile gemm --tile-n 192 --element bf16 | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: gemm A*B^T 256x512x512 mismatches: 0
// CHECK: gemm A*B 256x512x512 mismatches: 0
// CHECK: gemm A*B^T 200x296x200 mismatches: 0
// CHECK: gemm A*B 200x296x200 mismatches: 0
// CHECK: gemm A*B^T 13x304x200 mismatches: 0
