//===- FirstThread.h - The thread that issues one-thread work ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TRANSFORMS_FIRSTTHREAD_H
#define TILE_LIB_TRANSFORMS_FIRSTTHREAD_H

#include "mlir/IR/Builders.h"

namespace mlir::tile {

/// Emits `thread (x, y, z) == (0, 0, 0)`: the one thread of the block that
/// issues single-thread work (TMA copies, barrier initialization).
Value isFirstThread(OpBuilder &builder, Location loc);

} // namespace mlir::tile

#endif // TILE_LIB_TRANSFORMS_FIRSTTHREAD_H
