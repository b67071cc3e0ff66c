//===- BankConflicts.cpp - Shared-memory bank conflicts of a warp ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// For a shared-memory access, evaluates the byte address every lane of warp 0
// touches (thread_id x = lane, loop induction variables at their first
// value), splits the warp into the phases the hardware serves together (32
// lanes for 4-byte accesses, 16 for 8-byte, 8 for 16-byte: 128 bytes per
// phase), and counts the distinct 4-byte words each of the 32 banks must
// deliver in a phase. A conflict (n > 1) comes with the swizzle that the
// formula below proposes, re-checked on the swizzled addresses:
//   M = log2(access bytes), S = log2(max(128, row bytes) / 2^M),
//   B = log2(128 / 2^M)            (all on byte offsets, #tile.swizzle<B,M,S>)
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/BankConflicts.h"
#include "IndexEvaluation.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kBanks = 32;
constexpr int64_t kBankBytes = 4;
constexpr int64_t kPhaseBytes = kBanks * kBankBytes; // 128
/// The widest access one thread makes (ld/st.shared.v4.b32); wider vectors
/// are split into such accesses, which this analysis does not model.
constexpr int64_t kMaxAccessBytes = 16;

/// Evaluates index arithmetic for one lane: thread_id x is the lane (other
/// dimensions 0), loop induction variables take their lower bound.
std::optional<int64_t> evaluateForLane(Value value, int64_t lane) {
  std::function<std::optional<int64_t>(Value)> leaf =
      [&](Value v) -> std::optional<int64_t> {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (forOp && arg == forOp.getInductionVar())
        return evaluateIndex(forOp.getLowerBound(), leaf);
      return std::nullopt;
    }
    if (auto tid = v.getDefiningOp<gpu::ThreadIdOp>())
      return tid.getDimension() == gpu::Dimension::x ? lane : 0;
    return std::nullopt;
  };
  return evaluateIndex(value, leaf);
}

/// The n-way conflict of the warp's accesses of `width` bytes at `addresses`
/// (one per lane), optionally through `swizzle`.
int64_t conflictDegree(ArrayRef<int64_t> addresses, int64_t width,
                       SwizzleAttr swizzle) {
  int64_t lanesPerPhase = std::max<int64_t>(1, kPhaseBytes / width);
  int64_t worst = 1;
  for (size_t first = 0; first < addresses.size(); first += lanesPerPhase) {
    std::map<int64_t, llvm::DenseSet<int64_t>> wordsPerBank;
    for (size_t lane = first;
         lane < std::min(addresses.size(), size_t(first + lanesPerPhase));
         ++lane)
      for (int64_t byte = 0; byte < width; byte += kBankBytes) {
        int64_t address = addresses[lane] + byte;
        if (swizzle)
          address = swizzle.apply(address);
        int64_t word = address / kBankBytes;
        wordsPerBank[word % kBanks].insert(word);
      }
    for (auto &[bank, words] : wordsPerBank)
      worst = std::max<int64_t>(worst, words.size());
  }
  return worst;
}

/// The byte address of `memref[indices]` in each of the first `lanes` lanes,
/// or std::nullopt where one is not static.
std::optional<SmallVector<int64_t>>
getLaneAddresses(MemRefType type, ValueRange indices, int64_t lanes) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  std::optional<int64_t> elementSize =
      getElementSizeInBytes(type.getElementType());
  if (!elementSize)
    return std::nullopt;
  int64_t elementBytes = *elementSize;
  SmallVector<int64_t> addresses;
  for (int64_t lane = 0; lane < lanes; ++lane) {
    int64_t linear = offset;
    for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
      std::optional<int64_t> value = evaluateForLane(index, lane);
      if (!value)
        return std::nullopt;
      linear += *value * stride;
    }
    addresses.push_back(linear * elementBytes);
  }
  return addresses;
}

/// The swizzle of the file header's formula for accesses of `width` bytes
/// into rows of `type` (an element type of known size); null where it does
/// not fit 32-bit offsets.
SwizzleAttr proposeSwizzle(MemRefType type, int64_t width) {
  int64_t elementBytes = *getElementSizeInBytes(type.getElementType());
  int64_t unit = llvm::PowerOf2Ceil(std::max<int64_t>(width, 1));
  int64_t rowBytes =
      type.getRank() >= 1 && !type.isDynamicDim(type.getRank() - 1)
          ? type.getShape().back() * elementBytes
          : kPhaseBytes;
  int32_t m = llvm::Log2_64(unit);
  int32_t s = llvm::Log2_64(
      llvm::PowerOf2Ceil(std::max<int64_t>(kPhaseBytes, rowBytes)) / unit);
  int32_t b = llvm::Log2_64(std::max<int64_t>(1, kPhaseBytes / unit));
  // Rows wider than 2^31 bytes cannot be swizzled on 32-bit offsets
  // (T-SWZ-2); b <= s holds by construction (T-SWZ-1).
  if (b + m + s > 31)
    return SwizzleAttr();
  return SwizzleAttr::get(type.getContext(), b, m, s);
}

} // namespace

std::optional<int64_t> tile::getWarpAccessLanes(Operation *op) {
  if (auto load = dyn_cast<LdMatrixOp>(op))
    return 8 * load.getNum();
  if (auto store = dyn_cast<StMatrixOp>(op))
    return 8 * store.getNum();
  if (isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp>(op))
    return kWarpSize;
  return std::nullopt;
}

std::optional<BankConflict> tile::analyzeBankConflict(Value memref,
                                                      ValueRange indices,
                                                      int64_t accessBytes,
                                                      int64_t lanes) {
  int64_t width = accessBytes;
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !isSharedMemory(type) || width < 1 || width > kMaxAccessBytes)
    return std::nullopt;
  std::optional<SmallVector<int64_t>> addresses =
      getLaneAddresses(type, indices, lanes);
  if (!addresses)
    return std::nullopt; // not statically known: say nothing
  SharedBufferInfo buffer = getSharedBufferInfo(memref);
  BankConflict conflict;
  if (buffer.swizzle && !buffer.swizzle->isIdentity())
    conflict.bufferSwizzle = *buffer.swizzle;
  conflict.degree = conflictDegree(*addresses, width, conflict.bufferSwizzle);
  if (conflict.degree <= 1)
    return std::nullopt;
  conflict.lanesPerPhase = std::min<int64_t>(kWarpSize, kPhaseBytes / width);
  conflict.proposal = proposeSwizzle(type, width);
  if (conflict.proposal)
    conflict.degreeWithProposal =
        conflictDegree(*addresses, width, conflict.proposal);
  return conflict;
}
