//===- ToolMains.h - Entry points of the tile tools -------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each tool's main is a function so that tile-tools can link all three into
// one multi-call executable: the GPU machine gets one static binary that
// shares the LLVM/MLIR code instead of three copies of it.
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TOOLMAINS_H
#define TILE_TOOLS_TOOLMAINS_H

namespace tile {
int tileOptMain(int argc, char **argv);
int tileTranslateMain(int argc, char **argv);
int tileRunMain(int argc, char **argv);
} // namespace tile

#endif // TILE_TOOLS_TOOLMAINS_H
