//===- AnalyzeBankConflicts.cpp - Shared-memory bank conflicts of a warp --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// For each shared-memory load/store in a GPU kernel, evaluates the byte
// address every lane of warp 0 touches (thread_id x = 0..31, loop induction
// variables at their first value), splits the warp into the phases the
// hardware serves together (32 lanes for 4-byte accesses, 16 for 8-byte, 8
// for 16-byte: 128 bytes per phase), and counts the distinct 4-byte words
// each of the 32 banks must deliver in a phase.
// A conflict (n > 1) is reported as a remark together with the swizzle that
// the formula below proposes, re-checked on the swizzled addresses:
//   M = log2(access bytes), S = log2(max(128, row bytes) / 2^M),
//   B = log2(128 / 2^M)            (all on byte offsets, #tile.swizzle<B,M,S>)
//===----------------------------------------------------------------------===//

#include "IndexEvaluation.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <map>

namespace mlir::tile {
#define GEN_PASS_DEF_TILEANALYZEBANKCONFLICTSPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

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

/// An access of `alloc`'s buffer that `swizzle` would split (T-SWZ-6), or
/// null when the swizzle can be applied to the buffer.
std::optional<ElementAccess> findSplitAccess(SharedAllocOp alloc,
                                             SwizzleAttr swizzle) {
  int64_t unit = int64_t(1) << swizzle.getBase();
  for (OpOperand &use : alloc.getBuffer().getUses())
    if (std::optional<ElementAccess> access = getElementAccess(use))
      if (access->bytes > unit)
        return access;
  return std::nullopt;
}

/// Analyzes one access: `memref[indices]` of `width` bytes per lane, by the
/// first `lanes` lanes of the warp.
/// Accesses of a swizzled buffer are measured on their swizzled addresses;
/// with `apply`, a conflict-free proposal becomes the swizzle of an
/// unswizzled tile.shared_alloc buffer.
void analyze(Operation *op, Value memref, ValueRange indices, int64_t width,
             int64_t lanes, bool apply) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !isSharedMemory(type) || width < 1 || width > kMaxAccessBytes)
    return;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return;
  std::optional<int64_t> elementSize =
      getElementSizeInBytes(type.getElementType());
  if (!elementSize)
    return;
  int64_t elementBytes = *elementSize;
  SmallVector<int64_t> addresses;
  for (int64_t lane = 0; lane < lanes; ++lane) {
    int64_t linear = offset;
    for (auto [index, stride] : llvm::zip_equal(indices, strides)) {
      std::optional<int64_t> value = evaluateForLane(index, lane);
      if (!value)
        return; // not statically known: say nothing
      linear += *value * stride;
    }
    addresses.push_back(linear * elementBytes);
  }
  SharedBufferInfo buffer = getSharedBufferInfo(memref);
  SwizzleAttr current;
  if (buffer.swizzle && !buffer.swizzle->isIdentity())
    current = *buffer.swizzle;
  int64_t degree = conflictDegree(addresses, width, current);
  if (degree <= 1)
    return;
  // The proposed swizzle (formula in the file header), in bytes.
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
  SwizzleAttr proposal;
  if (b + m + s <= 31)
    proposal = SwizzleAttr::get(op->getContext(), b, m, s);
  InFlightDiagnostic remark =
      op->emitRemark() << degree << "-way bank conflict: " << width
                       << "-byte accesses, "
                       << std::min<int64_t>(kWarpSize, kPhaseBytes / width)
                       << " lanes per 128-byte phase";
  if (current)
    remark << " under the buffer's swizzle " << current;
  if (!proposal)
    return;
  int64_t after = conflictDegree(addresses, width, proposal);
  // The formula fits row-wide accesses; say nothing when it does not
  // help this one.
  if (after >= degree)
    return;
  remark << "; " << proposal << " on the buffer's byte offsets makes it "
         << (after <= 1 ? std::string("conflict-free")
                        : std::to_string(after) + "-way");
  auto alloc = dyn_cast_or_null<SharedAllocOp>(buffer.allocation);
  if (!apply || after > 1 || current || !alloc)
    return;
  if (std::optional<ElementAccess> split = findSplitAccess(alloc, proposal)) {
    remark << "; not applied: a '" << split->memref->getOwner()->getName()
           << "' of the buffer accesses " << split->bytes
           << " bytes, more than the " << (int64_t(1) << proposal.getBase())
           << "-byte unit (T-SWZ-6)";
    return;
  }
  alloc.setSwizzleAttr(proposal);
  remark << "; applied to the buffer";
}

/// Pass shell: every shared load/store in gpu.func kernels.
struct TileAnalyzeBankConflictsPass
    : tile::impl::TileAnalyzeBankConflictsPassBase<
          TileAnalyzeBankConflictsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      if (!op->getParentOfType<gpu::GPUFuncOp>())
        return;
      // Warp-wide loads and stores, and ldmatrix/stmatrix: each 8x8 matrix
      // is one 128-byte phase of 8 lanes' 16-byte rows, lanes 8i .. 8i + 7
      // addressing matrix i. (cp.async writes land asynchronously and are
      // not modelled.)
      int64_t lanes = kWarpSize;
      if (auto load = dyn_cast<LdMatrixOp>(op))
        lanes = 8 * load.getNum();
      else if (auto store = dyn_cast<StMatrixOp>(op))
        lanes = 8 * store.getNum();
      else if (!isa<memref::LoadOp, memref::StoreOp, vector::LoadOp,
                    vector::StoreOp>(op))
        return;
      for (OpOperand &use : op->getOpOperands())
        if (std::optional<ElementAccess> access = getElementAccess(use))
          analyze(op, use.get(), OperandRange(access->indices), access->bytes,
                  lanes, apply);
    });
  }
};

} // namespace
