//===- ThreadPredicates.h - Block shapes and thread dependence --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_THREADPREDICATES_H
#define TILE_ANALYSIS_THREADPREDICATES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <array>
#include <optional>

namespace mlir::tile {

/// The gpu.launch_func ops of `kernel` in its enclosing module.
SmallVector<gpu::LaunchFuncOp> getLaunches(gpu::GPUFuncOp kernel);

/// The block shape (x, y, z) of `kernel`: its known_block_size, else the
/// constant block shape shared by every launch of it in the module; none
/// where that shape cannot be launched (T-TARGET-8: an extent below 1 or
/// past kMaxBlockExtents, or more than kMaxThreadsPerBlock threads).
std::optional<std::array<int64_t, 3>> getBlockShape(gpu::GPUFuncOp kernel);

/// Threads of a block of `kernel`, known the same ways.
std::optional<int64_t> getBlockThreads(gpu::GPUFuncOp kernel);

/// Whether `op` computes from the thread's id (thread_id, lane_id,
/// subgroup_id, elect_sync), through up to `depth` levels of operands.
bool dependsOnThreadId(Operation *op, int depth = 16);

} // namespace mlir::tile

#endif // TILE_ANALYSIS_THREADPREDICATES_H
