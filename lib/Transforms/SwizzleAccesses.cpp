//===- SwizzleAccesses.cpp - Generic accesses of swizzled shared buffers --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// buffer[i, j] of a #tile.swizzle<B,M,S> buffer becomes flat[swz(off) / e]
// where off = (i * stride0 + j) * e is the logical byte offset, e the element
// bytes, and swz(x) = x ^ ((x & (2^B - 1) << (M + max(S, 0))) >> S) (CuTe's
// Swizzle<B, M, S>, cute/swizzle.hpp, on byte offsets). The buffer's
// alignment to the swizzle repeat (T-SWZ-3) makes offsets from its start the
// addresses' low bits, as the hardware sees them.
//===----------------------------------------------------------------------===//

#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILESWIZZLEACCESSESPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Rewrites the accesses of one swizzled buffer.
class BufferRewriter {
public:
  BufferRewriter(SharedAllocOp alloc)
      : alloc(alloc), swizzle(*alloc.getSwizzle()),
        type(alloc.getBuffer().getType()),
        elementBytes(type.getElementTypeBitWidth() / 8) {}

  LogicalResult run() {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : alloc.getBuffer().getUses())
      uses.push_back(&use);
    for (OpOperand *use : uses)
      if (failed(rewrite(*use)))
        return failure();
    return success();
  }

private:
  SharedAllocOp alloc;
  SwizzleAttr swizzle;
  MemRefType type;
  int64_t elementBytes;
  Value flat;

  /// T-SWZ-6: an access must lie inside one 2^M-byte swizzle unit.
  LogicalResult checkWidth(Operation *op, int64_t bytes) {
    int64_t unit = int64_t(1) << swizzle.getBase();
    if (bytes <= unit)
      return success();
    return op->emitOpError()
           << "accesses " << bytes << " bytes of a buffer with swizzle "
           << swizzle << ", whose unit is " << unit
           << " bytes: the swizzle would split the access (T-SWZ-6)";
  }

  /// The flat view, made once right after the allocation.
  Value getFlat(OpBuilder &builder) {
    if (flat)
      return flat;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfter(alloc);
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    flat = memref::CollapseShapeOp::create(builder, alloc.getLoc(),
                                           alloc.getBuffer(),
                                           ArrayRef<ReassociationIndices>{all});
    return flat;
  }

  /// The physical flat element index of `indices`.
  Value physicalIndex(OpBuilder &builder, Location loc, ValueRange indices) {
    auto constant = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, value);
    };
    SmallVector<int64_t> strides;
    int64_t offset;
    (void)type.getStridesAndOffset(strides, offset);
    Value linear = constant(0);
    for (auto [index, stride] : llvm::zip_equal(indices, strides))
      linear = arith::AddIOp::create(
          builder, loc, linear,
          arith::MulIOp::create(builder, loc, index, constant(stride)));
    Value bytes =
        arith::MulIOp::create(builder, loc, linear, constant(elementBytes));
    int32_t shift = swizzle.getShift();
    int64_t mask = ((int64_t(1) << swizzle.getBits()) - 1)
                   << (swizzle.getBase() + std::max(0, shift));
    Value selected = arith::AndIOp::create(builder, loc, bytes, constant(mask));
    Value moved = shift >= 0
                      ? Value(arith::ShRUIOp::create(builder, loc, selected,
                                                     constant(shift)))
                      : Value(arith::ShLIOp::create(builder, loc, selected,
                                                    constant(-shift)));
    Value swizzled = arith::XOrIOp::create(builder, loc, bytes, moved);
    return arith::DivUIOp::create(builder, loc, swizzled,
                                  constant(elementBytes));
  }

  /// Points the access at the flat view's swizzled element.
  LogicalResult reroute(OpBuilder &builder, Operation *user,
                        ElementAccess &access) {
    if (access.multiDimensional)
      return user->emitOpError() << "accesses a buffer with swizzle " << swizzle
                                 << " with a multi-dimensional vector, which "
                                    "the swizzle would split (T-SWZ-6)";
    if (failed(checkWidth(user, access.bytes)))
      return failure();
    Value index =
        physicalIndex(builder, user->getLoc(), OperandRange(access.indices));
    access.memref->set(getFlat(builder));
    access.indices.assign(index);
    return success();
  }

  LogicalResult rewrite(OpOperand &use) {
    Operation *user = use.getOwner();
    OpBuilder builder(user);
    // The TMA unit and wgmma (through its descriptor) apply the swizzle
    // themselves; bulk copies do not address elements.
    if (isa<TmaLoadOp, TmaStoreOp, TmaReduceOp, BulkCopyGlobalToSharedOp,
            BulkCopySharedToGlobalOp, WgmmaDescriptorOp>(user))
      return success();
    if (user == flat.getDefiningOp())
      return success();
    if (std::optional<ElementAccess> access = getElementAccess(use))
      return reroute(builder, user, *access);
    return user->emitOpError()
           << "uses a buffer with swizzle " << swizzle
           << " but cannot apply the swizzle to its accesses; index the buffer "
              "directly with memref/vector loads and stores, "
              "ldmatrix/stmatrix, "
              "tile.async_copy or TMA ops (T-SWZ-6)";
  }
};

struct TileSwizzleAccessesPass
    : tile::impl::TileSwizzleAccessesPassBase<TileSwizzleAccessesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<SharedAllocOp> allocs;
    getOperation().walk([&](SharedAllocOp alloc) {
      if (alloc.getSwizzle() && !alloc.getSwizzle()->isIdentity())
        allocs.push_back(alloc);
    });
    for (SharedAllocOp alloc : allocs)
      if (failed(BufferRewriter(alloc).run()))
        return signalPassFailure();
  }
};

} // namespace
