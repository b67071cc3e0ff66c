// tile-opt fuzz reproducer (upstream)
// command: build/bin/tile-opt scripts/fuzz/found/crash-upstream-PassInstrumentor-_PassInstrumentor-ee04e160.mlir --tile-to-ptx-pipeline=chip=sm_80 -o /dev/null
// signature: mlir::PassInstrumentor::~PassInstrumentor <- mlir::PassManager::~PassManager <- mlir::splitAndProcessBuffer
// what: SIGABRT
module attributes {gpu.container_module} {
  llvm.func @host(%map: !llvm.ptr, %p: !llvm.ptr, %n: i64) {
    llvm.return
  }
  gpu.module @kernels {
    llvm.func @k(%p: !llvm.ptr, %map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, tile.tensor_map_params = array<i64: 256>} {
      llvm.return
    }
    llvm.func @plain(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
