// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/crash-project-tile-complement-d26852ca.mlir --tile-test-layout-algebra -o /dev/null
// signature: mlir::tile::complement <- void llvm::function_ref<void (mlir::Operation*)>::callback_fn<(anon)::TileTestLayoutAlgebraPass::runOnOperation()::'lambda'(mlir::Operation*)> <- void mlir::detail::walk<mlir::ForwardIterator>
// what: SIGFPE
func.func private @complement() attributes {
    tile.test.op = "complement", tile.test.args = [#tile.layout<(2,3):(-9223372036854775808,4)>],
    tile.test.cotarget = 24}
