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

/// How the shared-tile indices of a TMA load, store or reduction place the
/// box in the tile (T-TMA-17, T-TMA-24).
struct TmaTileForm {
  /// The indices before the box: they select the tile among the leading
  /// (stage) dimensions.
  unsigned leadingRank = 0;
  /// T-TMA-24 (loads): one more index follows, the row of a taller tile at
  /// which the box lands.
  bool hasRowIndex = false;
  /// With a row index: the box's rows (its outermost extent after the
  /// leading 1s), the tile's, the bytes of one row, the alignment TMA needs
  /// and the rows a row index must be a multiple of to keep it.
  int64_t boxRows = 0;
  int64_t tileRows = 0;
  int64_t rowBytes = 0;
  int64_t alignmentBytes = 0;
  int64_t alignedRows = 1;

  /// "8 (1024-byte swizzle repeat of 128-byte rows)", for messages.
  std::string describeAlignedRows() const;
};

/// The form in which a shared tile of type `tile` holds the box of `desc`
/// for `numIndices` indices: the whole box, or the box without its leading
/// 1s, after one index per leading dimension; with `allowsRowRange` (loads)
/// also that box in a row range of a tile of more rows, after one more index
/// (the count decides between the forms). Where the count fits no form, the
/// one the tile's shape suggests; std::nullopt where the tile ends with none.
std::optional<TmaTileForm> getTmaTileForm(TmaDescType desc, MemRefType tile,
                                          size_t numIndices,
                                          bool allowsRowRange);
} // namespace mlir::tile

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.h.inc"

#endif // TILE_IR_TILEOPS_H
