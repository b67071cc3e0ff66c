// Math functions in kernels become libdevice calls (__nv_fmaf, __nv_expf);
// tile-to-ptx-pipeline links libdevice from the CUDA toolkit even when the
// environment names none (lit, like other launchers, drops $CUDA_HOME), so
// the PTX has no unresolved __nv_* functions for the JIT to reject.
//
// REQUIRES: libdevice
// RUN: env -u CUDA_HOME -u CUDA_PATH -u CUDA_ROOT tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx | FileCheck %s
// CHECK: .visible .entry f(
// CHECK-NOT: __nv_
// CHECK: fma.rn.f32
// CHECK-NOT: __nv_
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%a: memref<32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<32xf32>
      %y = math.fma %x, %x, %x : f32
      %z = math.exp %y : f32
      memref.store %z, %a[%c0] : memref<32xf32>
      gpu.return
    }
  }
}
