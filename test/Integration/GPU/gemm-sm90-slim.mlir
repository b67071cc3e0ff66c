// The Hopper GEMM with the 64-wide tiles tile.matmul compiles where even
// 128-wide ones would be split along K into many ranges or fill few SMs
// (python -m tile gemm --tile-n 64), bf16, element by element against the
// host at the file's shapes (N = 512, 296 and 304: whole and partial
// 64-wide tiles; one staging buffer a warpgroup).
//
// RUN: %python -m tile gemm --tile-n 64 --element bf16 | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: gemm A*B^T 256x512x512 mismatches: 0
// CHECK: gemm A*B 256x512x512 mismatches: 0
// CHECK: gemm A*B^T 200x296x200 mismatches: 0
// CHECK: gemm A*B 200x296x200 mismatches: 0
// CHECK: gemm A*B^T 13x304x200 mismatches: 0
