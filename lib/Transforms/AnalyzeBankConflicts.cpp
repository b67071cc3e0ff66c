//===- AnalyzeBankConflicts.cpp - The tile-analyze-bank-conflicts pass ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Reports the bank conflicts of every shared-memory access in a GPU kernel
// (Tile/Analysis/BankConflicts.h) as remarks with the proposed swizzle and,
// with `apply`, sets a proposal that removes a conflict on the unswizzled
// tile.shared_alloc buffer it is about.
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/BankConflicts.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEANALYZEBANKCONFLICTSPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

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

/// Remarks `conflict` of `op`'s access of `memref` with `width` bytes per
/// lane, with the proposal where it helps; with `apply`, a conflict-free
/// proposal becomes the swizzle of an unswizzled tile.shared_alloc buffer.
void reportConflict(Operation *op, Value memref, int64_t width,
                    const BankConflict &conflict, bool apply) {
  InFlightDiagnostic remark =
      op->emitRemark() << conflict.degree << "-way bank conflict: " << width
                       << "-byte accesses, " << conflict.lanesPerPhase
                       << " lanes per 128-byte phase";
  if (conflict.bufferSwizzle)
    remark << " under the buffer's swizzle " << conflict.bufferSwizzle;
  SwizzleAttr proposal = conflict.proposal;
  if (!proposal)
    return;
  int64_t after = conflict.degreeWithProposal;
  // The formula fits row-wide accesses; say nothing when it does not
  // help this one.
  if (after >= conflict.degree)
    return;
  remark << "; " << proposal << " on the buffer's byte offsets makes it "
         << (after <= 1 ? std::string("conflict-free")
                        : std::to_string(after) + "-way");
  auto alloc =
      dyn_cast_or_null<SharedAllocOp>(getSharedBufferInfo(memref).allocation);
  if (!apply || after > 1 || conflict.bufferSwizzle || !alloc)
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
      std::optional<int64_t> lanes = getWarpAccessLanes(op);
      if (!lanes)
        return;
      for (OpOperand &use : op->getOpOperands())
        if (std::optional<ElementAccess> access = getElementAccess(use))
          if (std::optional<BankConflict> conflict =
                  analyzeBankConflict(use.get(), OperandRange(access->indices),
                                      access->bytes, *lanes))
            reportConflict(op, use.get(), access->bytes, *conflict, apply);
    });
  }
};

} // namespace
