//===- VerifyAsyncProtocol.cpp - The tile-verify-async-protocol pass ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the protocol analyses of ProtocolAnalyses.h on every function: on
// kernels the arrival counts, then (when those hold) the role protocol; then
// the thread protocol, whose parity model is left to the role protocol where
// that simulated the kernel.
//===----------------------------------------------------------------------===//

#include "ProtocolAnalyses.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEVERIFYASYNCPROTOCOLPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

Value tile::getRootBuffer(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      memref = view.getViewSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      memref = cast.getSource();
    else
      break;
  }
  return memref;
}

std::optional<SharedCopy> tile::getSharedCopy(Operation *op) {
  // A TMA copy fills the whole tile its indices name: they index the
  // dimensions before the box (T-TMA-17, which lets the tile leave out the
  // box's leading 1s).
  auto tmaCopy = [](Value dst, ValueRange indices) -> SharedCopy {
    bool ring = getRootBuffer(dst) == dst && !indices.empty();
    return {dst, indices, ring};
  };
  if (auto load = dyn_cast<TmaLoadOp>(op))
    return tmaCopy(load.getDst(), load.getDstIndices());
  if (auto copy = dyn_cast<TmaCopyOp>(op))
    return tmaCopy(copy.getDst(), copy.getDstIndices());
  auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(op);
  if (!bulk)
    return std::nullopt;
  auto type = cast<MemRefType>(bulk.getDst().getType());
  ValueRange indices = bulk.getDstIndices();
  std::optional<int64_t> elementBytes =
      getElementSizeInBytes(type.getElementType());
  std::optional<int64_t> bytes = getConstantIntValue(bulk.getBytes());
  bool ring =
      getRootBuffer(bulk.getDst()) == bulk.getDst() && type.hasStaticShape() &&
      type.getRank() >= 2 && type.getDimSize(0) > 0 &&
      static_cast<int64_t>(indices.size()) == type.getRank() && elementBytes &&
      bytes &&
      *bytes == type.getNumElements() / type.getDimSize(0) * *elementBytes &&
      llvm::all_of(indices.drop_front(),
                   [](Value index) { return getConstantIntValue(index) == 0; });
  return SharedCopy{bulk.getDst(), indices, ring};
}

LogicalResult tile::verifyAsyncProtocol(FunctionOpInterface function,
                                        bool explain) {
  bool failed = false;
  bool rolesModeled = false;
  if (auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
      kernel && kernel.isKernel()) {
    // Counts that cannot complete a phase also deadlock the roles: report
    // the cause once.
    failed = mlir::failed(checkAlignedUniformity(kernel)) ||
             mlir::failed(checkArrivalCounts(kernel));
    if (!failed) {
      RoleVerdict verdict = checkRoleProtocol(kernel, explain);
      failed = verdict == RoleVerdict::failed;
      rolesModeled = verdict != RoleVerdict::notModeled;
    }
  }
  failed |= mlir::failed(checkThreadProtocol(function, !rolesModeled));
  return failure(failed);
}

namespace {
struct TileVerifyAsyncProtocolPass
    : tile::impl::TileVerifyAsyncProtocolPassBase<TileVerifyAsyncProtocolPass> {
  using Base::Base;
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](FunctionOpInterface function) {
      if (!function.isExternal() &&
          mlir::failed(verifyAsyncProtocol(function, explainRoles)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
