//===- MBarrierOps.cpp - Verifiers of the mbarrier and fence ops ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "VerifierUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tile;

/// mbarrier.init count and arrive counts: [1, 2^20 - 1] (PTX ISA,
/// "mbarrier.init": count is a 20-bit pending arrival count).
static constexpr int64_t kMaxArrivalCount = (int64_t(1) << 20) - 1;
/// expect_tx / complete_tx byte counts: [0, 2^20 - 1] (PTX ISA, "tx-count").
static constexpr int64_t kMaxTxCount = (int64_t(1) << 20) - 1;

/// T-MBAR-2 / T-MBAR-3: a static count within the hardware's range.
static LogicalResult verifyCount(Operation *op, Value count, StringRef what,
                                 int64_t min, int64_t max, StringRef rule) {
  std::optional<int64_t> value =
      count ? getConstantIntValue(count) : std::nullopt;
  if (value && (*value < min || *value > max))
    return op->emitOpError() << what << " must be in [" << min << ", 2^20 - 1]"
                             << ", got " << *value << " (" << rule << ")";
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (failed(verifyBarrierIndex(*this, getBarriers().getType(), getIndex())))
    return failure();
  return verifyCount(*this, getCount(), "arrival count", 1, kMaxArrivalCount,
                     "T-MBAR-2");
}

LogicalResult MBarrierArriveOp::verify() {
  if (failed(verifyBarrierIndex(*this, getBarriers().getType(), getIndex())))
    return failure();
  return verifyCount(*this, getCount(), "arrival count", 1, kMaxArrivalCount,
                     "T-MBAR-2");
}

LogicalResult MBarrierArriveDropOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

/// The ops that move a transaction count: index and byte range.
template <typename OpT> static LogicalResult verifyTxCountOp(OpT op) {
  if (failed(verifyBarrierIndex(op, op.getBarriers().getType(), op.getIndex())))
    return failure();
  return verifyCount(op, op.getBytes(), "transaction bytes", 0, kMaxTxCount,
                     "T-MBAR-3");
}

LogicalResult MBarrierArriveExpectTxOp::verify() {
  return verifyTxCountOp(*this);
}
LogicalResult MBarrierExpectTxOp::verify() { return verifyTxCountOp(*this); }
LogicalResult MBarrierCompleteTxOp::verify() { return verifyTxCountOp(*this); }

LogicalResult MBarrierTestWaitOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierTryWaitOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierTryWaitParityOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierWaitParityOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult MBarrierInvalOp::verify() {
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

LogicalResult AsyncCopyMBarrierArriveOp::verify() {
  if (getBarriers().getType().getScope() == MBarrierScope::cluster)
    return emitOpError() << "tracks cp.async copies on a barrier of this CTA; "
                            "got a cluster-scope "
                         << getBarriers().getType() << " (T-MBAR-5)";
  return verifyBarrierIndex(*this, getBarriers().getType(), getIndex());
}

//===----------------------------------------------------------------------===//
// Target requirements (T-TARGET-3) beyond the ODS minimum: cluster-scope
// barriers and arrive counts need sm_90.
//===----------------------------------------------------------------------===//

/// The smallest SM of an op on `type` whose minimum is otherwise `sm`.
static unsigned minSm(MBarrierType type, unsigned sm) {
  return type.getScope() == MBarrierScope::cluster ? std::max(sm, kSm90) : sm;
}

unsigned MBarrierAllocOp::getMinSmVersion() {
  return minSm(getBarriers().getType(), kMinSmVersion);
}
unsigned MBarrierInitOp::getMinSmVersion() {
  return minSm(getBarriers().getType(), kMinSmVersion);
}
unsigned MBarrierArriveOp::getMinSmVersion() {
  return minSm(getBarriers().getType(), getCount() ? kSm90 : kMinSmVersion);
}
unsigned MBarrierArriveDropOp::getMinSmVersion() {
  return minSm(getBarriers().getType(), kMinSmVersion);
}
unsigned MBarrierTestWaitOp::getMinSmVersion() {
  return minSm(getBarriers().getType(), kMinSmVersion);
}
unsigned MBarrierInvalOp::getMinSmVersion() {
  return minSm(getBarriers().getType(), kMinSmVersion);
}
