// tile-run on the second GPU of a machine (--device=1: its primary context
// runs the host code's allocations, copies, tensor-map encodings and the
// kernels), the copy example and the Hopper GEMM with its tensor maps,
// checked element by element; and a device the driver does not have.
//
// REQUIRES: two-gpus
// RUN: tile-run %S/../../../examples/cp_async_copy.mlir --device=1 --timeout=60 | FileCheck %s --check-prefix=COPY
// RUN: tile-run %tile_kernels/gemm_sm90.mlir --chip=sm_90a --device=1 --timeout=120 | FileCheck %s --check-prefix=GEMM
// RUN: not tile-run %S/../../../examples/cp_async_copy.mlir --device=99 2>&1 | FileCheck %s --check-prefix=NONE
// COPY: mismatches: 0
// GEMM: gemm A*B^T 256x512x512 mismatches: 0
// GEMM: gemm A*B 200x296x200 mismatches: 0
// NONE: no CUDA device 99: the driver reports {{[0-9]+}}
