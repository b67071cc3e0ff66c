//===- ScheduleOps.cpp - Persistent tile schedules ------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult TileCoordOp::verify() {
  // T-TILE-7: a group holds at least one tile row.
  if (getGroup() < 1)
    return emitOpError() << "a group holds at least one tile row, got group "
                         << getGroup() << " (T-TILE-7)";
  return success();
}

void WorkUnitOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getTile(), "tile");
  setNameFn(getFirst(), "first");
  setNameFn(getCount(), "count");
  setNameFn(getFixup(), "fixup");
  setNameFn(getSplit(), "split");
  setNameFn(getSplits(), "splits");
}
