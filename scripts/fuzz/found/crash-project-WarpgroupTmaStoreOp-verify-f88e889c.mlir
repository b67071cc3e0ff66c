// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/crash-project-WarpgroupTmaStoreOp-verify-f88e889c.mlir --tile-swizzle-accesses -o /dev/null
// signature: mlir::tile::WarpgroupTmaStoreOp::verify <- mlir::Op<mlir::tile::WarpgroupTmaStoreOp, mlir::OpTrait::ZeroRegions, mlir::OpTrait::ZeroResults, mlir::OpTrait::ZeroSuccessors, mlir::OpTrait::AtLeastNOperands <- mlir::RegisteredOperationName::Model<mlir::tile::WarpgroupTmaStoreOp>::verifyInvariants
// what: SIGFPE
!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @epilogue(%acc: vector<128xf32>, %c: !dc, %wg: index, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<0x0x64x64xf16, 3>
  tile.warpgroup_tma_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<0x0x64x64xf16, 3>, !dc
}
