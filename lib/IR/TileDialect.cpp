//===- TileDialect.cpp - The tile dialect ---------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

#include "Tile/IR/TileOpsDialect.cpp.inc"

void TileDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Tile/IR/TileOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}
