//===- Addresses.cpp - Pointers the tile lowerings share ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

Value tile::getBarrierAddress(OpBuilder &builder, Location loc, Value base,
                              Value index) {
  return LLVM::GEPOp::create(builder, loc, base.getType(), builder.getI64Type(),
                             base, ValueRange{index});
}

Value tile::getBarrierAddress(OpBuilder &builder, BarrierOpInterface op,
                              ValueRange operands) {
  return getBarrierAddress(
      builder, op.getLoc(),
      operands[op.getBarrierGroupMutable().getOperandNumber()],
      operands[op.getBarrierIndexMutable().getOperandNumber()]);
}

Value tile::toGlobalPointer(OpBuilder &builder, Location loc, Value ptr) {
  auto global =
      LLVM::LLVMPointerType::get(ptr.getContext(), kGlobalAddressSpace);
  if (ptr.getType() == global)
    return ptr;
  return LLVM::AddrSpaceCastOp::create(builder, loc, global, ptr);
}

Value tile::toSharedCluster(OpBuilder &builder, Location loc, Value ptr) {
  auto cluster =
      LLVM::LLVMPointerType::get(ptr.getContext(), kSharedClusterAddressSpace);
  return LLVM::AddrSpaceCastOp::create(builder, loc, cluster, ptr);
}

Value tile::mapToCta(OpBuilder &builder, Location loc, Value ptr, Value rank) {
  auto cluster =
      LLVM::LLVMPointerType::get(ptr.getContext(), kSharedClusterAddressSpace);
  return NVVM::MapaOp::create(builder, loc, cluster, ptr, rank);
}
