// The grouped Hopper GEMM example (python/tile/kernels/gemm_sm90_grouped.mlir) on the
// GPU: nine groups of 0 to 286 rows (an empty group, one of exactly two row
// tiles, partial last row tiles), contiguous and masked, f16 and bf16,
// checked element by element against the host; the C rows outside every
// group must stay untouched (NaN); three groups whose 7 tiles are all
// split along K; and the FP8 kernels (e4m3: row-wise scales on 128x256 and
// on 128x128 tiles, block scales) in both layouts with bf16 and (the C
// alias redefined) f16 results; and on 5 CTAs, each walking on from group
// to group.
//
// RUN: tile-run %tile_kernels/gemm_sm90_grouped.mlir --chip=sm_90a --timeout=120 | FileCheck %s
// RUN: sed 's/^!e = f16/!e = bf16/; s/^!ec = bf16/!ec = f16/' %tile_kernels/gemm_sm90_grouped.mlir | tile-run - --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: grouped gemm contiguous 9 groups x296x200 mismatches: 0
// CHECK: grouped gemm masked 9 groups x296x200 mismatches: 0
// CHECK: grouped gemm split-K 3 groups x256x1024 mismatches: 0
// CHECK: grouped gemm fp8 contiguous 9 groups x296x208 mismatches: 0
// CHECK: grouped gemm fp8 masked 9 groups x296x208 mismatches: 0
// CHECK: grouped gemm contiguous 9 groups x296x200 on 5 CTAs mismatches: 0
// CHECK: grouped gemm fp8 masked 9 groups x296x208 on 5 CTAs mismatches: 0
// CHECK: grouped gemm fp8 narrow contiguous 9 groups x296x208 mismatches: 0
// CHECK: grouped gemm fp8 narrow masked 9 groups x296x208 on 5 CTAs mismatches: 0
// CHECK: grouped gemm fp8 blockwise contiguous 9 groups x296x208 mismatches: 0
// CHECK: grouped gemm fp8 blockwise masked 9 groups x296x464 mismatches: 0
// CHECK: grouped gemm fp8 blockwise contiguous 9 groups x296x640 on 5 CTAs mismatches: 0
// CHECK: grouped gemm fp8 blockwise masked 9 groups x296x128 on 5 CTAs mismatches: 0
