//===- TileTypes.h - Types of the tile dialect ------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILETYPES_H
#define TILE_IR_TILETYPES_H

#include "Tile/IR/TileAttrs.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileOpsTypes.h.inc"

namespace mlir::tile {
/// The CUtensorMapDataType of tensors with elements of `type` (the contract's
/// element-type table), or nullopt when a tensor map cannot describe them.
std::optional<::tile_tma::DataType> getTensorMapDataType(Type type);
} // namespace mlir::tile

#endif // TILE_IR_TILETYPES_H
