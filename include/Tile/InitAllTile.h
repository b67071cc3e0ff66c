//===- InitAllTile.h - Register everything tile provides --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_INITALLTILE_H
#define TILE_INITALLTILE_H

#include "Tile/Conversion/Passes.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Pipelines/Pipelines.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::tile {

/// Registers the tile dialect and its conversion-to-LLVM interface.
inline void registerAllTileDialects(DialectRegistry &registry) {
  registry.insert<TileDialect>();
  registerConvertTileToLLVMInterface(registry);
}

/// Registers the tile transformation and conversion passes.
inline void registerAllTilePasses() {
  registerTilePasses();
  registerTileConversionPasses();
}

/// Registers the dialect, the passes and the named pipelines.
inline void registerAllTile(DialectRegistry &registry) {
  registerAllTileDialects(registry);
  registerAllTilePasses();
  registerTilePipelines();
}

} // namespace mlir::tile

#endif // TILE_INITALLTILE_H
