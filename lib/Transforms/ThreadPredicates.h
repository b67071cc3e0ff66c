//===- ThreadPredicates.h - Which and how many threads run an op -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TRANSFORMS_THREADPREDICATES_H
#define TILE_LIB_TRANSFORMS_THREADPREDICATES_H

#include <array>

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include <optional>

namespace mlir::tile {

/// Emits `thread (x, y, z) == (0, 0, 0)`: the one thread of the block that
/// issues single-thread work (TMA copies, barrier initialization).
Value isFirstThread(OpBuilder &builder, Location loc);

/// Threads of a block of `kernel`: its known_block_size, else the constant
/// block size shared by every launch of it in the module.
std::optional<int64_t> getBlockThreads(gpu::GPUFuncOp kernel);

/// The gpu.launch_func ops of `kernel` in its enclosing module.
SmallVector<gpu::LaunchFuncOp> getLaunches(gpu::GPUFuncOp kernel);

/// Whether `op` computes from the thread's id (thread_id, lane_id,
/// subgroup_id, elect_sync), through up to `depth` levels of operands.
bool dependsOnThreadId(Operation *op, int depth = 16);

/// The block shape (x, y, z) of `kernel`, known the same ways.
std::optional<std::array<int64_t, 3>> getBlockShape(gpu::GPUFuncOp kernel);

} // namespace mlir::tile

#endif // TILE_LIB_TRANSFORMS_THREADPREDICATES_H
