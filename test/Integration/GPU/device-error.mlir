// A kernel that stores through a null pointer: the error names the CUDA
// error and the kernel, and the process exits instead of hanging.
//
// RUN: not tile-run %s 2>&1 | FileCheck %s
// CHECK: tile-runtime: {{.*}}failed: CUDA_ERROR_ILLEGAL_ADDRESS {{.*}}last kernel launched: 'store_null'

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @store_null() kernel {
      %null = llvm.mlir.zero : !llvm.ptr<1>
      %v = arith.constant 1.0 : f32
      llvm.store volatile %v, %null : f32, !llvm.ptr<1>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@store_null blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    gpu.wait [%t1]
    return
  }
}
