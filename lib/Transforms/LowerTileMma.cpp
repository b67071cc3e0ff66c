//===- LowerTileMma.cpp - Lower tile.mma and tile.warpgroup_mma -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The tensor-core main loops, expanded into the instructions of each warp
// (warpgroup):
// - tile.mma (CuTe's TiledMMA, sm_80): warps in a column-major grid each
//   compute their part of the CTA tile; per 16-wide K step, tile.ldmatrix
//   (x4, .trans for a K x N B) of every A fragment (m16k16) and every pair
//   of B fragments (n16k16), then the grid of m16n8k16 tile.mma_sync on the
//   accumulator's fragments. Two register stages: the fragments of step
//   k + 1 are loaded before the MMAs of step k.
// - tile.warpgroup_mma (sm_90a): tile.wgmma_fence; per K step of one wgmma
//   (16 for f16/bf16, 32 for 8-bit floats) the tile.wgmma_descriptor of B
//   and of each 64-row block of A and one tile.wgmma (wgmma.mma_async
//   m64nNk16 / m64nNk32) per block; then
//   tile.wgmma_commit_group and tile.wgmma_wait_group.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/WgmmaTypes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Lowers `tile.mma`: per 16-wide K step, ldmatrix.x4 of every A fragment
/// (m16k16) and of every pair of B fragments (n16k16), then the m16n8k16
/// grid.
struct MmaOpLowering : OpRewritePattern<MmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    auto [tileM, tileN, tileK] = op.getTileShape();
    std::pair<int64_t, int64_t> warpShape = op.getWarpShape();
    int64_t warpM = warpShape.first, warpN = warpShape.second;
    WarpPosition position = getWarpPosition(rewriter, loc, op.getWarps());
    Value lane = position.lane;
    Value m0 = math.mul(position.warpM, warpM),
          n0 = math.mul(position.warpN, warpN);
    Type element = op.getA().getType().getElementType();
    auto x4Type = VectorType::get({4, 2}, element);
    auto index = [&](ValueRange leading, Value row, Value column) {
      SmallVector<Value> indices(leading.begin(), leading.end());
      indices.push_back(row);
      indices.push_back(column);
      return indices;
    };
    // Lane l addresses row l mod 16 of the A fragment (matrices 0/1: rows
    // 0-7/8-15 at k 0; 2/3: at k 8), and for B row (l mod 8) + 8 (l / 16) at k
    // 8 ((l / 8) mod 2) (matrices 0/1: fragment 2jj's k halves; 2/3:
    // fragment 2jj + 1's); transposed B swaps the roles of rows and columns.
    Value laneRowA = math.rem(lane, 16),
          laneColA = math.mul(math.div(lane, 16), 8);
    Value laneRowB =
        math.add(math.rem(lane, 8), math.mul(math.div(lane, 16), 8));
    Value laneColB = math.mul(math.rem(math.div(lane, 8), 2), 8);
    Value acc = op.getAcc();
    // The fragments of one K step.
    struct Fragments {
      SmallVector<Value> a, b;
    };
    auto loadFragments = [&](int64_t k) {
      Fragments fragments;
      SmallVector<Value> &fragmentsA = fragments.a, &fragmentsB = fragments.b;
      for (int64_t i = 0; i < warpM / 16; ++i) {
        Value row = math.add(m0, math.add(math.constant(16 * i), laneRowA));
        Value column = math.add(math.constant(k), laneColA);
        fragmentsA.push_back(
            LdMatrixOp::create(rewriter, loc, x4Type, op.getA(),
                               index(op.getAIndices(), row, column), 4, false));
      }
      for (int64_t jj = 0; jj < warpN / 16; ++jj) {
        Value n = math.add(n0, math.add(math.constant(16 * jj), laneRowB));
        Value kk = math.add(math.constant(k), laneColB);
        Value pair;
        if (op.getTransposeB()) {
          // Rows are K: (l mod 8) + 8 ((l / 8) mod 2); columns N: 8 (l / 16).
          Value row =
              math.add(math.constant(k), math.add(math.rem(lane, 8), laneColB));
          Value column =
              math.add(n0, math.add(math.constant(16 * jj),
                                    math.mul(math.div(lane, 16), 8)));
          pair =
              LdMatrixOp::create(rewriter, loc, x4Type, op.getB(),
                                 index(op.getBIndices(), row, column), 4, true);
        } else {
          pair = LdMatrixOp::create(rewriter, loc, x4Type, op.getB(),
                                    index(op.getBIndices(), n, kk), 4, false);
        }
        // Registers 0-1 are fragment 2jj, 2-3 fragment 2jj + 1.
        auto fragmentType = VectorType::get({2, 2}, element);
        for (int64_t half = 0; half < 2; ++half) {
          Value fragment = arith::ConstantOp::create(
              rewriter, loc, fragmentType,
              DenseElementsAttr::get(fragmentType,
                                     rewriter.getZeroAttr(element)));
          for (int64_t r = 0; r < 2; ++r) {
            Value row = vector::ExtractOp::create(
                rewriter, loc, pair, ArrayRef<int64_t>{2 * half + r});
            fragment = vector::InsertOp::create(rewriter, loc, row, fragment,
                                                ArrayRef<int64_t>{r});
          }
          fragmentsB.push_back(fragment);
        }
      }
      return fragments;
    };
    // Two register stages (as CuTe's sm80 GEMMs): the fragments of step k + 1
    // are loaded before the MMAs of step k.
    Fragments current = loadFragments(0);
    for (int64_t k = 0; k < tileK; k += 16) {
      Fragments next;
      if (k + 16 < tileK)
        next = loadFragments(k + 16);
      for (auto [i, a] : llvm::enumerate(current.a))
        for (auto [j, b] : llvm::enumerate(current.b)) {
          SmallVector<int64_t> position = {int64_t(i), int64_t(j)};
          Value c = vector::ExtractOp::create(rewriter, loc, acc, position);
          Value d = MmaSyncOp::create(rewriter, loc, c.getType(), a, b, c,
                                      ArrayRef<int64_t>{16, 8, 16});
          acc = vector::InsertOp::create(rewriter, loc, d, acc, position);
        }
      current = std::move(next);
    }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// The indices of the element `rows` down and `columns` right of `origin`
/// in a warpgroup MMA operand tile: a column past the rows' span continues
/// in the next entry of the dimension before the rows (a K of several
/// spans, T-WGMMA-3); with `rowGroups` (G, C, R, span), a row past the
/// group's R rows in the next group (T-WGMMA-6).
static SmallVector<Value> getTileIndices(OpBuilder &builder, Location loc,
                                         Value buffer, ValueRange origin,
                                         int64_t rows, int64_t columns,
                                         bool rowGroups = false) {
  IndexMath math(builder, loc);
  SmallVector<Value> indices(origin);
  size_t rank = indices.size();
  ArrayRef<int64_t> shape = cast<MemRefType>(buffer.getType()).getShape();
  int64_t span = shape.back();
  if (rowGroups && rows >= shape[rank - 2]) {
    indices[rank - 4] =
        math.add(indices[rank - 4], math.constant(rows / shape[rank - 2]));
    rows %= shape[rank - 2];
  }
  if (columns >= span) {
    indices[rank - 3] =
        math.add(indices[rank - 3], math.constant(columns / span));
    columns %= span;
  }
  indices[rank - 2] = math.add(indices[rank - 2], math.constant(rows));
  indices[rank - 1] = math.add(indices[rank - 1], math.constant(columns));
  return indices;
}

/// The descriptor of B's K step at `k` from `origin`: along its rows when
/// MN-major (K rows of N chunks), along its columns when K-major; with
/// `rowGroups`, groups of 8 rows take the descriptor's `row_groups`
/// (T-WGMMA-6), larger ones hold the rows a descriptor spans.
static Value createBDescriptor(OpBuilder &builder, Location loc, Value b,
                               ValueRange origin, int64_t k, bool mnMajor,
                               bool rowGroups) {
  SmallVector<Value> indices =
      mnMajor ? getTileIndices(builder, loc, b, origin, k, 0, rowGroups)
              : getTileIndices(builder, loc, b, origin, 0, k, rowGroups);
  bool groupsOf8 =
      rowGroups && cast<MemRefType>(b.getType()).getShape().take_back(2)[0] == 8;
  return WgmmaDescriptorOp::create(builder, loc, builder.getI64Type(), b,
                                   indices, mnMajor, groupsOf8);
}

/// The accumulators of each 64-row block of a warpgroup tile's `acc`
/// (`perBlock` elements each): the vector itself for one block, its slices
/// for more; a constant zero stays a zero constant per block (wgmma's
/// scale-d = 0).
static SmallVector<Value> splitBlocks(OpBuilder &builder, Location loc,
                                      Value acc, int64_t blocks,
                                      int64_t perBlock) {
  if (blocks == 1)
    return {acc};
  auto blockType = VectorType::get(
      {perBlock}, cast<VectorType>(acc.getType()).getElementType());
  bool zeroAcc = matchPattern(acc, m_AnyZeroFloat());
  SmallVector<Value> accs;
  for (int64_t i = 0; i < blocks; ++i) {
    if (zeroAcc) {
      accs.push_back(arith::ConstantOp::create(builder, loc, blockType,
                                               builder.getZeroAttr(blockType)));
      continue;
    }
    SmallVector<Value> elements;
    for (int64_t e = 0; e < perBlock; ++e)
      elements.push_back(vector::ExtractOp::create(
          builder, loc, acc, ArrayRef<int64_t>{i * perBlock + e}));
    accs.push_back(
        vector::FromElementsOp::create(builder, loc, blockType, elements));
  }
  return accs;
}

/// The blocks' accumulators joined into the tile's (the inverse of
/// splitBlocks): `acc` with each block's slice replaced.
static Value joinBlocks(OpBuilder &builder, Location loc, Value acc,
                        ArrayRef<Value> accs, int64_t perBlock) {
  if (accs.size() == 1)
    return accs.front();
  for (auto [i, block] : llvm::enumerate(accs))
    for (int64_t e = 0; e < perBlock; ++e)
      acc = vector::InsertOp::create(
          builder, loc,
          vector::ExtractOp::create(builder, loc, block, ArrayRef<int64_t>{e}),
          acc, ArrayRef<int64_t>{int64_t(i) * perBlock + e});
  return acc;
}

/// Lowers `tile.warpgroup_mma`: fence, per K step of one wgmma (16 for
/// 16-bit, 32 for 8-bit inputs) the descriptors
/// and one wgmma per 64 rows, commit, wait.
struct WarpgroupMmaOpLowering : OpRewritePattern<WarpgroupMmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupMmaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    ArrayRef<int64_t> shape = op.getShape();
    int64_t n = shape[1];
    Type element = op.getA().getType().getElementType();
    Type elementB = op.getB().getType().getElementType();
    int64_t step = *getWgmmaInstructionK(element, elementB);
    // One m64nN accumulator per 64 rows: the whole vector, or its slice.
    int64_t blocks = shape[0] / 64, perBlock = n / 2;
    auto blockType =
        VectorType::get({perBlock}, op.getAcc().getType().getElementType());
    SmallVector<Value> accs =
        splitBlocks(rewriter, loc, op.getAcc(), blocks, perBlock);
    WgmmaFenceOp::create(rewriter, loc);
    bool transposeA = op.getTransposeA(), transposeB = op.getTransposeB();
    // An MN-major A: 64 rows are 64 / span chunks of its (chunks, K rows,
    // span) buffer.
    auto aType = cast<MemRefType>(op.getA().getType());
    int64_t aChunkRows = aType.getShape().back();
    auto aTileAt = [&](int64_t i, int64_t k) {
      if (!transposeA)
        return getTileIndices(rewriter, loc, op.getA(), op.getAIndices(),
                              64 * i, k);
      SmallVector<Value> indices =
          getTileIndices(rewriter, loc, op.getA(), op.getAIndices(), k, 0);
      size_t chunk = indices.size() - 3;
      indices[chunk] = arith::AddIOp::create(
          rewriter, loc, indices[chunk], math.constant(64 * i / aChunkRows));
      return indices;
    };
    for (int64_t k = 0; k < shape[2]; k += step) {
      // K advances along B's rows when B is MN-major (K rows of N chunks).
      Value descB = createBDescriptor(rewriter, loc, op.getB(),
                                      op.getBIndices(), k, transposeB,
                                      op.getBRowGroups());
      for (int64_t i = 0; i < blocks; ++i) {
        Value descA = WgmmaDescriptorOp::create(
            rewriter, loc, rewriter.getI64Type(), op.getA(), aTileAt(i, k),
            transposeA, /*row_groups=*/false);
        accs[i] = WgmmaOp::create(
            rewriter, loc, blockType, descA, descB, accs[i],
            rewriter.getI64IntegerAttr(n), TypeAttr::get(element),
            elementB == element ? nullptr : TypeAttr::get(elementB),
            transposeA ? rewriter.getUnitAttr() : nullptr,
            transposeB ? rewriter.getUnitAttr() : nullptr);
      }
    }
    Value acc = joinBlocks(rewriter, loc, op.getAcc(), accs, perBlock);
    WgmmaCommitGroupOp::create(rewriter, loc);
    WgmmaWaitGroupOp::create(rewriter, loc, op.getWait());
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// Lowers `tile.warpgroup_mma_rs`: fence, per K step (16 wide for 16-bit,
/// 32 for 8-bit inputs) the descriptor of B and one tile.wgmma_rs per
/// 64-row block on the block's A elements of the step (its columns in the
/// accumulator layout), commit, wait. 16-bit: the step's 8 elements are the
/// fragment as they are. 8-bit: its 16 elements are 8-column blocks j of
/// four (row r: 4j, 4j + 1; row r + 8: 4j + 2, 4j + 3), and the fragment's
/// register i holds 4 K-consecutive bytes of one row: blocks (2 (i / 2),
/// 2 (i / 2) + 1) of row r (i even) or r + 8 (i odd), so the K order within
/// each 16 columns is the op's permutation (T-WGMMA-5).
struct WarpgroupMmaRsOpLowering : OpRewritePattern<WarpgroupMmaRsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupMmaRsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getShape();
    int64_t n = shape[1], k = shape[2];
    int64_t blocks = shape[0] / 64, perBlock = n / 2;
    bool transposeB = op.getTransposeB();
    SmallVector<Value> accs =
        splitBlocks(rewriter, loc, op.getAcc(), blocks, perBlock);
    Type element = op.getA().getType().getElementType();
    int64_t step = *getWgmmaInstructionK(element, element);
    bool fp8 = isWgmmaFp8(element);
    auto fragmentType = VectorType::get({step / 2}, element);
    // The 8-bit fragment's elements within the step's: row r's blocks 0
    // and 1, row r + 8's, then blocks 2 and 3 alike (16-bit: in place).
    static constexpr int64_t kFp8Order[16] = {0, 1, 4,  5,  2,  3,  6,  7,
                                              8, 9, 12, 13, 10, 11, 14, 15};
    WgmmaFenceOp::create(rewriter, loc);
    for (int64_t kk = 0; kk < k; kk += step) {
      Value descB =
          createBDescriptor(rewriter, loc, op.getB(), op.getBIndices(), kk,
                            transposeB, op.getBRowGroups());
      for (int64_t i = 0; i < blocks; ++i) {
        SmallVector<int64_t> positions;
        for (int64_t e = 0; e < step / 2; ++e)
          positions.push_back(i * k / 2 + kk / 2 + (fp8 ? kFp8Order[e] : e));
        Value fragment = vector::ShuffleOp::create(
            rewriter, loc, fragmentType, op.getA(), op.getA(), positions);
        accs[i] =
            WgmmaRsOp::create(rewriter, loc, accs[i].getType(), fragment, descB,
                              accs[i], rewriter.getI64IntegerAttr(n),
                              transposeB ? rewriter.getUnitAttr() : nullptr);
      }
    }
    Value acc = joinBlocks(rewriter, loc, op.getAcc(), accs, perBlock);
    WgmmaCommitGroupOp::create(rewriter, loc);
    WgmmaWaitGroupOp::create(rewriter, loc, op.getWait());
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileMmaLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MmaOpLowering, WarpgroupMmaOpLowering, WarpgroupMmaRsOpLowering>(
      patterns.getContext());
}
