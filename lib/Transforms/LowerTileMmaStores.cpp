//===- LowerTileMmaStores.cpp - Lower the MMA accumulator stores ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Epilogues: each thread writes the accumulator fragments it holds.
// - tile.mma_store (tile.mma's m16n8 fragments): one vector<2 x T> store
//   per fragment row half, word-aligned when the destination's rows, offset
//   and first column are even (tested at run time where not static), else
//   element-aligned; bounds-checked when the op has bounds. With
//   `stmatrix`, one tile.stmatrix x4 per pair of adjacent fragments.
// - tile.warpgroup_mma_store (tile.warpgroup_mma's m64nN accumulators): the
//   same fragment stores, warp w of the warpgroup holding rows 16 w .. of
//   each 64-row block, in the destination's last two dimensions; with
//   `transpose`, element by element to the transposed position.
// - tile.warpgroup_tma_store: per 64 x W chunk of the accumulator, the
//   warpgroup's first thread waits until the staging buffer it reuses has
//   been read (tile.bulk_wait_group); a named barrier (nvvm.barrier);
//   tile.stmatrix x4 into the staging buffer; an async-proxy fence
//   (tile.fence_proxy_async); a named barrier; then the first thread's
//   tile.tma_store (tile.tma_reduce with `reduce`) and
//   tile.bulk_commit_group. 8-bit and 32-bit elements (stmatrix moves 16-bit
//   ones) are stored pair by pair (vector.store, swizzled by
//   tile-swizzle-accesses).
// - tile.warpgroup_coalesced_store: per 64 x W chunk, each warp writes its
//   16 rows into the staging buffer with stmatrix.x4 (or pair by pair, as
//   above; bar.warp.sync around it) and stores them back row by row, a lane
//   per column, bounds-checked: a warp's store covers contiguous bytes of
//   one row.
// - tile.warpgroup_rows / tile.warpgroup_scale: each thread loads the row
//   (and column) factors of the accumulator elements it holds (indices
//   clamped to the factors' extent) and multiplies its elements by them.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include <functional>

using namespace mlir;
using namespace mlir::tile;

/// Stores m16n8 accumulator fragments: fragment (i, j) row half h of the
/// thread, `pairAt(i, j, h)`, is the column pair at (rowBase + i *
/// rowStride + 8 h, columnBase + 8 j), stored with one vector store (or, at
/// a bound that splits the pair, its first element). Pairs are stored as one
/// aligned word when the destination's rows, offset and first column are even
/// (decided statically where the layout is static, else at run time);
/// otherwise element by element.
static void
storeFragments(OpBuilder &builder, Location loc, Value dst, ValueRange leading,
               ValueRange bounds, Value firstColumn, int64_t rowBlocks,
               int64_t rowStride, int64_t columnBlocks, Value rowBase,
               Value columnBase,
               function_ref<Value(int64_t, int64_t, int64_t)> pairAt) {
  IndexMath math(builder, loc);
  auto type = cast<MemRefType>(dst.getType());
  int64_t rowDim = type.getRank() - 2;
  auto at = [&](Value row, Value column) {
    SmallVector<Value> indices(leading);
    indices.append({row, column});
    return indices;
  };
  Type element = type.getElementType();
  auto pairType = VectorType::get({2}, element);
  uint64_t pairBytes = 2 * type.getElementTypeBitWidth() / 8;
  auto emitStores = [&](llvm::MaybeAlign alignment) {
    for (int64_t i = 0; i < rowBlocks; ++i)
      for (int64_t j = 0; j < columnBlocks; ++j)
        for (int64_t h = 0; h < 2; ++h) {
          Value row = math.add(rowBase, math.constant(i * rowStride + 8 * h));
          Value column = math.add(columnBase, math.constant(8 * j));
          Value pair = pairAt(i, j, h);
          if (pairType != pair.getType())
            pair = arith::TruncFOp::create(builder, loc, pairType, pair);
          if (bounds.empty()) {
            vector::StoreOp::create(builder, loc, pair, dst, at(row, column),
                                    false, alignment);
            continue;
          }
          Value next = math.add(column, math.constant(1));
          auto inRows =
              scf::IfOp::create(builder, loc, math.less(row, bounds[0]));
          OpBuilder::InsertionGuard guard(builder);
          builder.setInsertionPointToStart(&inRows.getThenRegion().front());
          auto whole =
              scf::IfOp::create(builder, loc, math.less(next, bounds[1]),
                                /*withElseRegion=*/true);
          builder.setInsertionPointToStart(&whole.getThenRegion().front());
          vector::StoreOp::create(builder, loc, pair, dst, at(row, column),
                                  false, alignment);
          builder.setInsertionPointToStart(&whole.getElseRegion().front());
          auto first =
              scf::IfOp::create(builder, loc, math.less(column, bounds[1]));
          builder.setInsertionPointToStart(&first.getThenRegion().front());
          Value value = vector::ExtractOp::create(builder, loc, pair,
                                                  ArrayRef<int64_t>{0});
          memref::StoreOp::create(builder, loc, value, dst, at(row, column));
        }
  };
  // Even strides (but the last), offset and first column: every pair is
  // word-aligned.
  SmallVector<int64_t> strides;
  int64_t offset;
  bool static_ =
      succeeded(type.getStridesAndOffset(strides, offset)) &&
      llvm::none_of(ArrayRef(strides).drop_back(), ShapedType::isDynamic) &&
      !ShapedType::isDynamic(offset);
  auto isEven = [&](Value v) -> Value {
    Value low = arith::AndIOp::create(builder, loc, v, math.constant(1));
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, low,
                                 math.constant(0));
  };
  Value even = isEven(firstColumn);
  if (static_) {
    if (offset % 2 || llvm::any_of(ArrayRef(strides).drop_back(),
                                   [](int64_t s) { return s % 2; }))
      return emitStores(llvm::MaybeAlign());
  } else {
    auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, dst);
    for (int64_t d = 0; d <= rowDim; ++d)
      even = arith::AndIOp::create(builder, loc, even,
                                   isEven(metadata.getStrides()[d]));
    even =
        arith::AndIOp::create(builder, loc, even, isEven(metadata.getOffset()));
  }
  auto aligned = scf::IfOp::create(builder, loc, even, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&aligned.getThenRegion().front());
  emitStores(llvm::MaybeAlign(pairBytes));
  builder.setInsertionPointToStart(&aligned.getElseRegion().front());
  emitStores(llvm::MaybeAlign());
}

/// stmatrix.x4 addresses: lane l gives row l mod 8 of matrix q = l / 8,
/// which is row half q mod 2 of fragment q / 2 of a pair of adjacent m16n8
/// fragments; each 8x8 matrix's register layout is the accumulator
/// fragment's. The lane's (row, column) offsets in the 16x16 block.
static std::pair<Value, Value> getStMatrixOffsets(IndexMath &math, Value lane) {
  Value quarter = math.div(lane, 8);
  return {math.add(math.rem(lane, 8), math.mul(math.rem(quarter, 2), 8)),
          math.mul(math.div(quarter, 2), 8)};
}

/// The registers of one stmatrix.x4: register r is the f32 pair `pairAt(r)`
/// (row half r mod 2 of fragment r / 2) converted to `element`.
static Value packStMatrix(OpBuilder &builder, Location loc, Type element,
                          function_ref<Value(int64_t)> pairAt) {
  auto valueType = VectorType::get({4, 2}, element);
  auto pairType = VectorType::get({2}, element);
  Value value = arith::ConstantOp::create(
      builder, loc, valueType,
      DenseElementsAttr::get(valueType, builder.getZeroAttr(element)));
  for (int64_t r = 0; r < 4; ++r) {
    Value pair = arith::TruncFOp::create(builder, loc, pairType, pairAt(r));
    value = vector::InsertOp::create(builder, loc, pair, value,
                                     ArrayRef<int64_t>{r});
  }
  return value;
}

/// Row half h of fragment j of 64-row block i of warpgroup accumulators
/// (`perBlock` = N/2 elements per block): elements 4 j + 2 h + {0, 1}.
static Value getWarpgroupPair(OpBuilder &builder, Location loc, Value acc,
                              int64_t perBlock, int64_t i, int64_t j,
                              int64_t h) {
  SmallVector<Value> pair;
  for (int64_t e = 0; e < 2; ++e)
    pair.push_back(vector::ExtractOp::create(
        builder, loc, acc,
        ArrayRef<int64_t>{i * perBlock + 4 * j + 2 * h + e}));
  return vector::FromElementsOp::create(
      builder, loc, VectorType::get({2}, builder.getF32Type()), pair);
}

/// The transposed epilogue of `tile.warpgroup_mma_store`: the thread's
/// accumulator element at (row, column) of the tile — rows from `rowOffset`,
/// columns from `columnOffset` in the fragment layout — goes to
/// dst[indices[0] + column, indices[1] + row], one element store each,
/// bounds-checked against dst's (rows, columns).
static void storeTransposed(OpBuilder &builder, Location loc,
                            WarpgroupMmaStoreOp op, Value rowOffset,
                            Value columnOffset, int64_t perBlock) {
  IndexMath math(builder, loc);
  ArrayRef<int64_t> shape = op.getShape();
  Value dst = op.getDst();
  Type element = cast<MemRefType>(dst.getType()).getElementType();
  ValueRange indices = op.getIndices(), bounds = op.getBounds();
  size_t rowDim = indices.size() - 2;
  Value firstColumn = math.add(indices[rowDim + 1], rowOffset);
  Value firstRow = math.add(indices[rowDim], columnOffset);
  for (int64_t i = 0; i < shape[0] / 64; ++i)
    for (int64_t j = 0; j < shape[1] / 8; ++j)
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e) {
          Value column = math.add(firstColumn, math.constant(64 * i + 8 * h));
          Value row = math.add(firstRow, math.constant(8 * j + e));
          Value value = vector::ExtractOp::create(
              builder, loc,
              getWarpgroupPair(builder, loc, op.getAcc(), perBlock, i, j, h),
              ArrayRef<int64_t>{e});
          if (value.getType() != element)
            value = arith::TruncFOp::create(builder, loc, element, value);
          OpBuilder::InsertionGuard guard(builder);
          if (!bounds.empty()) {
            Value inside =
                arith::AndIOp::create(builder, loc, math.less(row, bounds[0]),
                                      math.less(column, bounds[1]));
            auto ifOp = scf::IfOp::create(builder, loc, inside);
            builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
          }
          SmallVector<Value> at(indices.take_front(rowDim));
          at.append({row, column});
          memref::StoreOp::create(builder, loc, value, dst, at);
        }
}

namespace {

/// Lowers `tile.mma_store`: the warp's fragments at its part of the CTA tile.
struct MmaStoreOpLowering : OpRewritePattern<MmaStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MmaStoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    ArrayRef<int64_t> fragments = op.getAcc().getType().getShape();
    int64_t warpM = fragments[0] * 16, warpN = fragments[1] * 8;
    WarpPosition position = getWarpPosition(rewriter, loc, op.getWarps());
    Value lane = position.lane;
    Value rowBase =
        math.add(math.add(op.getIndices()[0], math.mul(position.warpM, warpM)),
                 arith::DivUIOp::create(rewriter, loc, lane, math.constant(4)));
    Value columnBase = math.add(
        math.add(op.getIndices()[1], math.mul(position.warpN, warpN)),
        math.mul(arith::RemUIOp::create(rewriter, loc, lane, math.constant(4)),
                 2));
    Value acc = op.getAcc();
    if (op.getStmatrix()) {
      auto [rowOffset, columnOffset] = getStMatrixOffsets(math, lane);
      Value row = math.add(
          math.add(op.getIndices()[0], math.mul(position.warpM, warpM)),
          rowOffset);
      Value column = math.add(
          math.add(op.getIndices()[1], math.mul(position.warpN, warpN)),
          columnOffset);
      Type element = op.getDst().getType().getElementType();
      for (int64_t i = 0; i < fragments[0]; ++i)
        for (int64_t jj = 0; jj < fragments[1] / 2; ++jj) {
          Value value =
              packStMatrix(rewriter, loc, element, [&](int64_t r) -> Value {
                return vector::ExtractOp::create(
                    rewriter, loc, acc,
                    ArrayRef<int64_t>{i, 2 * jj + r / 2, r % 2});
              });
          StMatrixOp::create(
              rewriter, loc, value, op.getDst(),
              ValueRange{math.add(row, math.constant(16 * i)),
                         math.add(column, math.constant(16 * jj))},
              4, false);
        }
      rewriter.eraseOp(op);
      return success();
    }
    storeFragments(rewriter, loc, op.getDst(), {}, op.getBounds(),
                   op.getIndices()[1], fragments[0], 16, fragments[1], rowBase,
                   columnBase, [&](int64_t i, int64_t j, int64_t h) -> Value {
                     return vector::ExtractOp::create(
                         rewriter, loc, acc, ArrayRef<int64_t>{i, j, h});
                   });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lowers `tile.warpgroup_mma_store`: warp w of the warpgroup holds rows
/// 16 w .. of each 64-row block; accumulator elements 4 j + 2 h + {0, 1} of a
/// block are fragment (j, h).
struct WarpgroupMmaStoreOpLowering : OpRewritePattern<WarpgroupMmaStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupMmaStoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    ArrayRef<int64_t> shape = op.getShape();
    int64_t perBlock = shape[1] / 2;
    auto [rowOffset, columnOffset] = getWarpgroupFragmentOrigin(rewriter, loc);
    if (op.getTranspose()) {
      storeTransposed(rewriter, loc, op, rowOffset, columnOffset, perBlock);
      rewriter.eraseOp(op);
      return success();
    }
    ValueRange indices = op.getIndices();
    size_t rowDim = indices.size() - 2;
    Value rowBase = math.add(indices[rowDim], rowOffset);
    Value columnBase = math.add(indices[rowDim + 1], columnOffset);
    Value acc = op.getAcc();
    // Span s holds the tile's fragment columns s * spanBlocks ..., at
    // index + s of the dimension before the rows.
    int64_t spans = op.getColumnSpans();
    int64_t spanBlocks = shape[1] / 8 / spans;
    for (int64_t s = 0; s < spans; ++s) {
      SmallVector<Value> leading(indices.take_front(rowDim));
      if (s)
        leading.back() = math.add(leading.back(), math.constant(s));
      storeFragments(rewriter, loc, op.getDst(), leading, op.getBounds(),
                     indices[rowDim + 1], shape[0] / 64, 64, spanBlocks,
                     rowBase, columnBase,
                     [&](int64_t i, int64_t j, int64_t h) -> Value {
                       return getWarpgroupPair(rewriter, loc, acc, perBlock, i,
                                               s * spanBlocks + j, h);
                     });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The 8-bit or 32-bit chunk c of 64-row block i of a
/// `tile.warpgroup_tma_store` (stmatrix moves 16-bit values): each thread
/// converts its pairs (8-bit) and stores them, one store each, at row 16 w +
/// lane / 4 + 8 h, column 2 (lane mod 4) + 8 j of buffer `tile` (warp w of the
/// warpgroup, row half h of fragment j).
static void storePairs(OpBuilder &builder, Location loc, Value acc,
                       int64_t perBlock, Value staging, ArrayRef<Value> tile,
                       const WarpPosition &position, int64_t i, int64_t c,
                       int64_t width) {
  IndexMath math(builder, loc);
  Value row =
      math.add(math.mul(position.warpM, 16), math.div(position.lane, 4));
  Value column = math.mul(math.rem(position.lane, 4), 2);
  auto pairType = VectorType::get(
      {2}, cast<MemRefType>(staging.getType()).getElementType());
  for (int64_t j = 0; j < width / 8; ++j)
    for (int64_t h = 0; h < 2; ++h) {
      Value pair = getWarpgroupPair(builder, loc, acc, perBlock, i,
                                    c * width / 8 + j, h);
      if (pair.getType() != pairType)
        pair = arith::TruncFOp::create(builder, loc, pairType, pair);
      SmallVector<Value> at(tile);
      at.push_back(math.add(row, math.constant(8 * h)));
      at.push_back(math.add(column, math.constant(8 * j)));
      vector::StoreOp::create(builder, loc, pair, staging, at);
    }
}

/// Writes chunk c (columns W c ..) of 64-row block i of warpgroup
/// accumulators `acc` (`perBlock` = N/2 elements per block) into the 64 x W
/// buffer `tile` of `staging` with W / 16 stmatrix.x4, the lane's row and
/// column offsets `row`, `column` (getStMatrixOffsets, warp rows added).
static void stMatrixChunk(OpBuilder &builder, Location loc, Value acc,
                          int64_t perBlock, Value staging,
                          ArrayRef<Value> tile, Value row, Value column,
                          int64_t i, int64_t c, int64_t width) {
  IndexMath math(builder, loc);
  Type element = cast<MemRefType>(staging.getType()).getElementType();
  for (int64_t jj = 0; jj < width / 16; ++jj) {
    Value value = packStMatrix(builder, loc, element, [&](int64_t r) -> Value {
      return getWarpgroupPair(builder, loc, acc, perBlock, i,
                              c * width / 8 + 2 * jj + r / 2, r % 2);
    });
    SmallVector<Value> at(tile);
    at.push_back(row);
    at.push_back(math.add(column, math.constant(16 * jj)));
    StMatrixOp::create(builder, loc, value, staging, at, 4, false);
  }
}

/// Writes chunk c of 64-row block i into buffer `tile` of `staging`:
/// stmatrix.x4 for 16-bit elements (stMatrixChunk), a store per converted
/// pair for 8- and 32-bit ones (storePairs).
static void writeChunk(OpBuilder &builder, Location loc, Value acc,
                       int64_t perBlock, Value staging, ArrayRef<Value> tile,
                       const WarpPosition &position, Value row, Value column,
                       int64_t i, int64_t c, int64_t width) {
  if (cast<MemRefType>(staging.getType()).getElementTypeBitWidth() != 16)
    storePairs(builder, loc, acc, perBlock, staging, tile, position, i, c,
               width);
  else
    stMatrixChunk(builder, loc, acc, perBlock, staging, tile, row, column, i,
                  c, width);
}

/// Lowers `tile.warpgroup_tma_store`: per 64 x W chunk, buffer reuse wait,
/// named barrier, stmatrix.x4 of the warps' rows (8-bit elements: a 2-byte
/// store of each converted pair), async-proxy fence, named barrier, TMA
/// store and bulk commit by the warpgroup's first thread.
struct WarpgroupTmaStoreOpLowering : OpRewritePattern<WarpgroupTmaStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupTmaStoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    ArrayRef<int64_t> shape = op.getShape();
    int64_t width = op.getDescriptor().getType().getBox().back();
    int64_t perBlock = shape[1] / 2;
    MemRefType staging = op.getStaging().getType();
    int64_t buffers = staging.getShape().take_back(3)[0];
    WarpPosition position =
        getWarpPosition(rewriter, loc, {kWarpgroupThreads / 32, 1});
    Value lane = position.lane;
    WarpgroupBarrier warpgroup(rewriter, loc);
    Value first = warpgroup.first;
    auto syncWarpgroup = [&] { warpgroup.sync(rewriter, loc); };
    auto [rowOffset, column] = getStMatrixOffsets(math, lane);
    Value row = math.add(math.mul(position.warpM, 16), rowOffset);
    int64_t chunk = 0;
    for (int64_t i = 0; i < shape[0] / 64; ++i)
      for (int64_t c = 0; c < shape[1] / width; ++c, ++chunk) {
        SmallVector<Value> tile(op.getIndices());
        tile.push_back(math.constant(chunk % buffers));
        // The store that last read this buffer is done reading.
        auto wait = scf::IfOp::create(rewriter, loc, first);
        {
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointToStart(&wait.getThenRegion().front());
          BulkWaitGroupOp::create(rewriter, loc, buffers - 1, /*read=*/true);
        }
        syncWarpgroup();
        writeChunk(rewriter, loc, op.getAcc(), perBlock, op.getStaging(), tile,
                   position, row, column, i, c, width);
        FenceProxyAsyncOp::create(rewriter, loc, ProxySpace::shared_cta);
        syncWarpgroup();
        auto store = scf::IfOp::create(rewriter, loc, first);
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&store.getThenRegion().front());
        // The tile's (row, column) are the last two coordinates.
        SmallVector<Value> coordinates(op.getCoordinates());
        size_t rank = coordinates.size();
        coordinates[rank - 2] =
            math.add(coordinates[rank - 2], math.constant(64 * i));
        coordinates[rank - 1] =
            math.add(coordinates[rank - 1], math.constant(width * c));
        if (std::optional<TmaReduceKind> kind = op.getReduce())
          TmaReduceOp::create(rewriter, loc, *kind, op.getStaging(), tile,
                              op.getDescriptor(), coordinates, Value());
        else
          TmaStoreOp::create(rewriter, loc, op.getStaging(), tile,
                             op.getDescriptor(), coordinates, Value());
        BulkCommitGroupOp::create(rewriter, loc);
      }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lowers `tile.warpgroup_coalesced_store`: per 64 x W chunk, each warp
/// syncs (its lanes' reads of the buffer are done), writes its 16 rows
/// (writeChunk), syncs again (the rows are visible to its lanes), then
/// stores them row by row: lane l the columns l + 32 q, one element each,
/// where the row and column are inside dst. A warp reads back only the
/// rows it wrote, so the warp's own barrier (bar.warp.sync) orders it.
struct WarpgroupCoalescedStoreOpLowering
    : OpRewritePattern<WarpgroupCoalescedStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupCoalescedStoreOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    ArrayRef<int64_t> shape = op.getShape();
    MemRefType staging = op.getStaging().getType();
    int64_t buffers = staging.getShape().take_back(3)[0];
    int64_t width = staging.getShape().back();
    int64_t perBlock = shape[1] / 2;
    Value dst = op.getDst();
    WarpPosition position =
        getWarpPosition(rewriter, loc, {kWarpgroupThreads / 32, 1});
    Value lane = position.lane;
    auto [rowOffset, column] = getStMatrixOffsets(math, lane);
    Value warpRow = math.mul(position.warpM, 16);
    Value row = math.add(warpRow, rowOffset);
    Value allLanes = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(-1));
    auto syncWarp = [&] { NVVM::SyncWarpOp::create(rewriter, loc, allLanes); };
    Value rows = memref::DimOp::create(rewriter, loc, dst, 0);
    Value columns = memref::DimOp::create(rewriter, loc, dst, 1);
    int64_t chunk = 0;
    for (int64_t i = 0; i < shape[0] / 64; ++i)
      for (int64_t c = 0; c < shape[1] / width; ++c, ++chunk) {
        SmallVector<Value> tile(op.getIndices());
        tile.push_back(math.constant(chunk % buffers));
        syncWarp();
        writeChunk(rewriter, loc, op.getAcc(), perBlock, op.getStaging(), tile,
                   position, row, column, i, c, width);
        syncWarp();
        // The warp's rows of the chunk, one at a time.
        Value firstRow =
            math.add(op.getRow(), math.add(warpRow, math.constant(64 * i)));
        Value firstColumn =
            math.add(op.getColumn(), math.add(lane, math.constant(width * c)));
        auto loop = scf::ForOp::create(rewriter, loc, math.constant(0),
                                       math.constant(16), math.constant(1));
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(loop.getBody());
        Value r = loop.getInductionVar();
        Value dstRow = math.add(firstRow, r);
        auto inRows = scf::IfOp::create(rewriter, loc, math.less(dstRow, rows));
        rewriter.setInsertionPointToStart(&inRows.getThenRegion().front());
        Value stagingRow = math.add(warpRow, r);
        for (int64_t q = 0; q < width / 32; ++q) {
          SmallVector<Value> at(tile);
          at.push_back(stagingRow);
          at.push_back(math.add(lane, math.constant(32 * q)));
          Value value =
              memref::LoadOp::create(rewriter, loc, op.getStaging(), at);
          Value dstColumn = math.add(firstColumn, math.constant(32 * q));
          auto inColumns =
              scf::IfOp::create(rewriter, loc, math.less(dstColumn, columns));
          OpBuilder::InsertionGuard inner(rewriter);
          rewriter.setInsertionPointToStart(&inColumns.getThenRegion().front());
          memref::StoreOp::create(rewriter, loc, value, dst,
                                  ValueRange{dstRow, dstColumn});
        }
      }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A loader of `factors[min(origin + offset + step, extent - 1)]`.
static std::function<Value(int64_t)> clampedLoads(OpBuilder &builder,
                                                  Location loc, Value factors,
                                                  Value origin, Value offset) {
  IndexMath math(builder, loc);
  Value last = arith::SubIOp::create(
      builder, loc, memref::DimOp::create(builder, loc, factors, 0),
      math.constant(1));
  Value first = math.add(origin, offset);
  return [&builder, loc, factors, last, first](int64_t step) -> Value {
    IndexMath math(builder, loc);
    Value index = arith::MinUIOp::create(
        builder, loc, math.add(first, math.constant(step)), last);
    return memref::LoadOp::create(builder, loc, factors, index);
  };
}

/// The row steps of the rows a thread holds of an M-row tile, from its
/// origin: 64 i + 8 h at position 2 i + h.
static SmallVector<int64_t> getRowSteps(int64_t rows) {
  SmallVector<int64_t> steps;
  for (int64_t i = 0; i < rows / 64; ++i)
    for (int64_t h = 0; h < 2; ++h)
      steps.push_back(64 * i + 8 * h);
  return steps;
}

/// Lowers `tile.warpgroup_rows`: one clamped load per row the thread holds.
struct WarpgroupRowsOpLowering : OpRewritePattern<WarpgroupRowsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupRowsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value rowOffset = getWarpgroupFragmentOrigin(rewriter, loc).first;
    auto rowAt =
        clampedLoads(rewriter, loc, op.getSrc(), op.getRow(), rowOffset);
    SmallVector<Value> values;
    for (int64_t step : getRowSteps(op.getShape()[0]))
      values.push_back(rowAt(step));
    rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, op.getType(),
                                                        values);
    return success();
  }
};

/// Lowers `tile.warpgroup_scale`: element 4 j + 2 h + e of 64-row block i
/// is (row 64 i + 8 h, column 8 j + e) from the thread's origin; it is
/// multiplied by its row factor (rows[min(row, extent - 1)], or element
/// 2 i + h of row_factors), then by columns[min(column, extent - 1)]. The
/// column factors are loaded fragment by fragment next to their multiplies,
/// which keeps few of them live beside the accumulators.
struct WarpgroupScaleOpLowering : OpRewritePattern<WarpgroupScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupScaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ArrayRef<int64_t> shape = op.getShape();
    int64_t blocks = shape[0] / 64, perBlock = shape[1] / 2;
    auto [rowOffset, columnOffset] = getWarpgroupFragmentOrigin(rewriter, loc);
    SmallVector<Value> rowFactors;
    if (op.getRows()) {
      auto rowAt =
          clampedLoads(rewriter, loc, op.getRows(), op.getRow(), rowOffset);
      for (int64_t step : getRowSteps(shape[0]))
        rowFactors.push_back(rowAt(step));
    } else if (Value values = op.getRowFactors()) {
      for (int64_t i = 0; i < 2 * blocks; ++i)
        rowFactors.push_back(vector::ExtractOp::create(rewriter, loc, values,
                                                       ArrayRef<int64_t>{i}));
    }
    std::function<Value(int64_t)> columnAt;
    if (op.getColumns())
      columnAt = clampedLoads(rewriter, loc, op.getColumns(), op.getColumn(),
                              columnOffset);
    // Contractible products: an add of the result (a promotion) may fuse
    // into an FMA.
    auto contract = arith::FastMathFlagsAttr::get(
        op.getContext(), arith::FastMathFlags::contract);
    Value acc = op.getAcc();
    for (int64_t j = 0; j < perBlock / 4; ++j)
      for (int64_t e = 0; e < 2; ++e) {
        Value column = columnAt ? columnAt(8 * j + e) : Value();
        for (int64_t i = 0; i < blocks; ++i)
          for (int64_t h = 0; h < 2; ++h) {
            int64_t position = i * perBlock + 4 * j + 2 * h + e;
            Value value = vector::ExtractOp::create(
                rewriter, loc, acc, ArrayRef<int64_t>{position});
            if (!rowFactors.empty())
              value = arith::MulFOp::create(rewriter, loc, value,
                                            rowFactors[2 * i + h], contract);
            if (column)
              value =
                  arith::MulFOp::create(rewriter, loc, value, column, contract);
            acc = vector::InsertOp::create(rewriter, loc, value, acc,
                                           ArrayRef<int64_t>{position});
          }
      }
    rewriter.replaceOp(op, acc);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileMmaStoreLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MmaStoreOpLowering, WarpgroupMmaStoreOpLowering,
               WarpgroupTmaStoreOpLowering, WarpgroupCoalescedStoreOpLowering,
               WarpgroupRowsOpLowering,
               WarpgroupScaleOpLowering>(patterns.getContext());
}
