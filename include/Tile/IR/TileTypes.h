//===- TileTypes.h - Types of the tile dialect ------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILETYPES_H
#define TILE_IR_TILETYPES_H

#include "Tile/IR/TileAttrs.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileOpsTypes.h.inc"

#endif // TILE_IR_TILETYPES_H
