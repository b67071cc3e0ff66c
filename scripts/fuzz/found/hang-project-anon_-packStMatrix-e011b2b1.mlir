// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/hang-project-anon_-packStMatrix-e011b2b1.mlir --tile-lower-tile-ops -o /dev/null
// signature: hang: (anon)::packStMatrix <- void llvm::function_ref<void (mlir::Operation*)>::callback_fn<mlir::detail::walk<(mlir::WalkOrder)1, mlir::ForwardIterator, (anon)::TileLowerTileOpsPass::runOnO <- (anon)::TileLowerTileOpsPass::runOnOperation
// what: memory
gpu.module @epilogue {
  gpu.func @epilogues(%acc: vector<1099511627776x4x1099511627776x1099511627776xf32>, %c: memref<?x?xf16>, %i: index) kernel {
    %sc = tile.shared_alloc : memref<64x64xf16, 3>
    tile.mma_store %acc, %sc[%i, %i] {warps = array<i64: 2, 2>, stmatrix} : vector<1099511627776x4x1099511627776x1099511627776xf32>, memref<64x64xf16, 3>
    gpu.return
  }
}
