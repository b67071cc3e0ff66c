//===- TileAttrs.h - Enums and attributes of the tile dialect ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEATTRS_H
#define TILE_IR_TILEATTRS_H

#include "Tile/Layout/Layout.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "Tile/IR/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.h.inc"

#endif // TILE_IR_TILEATTRS_H
