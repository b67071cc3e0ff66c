//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEOPS_H
#define TILE_IR_TILEOPS_H

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/IR/TileInterfaces.h.inc"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.h.inc"

#endif // TILE_IR_TILEOPS_H
