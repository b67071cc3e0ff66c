//===- TileOptMain.cpp - The tile optimizer driver -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with the tile dialect, its passes, its named pipelines and the
// test-only passes of test/lib.
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"
#include "Tile/InitAllTile.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mlir::tile::test {
void registerTestLayoutAlgebraPass();
} // namespace mlir::tile::test

/// The test-only passes of test/lib.
static void registerTestPasses() {
  mlir::tile::test::registerTestLayoutAlgebraPass();
}

int ::tile::tileOptMain(int argc, char **argv) {
  mlir::registerAllPasses();
  registerTestPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.modules to LLVM IR in process.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::tile::registerAllTile(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
