// The clustered Hopper GEMM (examples/gemm_sm90_multicast.mlir: 2x1
// clusters, B multicast by TMA, stage releases arriving on both CTAs' empty
// barriers) on the GPU, every element against the host, at a shape of whole
// tile pairs and at one whose last pair has a row tile outside A.
//
// RUN: tile-run %S/../../../examples/gemm_sm90_multicast.mlir --chip=sm_90a --timeout=120 | FileCheck %s
// CHECK: multicast gemm 256x512x512 mismatches: 0
// CHECK: multicast gemm 328x296x200 mismatches: 0
