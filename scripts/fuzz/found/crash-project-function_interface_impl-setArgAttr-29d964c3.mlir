// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/crash-project-function_interface_impl-setArgAttr-29d964c3.mlir --tile-kernel-manifest --tile-stream-order-host-launches --tile-tensor-maps-by-value -o /dev/null
// signature: void mlir::function_interface_impl::setArgAttr<mlir::LLVM::LLVMFuncOp> <- void llvm::function_ref<void (mlir::Operation*)>::callback_fn<std::enable_if<(!(llvm::is_one_of<mlir::LLVM::LLVMFuncOp, mlir::Operation*, mlir::Region*, mlir::B <- void mlir::detail::walk<mlir::ForwardIterator>
// what: SIGSEGV
module attributes {gpu.container_module} {
  llvm.func @host(%map: !llvm.ptr, %p: !llvm.ptr, %n: i64) {
    llvm.return
  }
  gpu.module @kernels {
    llvm.func @k(%p: !llvm.ptr, %map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, tile.tensor_map_params = array<i64: 9223372036854775807>} {
      llvm.return
    }
    llvm.func @plain(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
