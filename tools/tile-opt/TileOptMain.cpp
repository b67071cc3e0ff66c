//===- TileOptMain.cpp - The tile optimizer driver -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// mlir-opt with the tile dialect, its passes and its named pipelines.
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"
#include "Tile/InitAllTile.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int ::tile::tileOptMain(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates gpu.modules to LLVM IR in process.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::tile::registerAllTile(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tile optimizer driver\n", registry));
}
