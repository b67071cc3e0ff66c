//===- SharedCopies.cpp - Copies into shared memory that barriers complete ===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "ProtocolAnalyses.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;

Value tile::getRootBuffer(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      memref = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      memref = cast.getSource();
    else
      break;
  }
  return memref;
}

std::optional<SharedCopy> tile::getSharedCopy(Operation *op) {
  // A TMA copy fills (a row range of) the tile its leading indices name:
  // those of the dimensions before the box (T-TMA-17, which lets the tile
  // leave out the box's leading 1s), without the row a box of fewer rows
  // lands at (T-TMA-24). The copies into the rows of a tile fill one stage.
  auto tmaCopy = [](TmaDescType desc, Value dst,
                    ValueRange indices) -> SharedCopy {
    std::optional<TmaTileForm> form =
        getTmaTileForm(desc, cast<MemRefType>(dst.getType()), indices.size(),
                       /*allowsRowRange=*/true);
    ValueRange stage =
        indices.take_front(form ? form->leadingRank : indices.size());
    bool ring = getRootBuffer(dst) == dst && !stage.empty();
    return {dst, stage, ring};
  };
  if (auto load = dyn_cast<TmaLoadOp>(op))
    return tmaCopy(load.getDescriptor().getType(), load.getDst(),
                   load.getDstIndices());
  if (auto copy = dyn_cast<TmaCopyOp>(op))
    return tmaCopy(copy.getDescriptor().getType(), copy.getDst(),
                   copy.getDstIndices());
  auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(op);
  if (!bulk)
    return std::nullopt;
  auto type = cast<MemRefType>(bulk.getDst().getType());
  ValueRange indices = bulk.getDstIndices();
  std::optional<int64_t> elementBytes =
      getElementSizeInBytes(type.getElementType());
  std::optional<int64_t> bytes = getConstantIntValue(bulk.getBytes());
  bool ring =
      getRootBuffer(bulk.getDst()) == bulk.getDst() && type.hasStaticShape() &&
      type.getRank() >= 2 && type.getDimSize(0) > 0 &&
      static_cast<int64_t>(indices.size()) == type.getRank() && elementBytes &&
      bytes && *bytes > 0 &&
      *bytes <= type.getNumElements() / type.getDimSize(0) * *elementBytes &&
      llvm::all_of(indices.drop_front(),
                   [](Value index) { return getConstantIntValue(index) == 0; });
  return SharedCopy{bulk.getDst(), indices, ring};
}
