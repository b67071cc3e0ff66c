// Found by scripts/fuzz: a tf32 workgroup attribution crashed upstream's
// gpu.func lowering inside tile-to-ptx-pipeline; tile-check-target now
// reports it first (T-TARGET-5).
// RUN: tile-opt %s --tile-check-target -verify-diagnostics
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'gpu.func' op attribution 'memref<4x128xtf32, 3>' has an element type that the LLVM lowering cannot convert (T-TARGET-5)
// CHECK-NOT: Stack dump

gpu.module @kernels {
  // expected-error @below {{attribution 'memref<4x128xtf32, 3>' has an element type that the LLVM lowering cannot convert (T-TARGET-5)}}
  gpu.func @tf32(%i: index) workgroup(%s: memref<4x128xtf32, 3>) kernel {
    gpu.return
  }
}
