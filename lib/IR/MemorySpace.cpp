//===- MemorySpace.cpp - Which PTX state space a memref lives in ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/HardwareLimits.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

/// Returns the numeric address space of `type`, mapping the gpu dialect's
/// symbolic spaces onto NVPTX numbers, or std::nullopt for unknown spaces.
static std::optional<unsigned> getNVPTXAddressSpace(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return tile::kGenericAddressSpace;
  if (auto intAttr = dyn_cast<IntegerAttr>(space))
    return static_cast<unsigned>(intAttr.getInt());
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (gpuSpace.getValue()) {
    case gpu::AddressSpace::Global:
      return tile::kGlobalAddressSpace;
    case gpu::AddressSpace::Workgroup:
      return tile::kSharedAddressSpace;
    case gpu::AddressSpace::Private:
      return 5u; // NVPTX .local
    }
  }
  return std::nullopt;
}

bool tile::isSharedMemory(MemRefType type) {
  return getNVPTXAddressSpace(type) == kSharedAddressSpace;
}

bool tile::isGlobalMemory(MemRefType type) {
  std::optional<unsigned> space = getNVPTXAddressSpace(type);
  return space == kGenericAddressSpace || space == kGlobalAddressSpace;
}

bool tile::hasContiguousInnerDim(MemRefType type) {
  if (type.getRank() == 0)
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  return strides.back() == 1;
}

std::optional<int64_t> tile::getElementSizeInBytes(Type type) {
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8)
    return std::nullopt;
  return type.getIntOrFloatBitWidth() / 8;
}

std::optional<int64_t> tile::getStaticByteOffset(MemRefType type,
                                                 ValueRange indices) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset))
    return std::nullopt;
  std::optional<int64_t> elementBytes =
      getElementSizeInBytes(type.getElementType());
  if (!elementBytes)
    return std::nullopt;
  int64_t linear = offset;
  for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
    std::optional<int64_t> constant = getConstantIntValue(index);
    if (!constant || ShapedType::isDynamic(stride))
      return std::nullopt;
    linear += *constant * stride;
  }
  return linear * *elementBytes;
}
