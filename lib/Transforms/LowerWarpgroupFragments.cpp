//===- LowerWarpgroupFragments.cpp - Row math on warpgroup tiles ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The row-wise ops on warpgroup accumulators, expanded into each thread's
// arithmetic on its elements (wgmma's D layout: element 4j + 2h + e of a
// 64-row block is row 8h, column 8j + e from the thread's origin):
// - tile.warpgroup_row_reduce: a pairwise tree over the thread's N/4
//   elements of each row (or its given partial), then, unless partial,
//   gpu.shuffle xor 1 and 2 within the quad of lanes that holds the row;
// - tile.warpgroup_broadcast_rows: a vector.shuffle of the row values;
// - tile.warpgroup_iota: the thread's origin plus constant offsets.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The positions in a warpgroup tile's accumulators of the elements of
/// thread-held row 2 i + h (`perBlock` = N/2 elements per 64-row block), in
/// column order: the k-th is column 8 (k / 2) + k mod 2 from the thread's
/// origin.
static SmallVector<int64_t> getRowPositions(int64_t perBlock, int64_t i,
                                            int64_t h) {
  SmallVector<int64_t> positions;
  for (int64_t j = 0; j < perBlock / 4; ++j)
    for (int64_t e = 0; e < 2; ++e)
      positions.push_back(i * perBlock + 4 * j + 2 * h + e);
  return positions;
}

struct WarpgroupRowReduceOpLowering : OpRewritePattern<WarpgroupRowReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupRowReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getShape();
    int64_t blocks = shape[0] / 64, perBlock = shape[1] / 2;
    vector::CombiningKind kind = op.getKind();
    auto combine = [&](Value a, Value b) {
      return vector::makeArithReduction(rewriter, loc, kind, a, b);
    };
    Value width = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getI32IntegerAttr(32));
    SmallVector<Value> rows;
    for (int64_t i = 0; i < blocks; ++i)
      for (int64_t h = 0; h < 2; ++h) {
        // The thread's part: given, or a pairwise tree over its elements
        // (log2(N/4) dependent steps instead of N/4).
        SmallVector<Value> level;
        if (op.reducesRowValues()) {
          level.push_back(vector::ExtractOp::create(
              rewriter, loc, op.getAcc(), ArrayRef<int64_t>{2 * i + h}));
        } else {
          for (int64_t position : getRowPositions(perBlock, i, h))
            level.push_back(vector::ExtractOp::create(
                rewriter, loc, op.getAcc(), ArrayRef<int64_t>{position}));
        }
        while (level.size() > 1) {
          SmallVector<Value> next;
          for (size_t p = 0; p + 1 < level.size(); p += 2)
            next.push_back(combine(level[p], level[p + 1]));
          if (level.size() % 2)
            next.push_back(level.back());
          level = std::move(next);
        }
        Value value = level.front();
        // The quad of lanes 4 (lane / 4) .. + 3 holds the row.
        for (int32_t offset : {1, 2}) {
          if (op.getPartial())
            break;
          Value mask = arith::ConstantOp::create(
              rewriter, loc, rewriter.getI32IntegerAttr(offset));
          Value other = gpu::ShuffleOp::create(rewriter, loc, value, mask,
                                               width, gpu::ShuffleMode::XOR)
                            .getShuffleResult();
          value = combine(value, other);
        }
        rows.push_back(value);
      }
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(), rows);
    return success();
  }
};

struct WarpgroupBroadcastRowsOpLowering
    : OpRewritePattern<WarpgroupBroadcastRowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupBroadcastRowsOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> shape = op.getShape();
    int64_t blocks = shape[0] / 64, perBlock = shape[1] / 2;
    SmallVector<int64_t> mask(blocks * perBlock);
    for (int64_t i = 0; i < blocks; ++i)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t position : getRowPositions(perBlock, i, h))
          mask[position] = 2 * i + h;
    rewriter.replaceOpWithNewOp<vector::ShuffleOp>(
        op, op.getType(), op.getRows(), op.getRows(), mask);
    return success();
  }
};

struct WarpgroupIotaOpLowering : OpRewritePattern<WarpgroupIotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupIotaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getShape();
    int64_t blocks = shape[0] / 64, perBlock = shape[1] / 2;
    bool rows = op.getDim() == 0;
    auto [rowOrigin, columnOrigin] = getWarpgroupFragmentOrigin(rewriter, loc);
    // The k-th element of a row holds column 8 (k / 2) + k mod 2.
    SmallVector<int32_t> offsets(blocks * perBlock);
    for (int64_t i = 0; i < blocks; ++i)
      for (int64_t h = 0; h < 2; ++h)
        for (auto [k, position] :
             llvm::enumerate(getRowPositions(perBlock, i, h)))
          offsets[position] = rows ? 64 * i + 8 * h : 8 * (k / 2) + k % 2;
    VectorType type = op.getType();
    Value origin = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getI32Type(), rows ? rowOrigin : columnOrigin);
    Value splat = vector::BroadcastOp::create(rewriter, loc, type, origin);
    Value constants = arith::ConstantOp::create(
        rewriter, loc, type, DenseIntElementsAttr::get(type, offsets));
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, splat, constants);
    return success();
  }
};

} // namespace

void mlir::tile::populateWarpgroupFragmentLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<WarpgroupRowReduceOpLowering, WarpgroupBroadcastRowsOpLowering,
               WarpgroupIotaOpLowering>(patterns.getContext());
}
