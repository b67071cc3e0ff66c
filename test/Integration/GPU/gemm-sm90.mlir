// The Hopper GEMM example (python/tile/kernels/gemm_sm90.mlir) on the GPU, checked
// element by element against the host at a tile-multiple shape and at an
// odd one (M, N, K not multiples of the 128x256x64 tile: TMA fills zeros,
// the stores are bounded). Relative tolerance 1e-2 (products of small
// integers are exact; f16 rounds the sums).
//
// RUN: tile-run %tile_kernels/gemm_sm90.mlir --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: gemm A*B^T 256x512x512 mismatches: 0
// CHECK: gemm A*B 256x512x512 mismatches: 0
// CHECK: gemm A*B^T 200x296x200 mismatches: 0
// CHECK: gemm A*B 200x296x200 mismatches: 0
// CHECK: gemm A*B^T 13x304x200 mismatches: 0
