//===- SharedBuffer.cpp - Where a shared-memory memref comes from ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::tile;

std::string SharedBufferInfo::describe() const {
  return kind.empty() ? std::string() : " (buffer from " + kind + ")";
}

/// Alignment LLVM gives a global without an explicit one: its element's.
static int64_t getElementAlignment(MemRefType type) {
  return getElementSizeInBytes(type.getElementType()).value_or(1);
}

SharedBufferInfo tile::getSharedBufferInfo(Value buffer) {
  SharedBufferInfo info;
  MLIRContext *ctx = buffer.getContext();
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type)
    return info;
  SwizzleAttr none = SwizzleAttr::get(ctx, TmaSwizzleMode::none);
  if (auto alloc = buffer.getDefiningOp<SharedAllocOp>()) {
    info.alignment = alloc.getRequiredAlignment();
    info.swizzle = alloc.getSwizzle().value_or(none);
    info.allocation = alloc;
    info.kind = "tile.shared_alloc";
    return info;
  }
  if (auto getGlobal = buffer.getDefiningOp<memref::GetGlobalOp>()) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    if (!global)
      return info;
    info.alignment = global.getAlignment().value_or(getElementAlignment(type));
    info.swizzle = none;
    info.allocation = getGlobal;
    info.kind = "memref.global @" + global.getSymName().str() +
                "; use tile.shared_alloc";
    return info;
  }
  if (auto arg = dyn_cast<BlockArgument>(buffer)) {
    auto func = dyn_cast<gpu::GPUFuncOp>(arg.getOwner()->getParentOp());
    if (func && arg.getOwner()->isEntryBlock() &&
        llvm::is_contained(func.getWorkgroupAttributions(), arg)) {
      info.alignment = getElementAlignment(type);
      info.swizzle = none;
      info.kind = "a workgroup attribution; use tile.shared_alloc";
    }
  }
  return info;
}

/// The bytes of one ldmatrix/stmatrix row.
static constexpr int64_t kMatrixRowBytes = 16;

std::optional<ElementAccess> tile::getElementAccess(OpOperand &use) {
  Operation *op = use.getOwner();
  bool writes =
      isa<memref::StoreOp, vector::StoreOp, StMatrixOp, AsyncCopyOp>(op);
  auto access =
      [&](OpOperand &memref, MutableOperandRange indices, int64_t bytes,
          bool multiDimensional = false) -> std::optional<ElementAccess> {
    // Elements that are not whole-byte integers or floats: not an access
    // the analyses model (T-SMEM-3).
    if (&memref != &use || bytes <= 0)
      return std::nullopt;
    return ElementAccess{&memref, indices, bytes, multiDimensional, writes};
  };
  auto elementBytes = [](Value memref) {
    return getElementSizeInBytes(
               cast<MemRefType>(memref.getType()).getElementType())
        .value_or(0);
  };
  auto vectorAccess = [&](OpOperand &memref, MutableOperandRange indices,
                          VectorType type) {
    return access(memref, indices,
                  type.getNumElements() * elementBytes(memref.get()),
                  type.getRank() != 1);
  };
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return access(load.getMemrefMutable(), load.getIndicesMutable(),
                  elementBytes(load.getMemRef()));
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return access(store.getMemrefMutable(), store.getIndicesMutable(),
                  elementBytes(store.getMemRef()));
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return vectorAccess(load.getBaseMutable(), load.getIndicesMutable(),
                        load.getVectorType());
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return vectorAccess(store.getBaseMutable(), store.getIndicesMutable(),
                        store.getVectorType());
  if (auto load = dyn_cast<LdMatrixOp>(op))
    return access(load.getSrcMutable(), load.getIndicesMutable(),
                  kMatrixRowBytes);
  if (auto store = dyn_cast<StMatrixOp>(op))
    return access(store.getDstMutable(), store.getIndicesMutable(),
                  kMatrixRowBytes);
  if (auto copy = dyn_cast<AsyncCopyOp>(op))
    return access(copy.getDstMutable(), copy.getDstIndicesMutable(),
                  copy.getSize());
  return std::nullopt;
}
