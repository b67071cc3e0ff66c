//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEOPS_H
#define TILE_IR_TILEOPS_H

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileTraits.h"
#include "Tile/IR/TileTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

// The interfaces need the types above.
#include "Tile/IR/TileInterfaces.h.inc"

namespace mlir::tile {
/// The `x1`/`x2`/`x4` matrix count of ldmatrix/stmatrix.
ParseResult parseMatrixCount(OpAsmParser &parser, IntegerAttr &num);
void printMatrixCount(OpAsmPrinter &printer, Operation *op, IntegerAttr num);
/// The scope (a ReduceScopeAttr) that tile-lower-tile-ops leaves on the
/// first gpu.subgroup_reduce of an expanded tile.reduce: the threads that
/// must reach it (T-RED-6, checked after the expansion).
inline constexpr llvm::StringLiteral kReduceScopeAttrName = "tile.reduce_scope";
/// The combining kind of tile.reduce as a bare keyword (`add`, `maximumf`).
ParseResult parseReduceKind(OpAsmParser &parser,
                            gpu::AllReduceOperationAttr &kind);
void printReduceKind(OpAsmPrinter &printer, Operation *op,
                     gpu::AllReduceOperationAttr kind);
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.h.inc"

#endif // TILE_IR_TILEOPS_H
