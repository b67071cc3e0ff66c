//===- BulkCopyOps.cpp - Verifiers of the 1D bulk copy ops ----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "VerifierUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tile;

/// cp.async.bulk moves multiples of 16 bytes between 16-byte-aligned
/// addresses (PTX ISA, "cp.async.bulk").
static constexpr int64_t kBulkGranule = 16;

bool BulkCopyGlobalToSharedOp::requiresClusterLaunch() {
  return bool(getMulticastMask());
}
/// `.cp_mask` exists from sm_100 and PTX ISA 8.6 on.
unsigned BulkCopySharedToGlobalOp::getMinSmVersion() {
  return getByteMask() ? kSm100 : kMinSmVersion;
}
unsigned BulkCopySharedToGlobalOp::getMinPtxVersion() {
  return getByteMask() ? 86 : 0;
}
bool BulkCopySharedToClusterOp::requiresClusterLaunch() { return true; }

/// Where the source and destination of a bulk copy live.
enum class BulkDirection { GlobalToShared, SharedToGlobal, SharedToShared };

/// T-BULK-3: `type` is in the state space `role` needs.
static LogicalResult verifySpace(Operation *op, MemRefType type, bool shared,
                                 StringRef role) {
  if (shared ? isSharedMemory(type) : isGlobalMemory(type))
    return success();
  return op->emitOpError() << "expected the " << role << " in "
                           << (shared ? "shared" : "global") << " memory, got "
                           << type << " (T-BULK-3)";
}

/// T-BULK-1: a positive multiple of 16 bytes, where constant.
static LogicalResult verifyBulkSize(Operation *op, Value bytes) {
  std::optional<int64_t> size = getConstantIntValue(bytes);
  if (size && (*size <= 0 || *size % kBulkGranule))
    return op->emitOpError() << "expected a positive multiple of 16 bytes, got "
                             << *size << " (T-BULK-1)";
  return success();
}

/// T-BULK-1..3 for every direction.
static LogicalResult verifyBulkCopy(Operation *op, MemRefType src,
                                    ValueRange srcIndices, MemRefType dst,
                                    ValueRange dstIndices, Value bytes,
                                    BulkDirection direction) {
  // T-BULK-3: the state spaces of the direction.
  if (failed(verifySpace(op, src, direction != BulkDirection::GlobalToShared,
                         "source")) ||
      failed(verifySpace(op, dst, direction != BulkDirection::SharedToGlobal,
                         "destination")))
    return failure();
  if (int64_t(srcIndices.size()) != src.getRank() ||
      int64_t(dstIndices.size()) != dst.getRank())
    return op->emitOpError()
           << "expected one index per dimension of " << src << " and " << dst;
  if (!hasContiguousInnerDim(src) || !hasContiguousInnerDim(dst))
    return op->emitOpError() << "expected contiguous innermost dimensions, got "
                             << src << " and " << dst << " (T-BULK-3)";
  if (failed(verifyBulkSize(op, bytes)))
    return failure();
  // T-BULK-2: both addresses 16-byte aligned, where static.
  for (auto [name, type, indices] :
       {std::tuple<StringRef, MemRefType, ValueRange>{"source", src,
                                                      srcIndices},
        {"destination", dst, dstIndices}})
    if (std::optional<int64_t> offset = getStaticByteOffset(type, indices))
      if (*offset % kBulkGranule)
        return op->emitOpError() << name << " byte offset " << *offset
                                 << " is not 16-byte aligned (T-BULK-2)";
  return success();
}

LogicalResult BulkCopyGlobalToSharedOp::verify() {
  return verifyBulkCopy(*this, getSrc().getType(), getSrcIndices(),
                        getDst().getType(), getDstIndices(), getBytes(),
                        BulkDirection::GlobalToShared);
}

LogicalResult BulkCopySharedToGlobalOp::verify() {
  return verifyBulkCopy(*this, getSrc().getType(), getSrcIndices(),
                        getDst().getType(), getDstIndices(), getBytes(),
                        BulkDirection::SharedToGlobal);
}

LogicalResult BulkCopySharedToClusterOp::verify() {
  if (failed(verifyBulkCopy(*this, getSrc().getType(), getSrcIndices(),
                            getDst().getType(), getDstIndices(), getBytes(),
                            BulkDirection::SharedToShared)))
    return failure();
  return verifyBarrierIndex(*this, getBarriers().getType(), getBarrierIndex());
}

LogicalResult BulkPrefetchOp::verify() {
  MemRefType type = getSrc().getType();
  if (failed(verifySpace(*this, type, /*shared=*/false, "source")))
    return failure();
  if (int64_t(getIndices().size()) != type.getRank())
    return emitOpError() << "expected one index per dimension of " << type;
  if (!hasContiguousInnerDim(type))
    return emitOpError() << "expected a contiguous innermost dimension, got "
                         << type << " (T-BULK-3)";
  if (failed(verifyBulkSize(*this, getBytes())))
    return failure();
  if (std::optional<int64_t> offset = getStaticByteOffset(type, getIndices()))
    if (*offset % kBulkGranule)
      return emitOpError() << "source byte offset " << *offset
                           << " is not 16-byte aligned (T-BULK-2)";
  return success();
}

LogicalResult BulkWaitGroupOp::verify() {
  return verifyPendingGroups(*this, getPendingAttr());
}
