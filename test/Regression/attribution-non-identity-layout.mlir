// A workgroup attribution with a non-identity layout crashed upstream's
// gpu.func lowering (MemRefDescriptor::fromStaticShape) inside
// tile-to-ptx-pipeline; tile-check-target now reports it first (T-TARGET-6).
// RUN: tile-opt %s --tile-check-target -verify-diagnostics
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: 'gpu.func' op workgroup attribution 0 'memref<32x8xf32, affine_map<(d0, d1) -> (d1, d0)>, 3>' has a non-identity layout{{.*}}(T-TARGET-6)
// CHECK-NOT: Stack dump

gpu.module @kernels {
  // expected-error @below {{workgroup attribution 0 'memref<32x8xf32, affine_map<(d0, d1) -> (d1, d0)>, 3>' has a non-identity layout}}
  gpu.func @k() workgroup(%s: memref<32x8xf32, affine_map<(d0, d1) -> (d1, d0)>, 3>) kernel {
    gpu.return
  }
}
