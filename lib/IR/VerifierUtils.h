//===- VerifierUtils.h - Checks shared by several op verifiers --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_IR_VERIFIERUTILS_H
#define TILE_LIB_IR_VERIFIERUTILS_H

#include "Tile/IR/TileTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::tile {

/// T-CPASYNC-7: the pending count of a cp.async or bulk wait_group is a
/// non-negative constant.
LogicalResult verifyPendingGroups(Operation *op, IntegerAttr pending);

/// T-MBAR-4: a static barrier index selects one of the group's barriers.
LogicalResult verifyBarrierIndex(Operation *op, MBarrierType type, Value index);

} // namespace mlir::tile

#endif // TILE_LIB_IR_VERIFIERUTILS_H
