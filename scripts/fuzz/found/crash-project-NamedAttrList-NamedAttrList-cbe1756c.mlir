// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/crash-project-NamedAttrList-NamedAttrList-cbe1756c.mlir --tile-to-ptx-pipeline=chip=sm_80 -o /dev/null
// signature: mlir::NamedAttrList::NamedAttrList <- void mlir::function_interface_impl::setArgAttr<mlir::LLVM::LLVMFuncOp> <- void llvm::function_ref<void (mlir::Operation*)>::callback_fn<std::enable_if<(!(llvm::is_one_of<mlir::LLVM::LLVMFuncOp, mlir::Operation*, mlir::Region*, mlir::B
// what: LLVM ERROR: SmallVector unable to grow. Requested capacity (N) is larger than maximum value for size type (N)
module attributes {gpu.container_module} {
  llvm.func @host(%map: !llvm.ptr, %p: !llvm.ptr, %n: i64) {
    llvm.return
  }
  gpu.module @kernels {
    llvm.func @k(%p: !llvm.ptr, %map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, tile.tensor_map_params = array<i64: 6>} {
      llvm.return
    }
    llvm.func @plain(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
