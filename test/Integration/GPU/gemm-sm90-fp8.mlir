// The Hopper FP8 GEMM example (python/tile/kernels/gemm_sm90_fp8.mlir) on the GPU,
// all three kernels (persistent with split-K tail; 2x1 clusters multicasting
// B; 1x128 / 128x128 block scales with f32 promotion, K blocks in pairs and
// an odd one):
// e4m3 operands, row-wise and per-tensor scales, bf16 and (with the C
// alias redefined) f16 results, checked element by element against the
// host at a tile-multiple shape and at an odd one (TMA fills zeros past A
// and B, clips the stores; the scale indices past M and N are clamped).
//
// RUN: tile-run %tile_kernels/gemm_sm90_fp8.mlir --chip=sm_90a --timeout=120 | FileCheck %s
// RUN: sed 's/^!ec = bf16/!ec = f16/' %tile_kernels/gemm_sm90_fp8.mlir | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// With @gemm_fp8_nt's 128- and 192-wide tiles (python -m tile gemm-fp8).
// RUN: %python -m tile gemm-fp8 --tile-n 128 | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// RUN: %python -m tile gemm-fp8 --tile-n 192 --out f16 | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: gemm fp8 row-wise 256x512x512 mismatches: 0
// CHECK: gemm fp8 per-tensor 256x512x512 mismatches: 0
// CHECK: gemm fp8 row-wise 200x296x208 mismatches: 0
// CHECK: gemm fp8 per-tensor 200x296x208 mismatches: 0
// CHECK: gemm fp8 multicast row-wise 256x512x512 mismatches: 0
// CHECK: gemm fp8 multicast per-tensor 328x296x208 mismatches: 0
// CHECK: gemm fp8 blockwise 256x512x512 mismatches: 0
// CHECK: gemm fp8 blockwise 256x512x512 on 3 CTAs mismatches: 0
// CHECK: gemm fp8 blockwise 256x512x640 on 3 CTAs mismatches: 0
// CHECK: gemm fp8 blockwise 200x296x464 mismatches: 0
// CHECK: gemm fp8 blockwise 256x512x384 mismatches: 0
// CHECK: gemm fp8 blockwise 200x296x128 on 3 CTAs mismatches: 0
