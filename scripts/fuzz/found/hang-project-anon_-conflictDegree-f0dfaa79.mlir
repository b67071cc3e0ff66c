// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/hang-project-anon_-conflictDegree-f0dfaa79.mlir --tile-pipeline-async-copies --tile-lower-tile-ops --tile-verify-async-protocol --tile-swizzle-accesses --tile-analyze-bank-conflicts --convert-tile-to-nvvm -o /dev/null
// signature: hang: (anon)::conflictDegree <- void llvm::function_ref<void (mlir::Operation*)>::callback_fn<(anon)::TileAnalyzeBankConflictsPass::runOnOperation()::{lambda(mlir::Operation*)#1}> <- void mlir::detail::walk<mlir::ForwardIterator>
// what: timeout
gpu.module @kernels {
  gpu.func @fp16_tile() workgroup(%s: memref<16x16xf16, 3>) kernel {
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %tid = gpu.thread_id x
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %v = vector.load %s[%row, %col] : memref<16x16xf16, 3>, vector<2147483648xf16>
    gpu.return
  }
}
