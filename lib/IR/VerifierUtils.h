//===- VerifierUtils.h - Checks shared by several op verifiers --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_IR_VERIFIERUTILS_H
#define TILE_LIB_IR_VERIFIERUTILS_H

#include "Tile/IR/TileAttrs.h"
#include "Tile/IR/TileTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::tile {

/// T-CPASYNC-7: the pending count of a cp.async or bulk wait_group is a
/// non-negative constant.
LogicalResult verifyPendingGroups(Operation *op, IntegerAttr pending);

/// T-MBAR-4: a static barrier index selects one of the group's barriers.
LogicalResult verifyBarrierIndex(Operation *op, MBarrierType type, Value index);

/// T-TMA-16/21: one coordinate per tensor dimension; im2col offsets exactly
/// with an im2col descriptor, which only ops that allow it take.
LogicalResult verifyTmaCoordinates(Operation *op, TmaDescType desc,
                                   ValueRange coordinates,
                                   ValueRange im2colOffsets = {},
                                   bool allowsIm2col = false);

/// T-TMA-17, T-TMA-18 and T-SWZ-5 for the shared tile `tile[indices]` that a
/// TMA op with `desc` writes or reads (`role` names it in messages); with
/// `allowsRowRange` (loads), T-TMA-24 for a box in a row range of the tile.
LogicalResult verifyTmaSharedTile(Operation *op, TmaDescType desc, Value tile,
                                  ValueRange indices, StringRef role,
                                  bool allowsRowRange = false);

/// T-TMA-20: the element types a TMA reduction `kind` exists for.
bool isTmaReducible(TmaReduceKind kind, Type type);

/// T-WGMMA-1: `buffer` is a tile of a tile.shared_alloc with a TMA swizzle
/// whose rows are one swizzle span: K-major, or with `mnMajor` chunks of
/// (K rows, span of MN elements).
LogicalResult verifyWgmmaTile(Operation *op, Value buffer,
                              bool mnMajor = false);

} // namespace mlir::tile

#endif // TILE_LIB_IR_VERIFIERUTILS_H
