//===- NamedBarrierOps.cpp - Verifiers of the named barrier ops -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tile;

/// T-BAR-1: a kernel's named barriers are 9 to 15 (0 to 8 are the tile
/// ops'), met by a positive multiple of 32 threads, at most a CTA's.
static LogicalResult verifyNamedBarrier(Operation *op, Value id,
                                        int64_t threads) {
  if (threads <= 0 || threads % 32 || threads > kMaxThreadsPerBlock)
    return op->emitOpError()
           << "a named barrier is met by whole warps: "
              "expected a multiple of 32 threads in [32, "
           << kMaxThreadsPerBlock << "], got " << threads << " (T-BAR-1)";
  std::optional<int64_t> constant = getConstantIntValue(id);
  if (constant &&
      (*constant < kFirstKernelNamedBarrier || *constant >= kNamedBarriers))
    return op->emitOpError()
           << "named barriers 0 to " << kFirstKernelNamedBarrier - 1
           << " belong to gpu.barrier and the tile ops' warpgroups: expected "
              "an id in ["
           << kFirstKernelNamedBarrier << ", " << kNamedBarriers << "), got "
           << *constant << " (T-BAR-1)";
  return success();
}

LogicalResult NamedBarrierSyncOp::verify() {
  return verifyNamedBarrier(*this, getId(), int32_t(getThreads()));
}

LogicalResult NamedBarrierArriveOp::verify() {
  return verifyNamedBarrier(*this, getId(), int32_t(getThreads()));
}
