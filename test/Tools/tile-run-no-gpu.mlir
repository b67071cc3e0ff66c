// On a machine without a CUDA GPU, a GPU program stops with one line.
// REQUIRES: tile-run
// UNSUPPORTED: cuda-gpu
// RUN: not tile-run %S/../../examples/cp_async_copy.mlir 2>&1 | FileCheck %s
// CHECK: tile-run: no CUDA GPU: {{.*}}
// CHECK-NOT: tile-run
