//===- SharedMemoryOps.cpp - Shared-memory buffers ------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

int64_t SharedAllocOp::getRequiredAlignment() {
  // TMA's minimum also covers cp.async and bulk copies (16 bytes).
  int64_t alignment = kTmaSharedAlignment;
  if (std::optional<SwizzleAttr> swizzle = getSwizzle())
    alignment = std::max(alignment, swizzle->getRepeatBytes());
  if (std::optional<uint64_t> explicitAlignment = getAlignment())
    alignment = std::max(alignment, int64_t(*explicitAlignment));
  return alignment;
}

int64_t SharedAllocOp::getSizeInBytes() {
  MemRefType type = getBuffer().getType();
  return type.getNumElements() * type.getElementTypeBitWidth() / 8;
}

DynamicSharedLayout tile::layoutDynamicSharedMemory(Region &body) {
  DynamicSharedLayout layout;
  body.walk<WalkOrder::PreOrder>([&](SharedAllocOp alloc) {
    if (!alloc.getDynamic())
      return;
    int64_t alignment = alloc.getRequiredAlignment();
    int64_t offset = llvm::alignTo(layout.totalBytes, alignment);
    layout.offsets.emplace_back(alloc, offset);
    layout.totalBytes = offset + alloc.getSizeInBytes();
    layout.maxAlignment = std::max(layout.maxAlignment, alignment);
  });
  return layout;
}

LogicalResult SharedAllocOp::verify() {
  MemRefType type = getBuffer().getType();
  // T-SWZ-4: a dense static buffer in shared memory.
  if (!isSharedMemory(type) || !type.getLayout().isIdentity())
    return emitOpError() << "expected a shared-memory memref with the identity "
                            "layout, got "
                         << type << " (T-SWZ-4)";
  // T-SMEM-3: elements of whole bytes, which every size, offset and swizzle
  // computation of the buffer assumes, and at least one of them.
  if (!getElementSizeInBytes(type.getElementType()))
    return emitOpError() << "expected an integer or float element type of "
                            "whole bytes, got "
                         << type.getElementType() << " (T-SMEM-3)";
  if (type.getNumElements() < 1)
    return emitOpError() << "expected a buffer of at least one element, got "
                         << type << " (T-SMEM-3)";
  // T-SMEM-4: a static buffer fits in a kernel's static shared memory.
  if (!getDynamic() && getSizeInBytes() > kMaxStaticSharedMemoryBytes)
    return emitOpError() << "static shared buffer of " << getSizeInBytes()
                         << " bytes exceeds the " << kMaxStaticSharedMemoryBytes
                         << " bytes (48 KB) of static shared memory a kernel "
                            "may have; allocate it with `tile.shared_alloc "
                            "dynamic` and launch with "
                            "dynamic_shared_memory_size (T-SMEM-4)";
  // T-SMEM-2: a dynamic buffer's alignment is one the base guarantees.
  if (getDynamic() && getRequiredAlignment() > kDynamicSharedBaseAlignment)
    return emitOpError() << "dynamic shared buffers can be aligned to at most "
                         << kDynamicSharedBaseAlignment << " bytes, got "
                         << getRequiredAlignment() << " (T-SMEM-2)";
  if (std::optional<uint64_t> alignment = getAlignment()) {
    if (!llvm::isPowerOf2_64(*alignment))
      return emitOpError() << "alignment must be a power of two, got "
                           << *alignment << " (T-SWZ-4)";
    // T-SWZ-3: a swizzled buffer starts at a multiple of the swizzle repeat.
    if (std::optional<SwizzleAttr> swizzle = getSwizzle())
      if (int64_t(*alignment) < swizzle->getRepeatBytes())
        return emitOpError()
               << "swizzle " << *swizzle << " needs the buffer "
               << swizzle->getRepeatBytes() << "-byte aligned, got "
               << *alignment << " (T-SWZ-3)";
  }
  return success();
}
