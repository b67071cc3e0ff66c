//===- BarrierOpInterface.cpp - What the tile ops do to their mbarrier ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The roles of the ops that implement BarrierOpInterface, one table for the
// protocol checks (PTX ISA, "mbarrier": phases, arrivals, tx-count). Methods
// an op does not define keep the interface's "no such role" defaults.
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tile;

bool BarrierOpInterface::namesSameBarrier(BarrierOpInterface other) {
  if (getBarrierGroup() != other.getBarrierGroup())
    return false;
  Value index = getBarrierIndex(), otherIndex = other.getBarrierIndex();
  if (index == otherIndex)
    return true;
  std::optional<int64_t> value = getConstantIntValue(index);
  return value && value == getConstantIntValue(otherIndex);
}

/// A count the op fixes.
static OpFoldResult fixed(Operation *op, int64_t count) {
  return getAsIndexOpFoldResult(op->getContext(), count);
}

/// The bytes of one box of `desc`, which a TMA load completes.
static OpFoldResult boxBytes(Operation *op, TmaDescType desc) {
  return fixed(op, desc.getBoxBytes());
}

Value MBarrierInitOp::getInitCount() { return getCount(); }

OpFoldResult MBarrierArriveOp::getArrivalCount() {
  if (Value count = getCount())
    return count;
  return fixed(*this, 1);
}

/// One arrival; the later phases then expect one fewer.
OpFoldResult MBarrierArriveDropOp::getArrivalCount() { return fixed(*this, 1); }

OpFoldResult MBarrierArriveExpectTxOp::getArrivalCount() {
  return fixed(*this, 1);
}
OpFoldResult MBarrierArriveExpectTxOp::getExpectedTxBytes() {
  return getBytes();
}

OpFoldResult MBarrierExpectTxOp::getExpectedTxBytes() { return getBytes(); }

OpFoldResult MBarrierCompleteTxOp::getCompletedTxBytes() { return getBytes(); }

bool MBarrierTestWaitOp::isWait() { return true; }
bool MBarrierTryWaitOp::isWait() { return true; }
bool MBarrierTryWaitParityOp::isWait() { return true; }
Value MBarrierTryWaitParityOp::getWaitParity() { return getPhase(); }
bool MBarrierWaitParityOp::isWait() { return true; }
Value MBarrierWaitParityOp::getWaitParity() { return getPhase(); }

bool MBarrierInvalOp::isInval() { return true; }

/// Without `noinc` the pending count is raised first: no net arrival.
OpFoldResult AsyncCopyMBarrierArriveOp::getArrivalCount() {
  return fixed(*this, getNoinc() ? 1 : 0);
}

/// One arrival on the barrier of CTA `rank`.
OpFoldResult MBarrierArriveRemoteOp::getArrivalCount() {
  return fixed(*this, 1);
}
bool MBarrierArriveRemoteOp::signalsRemoteBarriers() { return true; }

OpFoldResult BulkCopyGlobalToSharedOp::getCompletedTxBytes() {
  return getBytes();
}
bool BulkCopyGlobalToSharedOp::signalsRemoteBarriers() {
  return bool(getMulticastMask());
}

/// The barrier of CTA `rank` receives the bytes.
OpFoldResult BulkCopySharedToClusterOp::getCompletedTxBytes() {
  return getBytes();
}
bool BulkCopySharedToClusterOp::signalsRemoteBarriers() { return true; }

OpFoldResult TmaLoadOp::getCompletedTxBytes() {
  return boxBytes(*this, getDescriptor().getType());
}
bool TmaLoadOp::signalsRemoteBarriers() { return bool(getMulticastMask()); }

/// Thread 0 arrives with expect_tx of the box and starts its TMA load.
OpFoldResult TmaCopyOp::getArrivalCount() { return fixed(*this, 1); }
OpFoldResult TmaCopyOp::getExpectedTxBytes() {
  return boxBytes(*this, getDescriptor().getType());
}
OpFoldResult TmaCopyOp::getCompletedTxBytes() {
  return boxBytes(*this, getDescriptor().getType());
}
bool TmaCopyOp::isIssuedOnce() { return true; }
