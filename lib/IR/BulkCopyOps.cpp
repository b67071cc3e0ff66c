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
static constexpr unsigned kSm90 = 90;

unsigned BulkCopyGlobalToSharedOp::getMinSmVersion() { return kSm90; }
unsigned BulkCopySharedToGlobalOp::getMinSmVersion() { return kSm90; }
unsigned BulkCommitGroupOp::getMinSmVersion() { return kSm90; }
unsigned BulkWaitGroupOp::getMinSmVersion() { return kSm90; }

/// T-BULK-1..3 for both directions.
static LogicalResult verifyBulkCopy(Operation *op, MemRefType src,
                                    ValueRange srcIndices, MemRefType dst,
                                    ValueRange dstIndices, Value bytes,
                                    bool toShared) {
  // T-BULK-3: the state spaces of the direction.
  MemRefType shared = toShared ? dst : src, global = toShared ? src : dst;
  if (!isSharedMemory(shared))
    return op->emitOpError() << "expected the " << (toShared ? "destination" : "source")
                             << " in shared memory, got " << shared << " (T-BULK-3)";
  if (!isGlobalMemory(global))
    return op->emitOpError() << "expected the " << (toShared ? "source" : "destination")
                             << " in global memory, got " << global << " (T-BULK-3)";
  if (int64_t(srcIndices.size()) != src.getRank() ||
      int64_t(dstIndices.size()) != dst.getRank())
    return op->emitOpError() << "expected one index per dimension of "
                             << src << " and " << dst;
  if (!hasContiguousInnerDim(src) || !hasContiguousInnerDim(dst))
    return op->emitOpError() << "expected contiguous innermost dimensions, got "
                             << src << " and " << dst << " (T-BULK-3)";
  // T-BULK-1: a positive multiple of 16 bytes.
  std::optional<int64_t> size = getConstantIntValue(bytes);
  if (size && (*size <= 0 || *size % kBulkGranule))
    return op->emitOpError() << "expected a positive multiple of 16 bytes, got "
                             << *size << " (T-BULK-1)";
  // T-BULK-2: both addresses 16-byte aligned, where static.
  for (auto [name, type, indices] :
       {std::tuple<StringRef, MemRefType, ValueRange>{"source", src, srcIndices},
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
                        /*toShared=*/true);
}

LogicalResult BulkCopySharedToGlobalOp::verify() {
  return verifyBulkCopy(*this, getSrc().getType(), getSrcIndices(),
                        getDst().getType(), getDstIndices(), getBytes(),
                        /*toShared=*/false);
}

LogicalResult BulkWaitGroupOp::verify() {
  return verifyPendingGroups(*this, getPendingAttr());
}
