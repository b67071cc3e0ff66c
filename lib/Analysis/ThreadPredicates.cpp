//===- ThreadPredicates.cpp - Which and how many threads run an op --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

SmallVector<gpu::LaunchFuncOp> mlir::tile::getLaunches(gpu::GPUFuncOp kernel) {
  SmallVector<gpu::LaunchFuncOp> launches;
  auto module = kernel->getParentOfType<ModuleOp>();
  if (!module)
    return launches;
  module.walk([&](gpu::LaunchFuncOp launch) {
    if (launch.getKernelName() == kernel.getName())
      launches.push_back(launch);
  });
  return launches;
}

bool mlir::tile::dependsOnThreadId(Operation *op, int depth) {
  if (isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp, ElectSyncOp>(op))
    return true;
  if (depth == 0)
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    Operation *def = operand.getDefiningOp();
    return def && dependsOnThreadId(def, depth - 1);
  });
}

/// `shape` where a CTA of it can be launched (T-TARGET-8), else nothing:
/// the analyses that enumerate a block's threads skip a kernel declared
/// otherwise.
static std::optional<std::array<int64_t, 3>>
launchable(std::optional<std::array<int64_t, 3>> shape) {
  if (shape && tile::isLaunchableBlock((*shape)[0], (*shape)[1], (*shape)[2]))
    return shape;
  return std::nullopt;
}

std::optional<std::array<int64_t, 3>>
mlir::tile::getBlockShape(gpu::GPUFuncOp kernel) {
  if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize())
    return launchable(
        std::array<int64_t, 3>{(*known)[0], (*known)[1], (*known)[2]});
  std::optional<std::array<int64_t, 3>> shape;
  bool consistent = true;
  for (gpu::LaunchFuncOp launch : getLaunches(kernel)) {
    std::array<int64_t, 3> dims;
    std::array<Value, 3> sizes = {
        launch.getBlockSizeX(), launch.getBlockSizeY(), launch.getBlockSizeZ()};
    for (auto [i, dim] : llvm::enumerate(sizes)) {
      APInt value;
      if (!matchPattern(dim, m_ConstantInt(&value))) {
        consistent = false;
        break;
      }
      dims[i] = value.getSExtValue();
    }
    if (!consistent)
      break;
    if (shape && *shape != dims)
      consistent = false;
    shape = dims;
  }
  return consistent ? launchable(shape) : std::nullopt;
}

std::optional<int64_t> mlir::tile::getBlockThreads(gpu::GPUFuncOp kernel) {
  std::optional<std::array<int64_t, 3>> shape = getBlockShape(kernel);
  if (!shape)
    return std::nullopt;
  return (*shape)[0] * (*shape)[1] * (*shape)[2];
}
