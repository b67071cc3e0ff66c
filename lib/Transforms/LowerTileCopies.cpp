//===- LowerTileCopies.cpp - Lower tile.copy and tile.tma_copy ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Block-wide copies between global and shared memory, expanded into what
// each thread issues:
// - tile.copy (CuTe's TiledCopy): thread t below the thread layout's size
//   has its first value at linear column-major tiler index TV(t, 0) = (m, n);
//   for each repeat (rm, rn) of the tiler over the tile it copies its
//   contiguous values between global [i + rm * TM + m, j + rn * TN + n] and
//   tile [rm * TM + m, rn * TN + n]: a load is one tile.async_copy (cp.async),
//   a store one vector.load from the tile and one vector.store to global
//   memory, aligned to the vector when the global rows, offset and column
//   are multiples of its length (tested at run time where not static). With
//   bounds, tiles wholly inside the matrix skip the checks; edge tiles
//   zero-fill (src_bytes) or guard their stores.
// - tile.tma_copy: thread (0, 0, 0) issues tile.mbarrier_arrive_expect_tx of
//   the box bytes and the tile.tma_load that completes on that barrier.
//===----------------------------------------------------------------------===//

#include "FirstThread.h"
#include "LowerTileOpsPatterns.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

/// Emits L(index) for a layout with static shape and stride: the
/// colexicographic coordinate of `index` dotted with the strides.
static Value emitLayout(OpBuilder &builder, Location loc, const Layout &layout,
                        Value index) {
  IndexMath math(builder, loc);
  SmallVector<int64_t> shapes = layout.getShape().flatten();
  SmallVector<int64_t> strides = layout.getStride().flatten();
  Value result = math.constant(0);
  int64_t prefix = 1;
  for (auto [i, shape, stride] : llvm::enumerate(shapes, strides)) {
    Value coordinate =
        arith::DivUIOp::create(builder, loc, index, math.constant(prefix));
    if (i + 1 < shapes.size())
      coordinate = arith::RemUIOp::create(builder, loc, coordinate,
                                          math.constant(shape));
    result = arith::AddIOp::create(
        builder, loc, result,
        arith::MulIOp::create(builder, loc, coordinate, math.constant(stride)));
    prefix *= shape;
  }
  return result;
}

namespace {

/// Where one copy of a thread goes: the global element and the tile indices
/// (the tile's leading indices, then the row and column in the tile).
struct CopyCoordinates {
  Value globalRow, globalColumn;
  SmallVector<Value> tileIndices;
};

/// Emits the per-thread copies of one tile.copy at the rewriter's insertion
/// point (CuTe's TiledCopy; see the file header).
class TiledCopyEmitter {
public:
  TiledCopyEmitter(CopyOp op, const Layout &threadMode,
                   PatternRewriter &rewriter)
      : op(op), rewriter(rewriter), loc(op.getLoc()), math(rewriter, loc),
        threadMode(threadMode), numThreads(op.getThreads().getLayout().size()),
        numValues(op.getValues().getLayout().size()),
        tileType(cast<MemRefType>(op.getTile().getType())),
        tileShape(tileType.getShape().take_back(2)),
        bytes(numValues * tileType.getElementTypeBitWidth() / 8) {
    std::tie(tileM, tileN) = op.getTilerShape();
  }

  /// Emits the copies of the whole tile: without bounds, all unchecked;
  /// with them, tiles wholly inside the bounds (all but the edge tiles)
  /// skip the per-copy bounds arithmetic.
  void emitTile() {
    if (op.getBounds().empty())
      return emitAlignmentCases(/*bounded=*/false);
    auto whole = scf::IfOp::create(rewriter, loc, emitTileInsideBounds(),
                                   /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(&whole.getThenRegion().front());
    emitAlignmentCases(/*bounded=*/false);
    rewriter.setInsertionPointToStart(&whole.getElseRegion().front());
    emitAlignmentCases(/*bounded=*/true);
  }

private:
  CopyOp op;
  PatternRewriter &rewriter;
  Location loc;
  IndexMath math;
  /// The thread mode of the thread-value layout: thread t's first value is
  /// at the linear column-major tiler index TV(t, 0).
  Layout threadMode;
  int64_t numThreads, numValues;
  /// The tiler's shape (M, N).
  int64_t tileM, tileN;
  MemRefType tileType;
  /// The rows and columns of the tile.
  ArrayRef<int64_t> tileShape;
  /// The bytes of one thread's copy (its contiguous values).
  int64_t bytes;

  /// Emits whether the tile at the copy's global indices lies wholly inside
  /// the bounds.
  Value emitTileInsideBounds() {
    auto fits = [&](Value origin, int64_t extent, Value bound) -> Value {
      Value end =
          arith::AddIOp::create(rewriter, loc, origin, math.constant(extent));
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle,
                                   end, bound);
    };
    return arith::AndIOp::create(
        rewriter, loc,
        fits(op.getGlobalIndices()[0], tileShape[0], op.getBounds()[0]),
        fits(op.getGlobalIndices()[1], tileShape[1], op.getBounds()[1]));
  }

  /// Emits the copies with their global stores aligned where that holds.
  /// Each row of V values the copy writes to global memory starts at a
  /// multiple of V: aligned to the vector's bytes when the global rows,
  /// offset and first column are multiples of V (static where the layout
  /// is, else tested at run time); otherwise element-aligned. Loads
  /// (cp.async) carry no alignment.
  void emitAlignmentCases(bool bounded) {
    if (op.isLoad())
      return emitThreadCopies(bounded, llvm::MaybeAlign());
    auto global = cast<MemRefType>(op.getGlobal().getType());
    llvm::MaybeAlign vectorAlign(bytes);
    SmallVector<int64_t> strides;
    int64_t offset;
    Value multiple = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq,
        math.rem(op.getGlobalIndices()[1], numValues), math.constant(0));
    if (succeeded(global.getStridesAndOffset(strides, offset)) &&
        !ShapedType::isDynamic(strides[0]) && !ShapedType::isDynamic(offset)) {
      if (strides[0] % numValues || offset % numValues)
        return emitThreadCopies(bounded, llvm::MaybeAlign());
    } else {
      multiple = emitLayoutIsVectorMultiple(multiple);
    }
    auto aligned =
        scf::IfOp::create(rewriter, loc, multiple, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&aligned.getThenRegion().front());
    emitThreadCopies(bounded, vectorAlign);
    rewriter.setInsertionPointToStart(&aligned.getElseRegion().front());
    emitThreadCopies(bounded, llvm::MaybeAlign());
  }

  /// Emits `condition` and whether the global memref's row stride and
  /// offset, known only at run time, are multiples of V.
  Value emitLayoutIsVectorMultiple(Value condition) {
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getGlobal());
    for (Value v :
         {Value(metadata.getStrides()[0]), Value(metadata.getOffset())})
      condition = arith::AndIOp::create(
          rewriter, loc, condition,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                math.rem(v, numValues), math.constant(0)));
    return condition;
  }

  /// Emits every thread's copies; `bounded` ones zero-fill (loads) or skip
  /// (stores) outside the bounds; stores to global memory carry
  /// `alignment`.
  void emitThreadCopies(bool bounded, llvm::MaybeAlign alignment) {
    OpBuilder::InsertionGuard guard(rewriter);
    CopyCoordinates copy = emitRepeatLoops();
    if (op.isLoad())
      return emitAsyncCopy(copy, bounded);
    emitVectorCopy(copy, bounded, alignment);
  }

  /// Emits, for the threads below the thread layout's size, the thread's
  /// first value (m, n) and the loops over the tiler's repeats (rm, rn);
  /// leaves the insertion point in the inner loop and returns the copy's
  /// global [i + rm * TM + m, j + rn * TN + n] and tile
  /// [rm * TM + m, rn * TN + n] coordinates.
  CopyCoordinates emitRepeatLoops() {
    Value tid = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    Value active =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, tid,
                              math.constant(numThreads));
    auto ifOp = scf::IfOp::create(rewriter, loc, active);
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value first = emitLayout(rewriter, loc, threadMode, tid);
    Value m =
        arith::RemUIOp::create(rewriter, loc, first, math.constant(tileM));
    Value n =
        arith::DivUIOp::create(rewriter, loc, first, math.constant(tileM));
    auto rows = scf::ForOp::create(rewriter, loc, math.constant(0),
                                   math.constant(tileShape[0] / tileM),
                                   math.constant(1));
    rewriter.setInsertionPointToStart(rows.getBody());
    auto cols = scf::ForOp::create(rewriter, loc, math.constant(0),
                                   math.constant(tileShape[1] / tileN),
                                   math.constant(1));
    rewriter.setInsertionPointToStart(cols.getBody());
    Value dm = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, rows.getInductionVar(),
                              math.constant(tileM)),
        m);
    Value dn = arith::AddIOp::create(
        rewriter, loc,
        arith::MulIOp::create(rewriter, loc, cols.getInductionVar(),
                              math.constant(tileN)),
        n);
    CopyCoordinates copy;
    copy.globalRow =
        arith::AddIOp::create(rewriter, loc, op.getGlobalIndices()[0], dm);
    copy.globalColumn =
        arith::AddIOp::create(rewriter, loc, op.getGlobalIndices()[1], dn);
    copy.tileIndices.assign(op.getTileIndices().begin(),
                            op.getTileIndices().end());
    copy.tileIndices.append({dm, dn});
    return copy;
  }

  /// A load: one cp.async of the thread's values from global memory into
  /// the tile (16-byte copies bypass L1).
  void emitAsyncCopy(CopyCoordinates &copy, bool bounded) {
    CacheMode cache = bytes == 16 ? CacheMode::cg : CacheMode::ca;
    Value srcBytes;
    if (bounded)
      srcBytes = emitSourceBytesInBounds(copy);
    AsyncCopyOp::create(rewriter, loc, op.getSrc(),
                        ValueRange{copy.globalRow, copy.globalColumn},
                        op.getDst(), copy.tileIndices,
                        rewriter.getI32IntegerAttr(bytes),
                        CacheModeAttr::get(op.getContext(), cache),
                        L2PrefetchSizeAttr(), srcBytes, Value(), Value());
  }

  /// Emits the bytes a bounded cp.async reads (the rest it zero-fills): the
  /// values inside [rows, cols), min(max(cols - column, 0), V) in a row
  /// below `rows`, else none; a copy with none reads from (0, 0), to which
  /// `copy`'s global coordinates are moved.
  Value emitSourceBytesInBounds(CopyCoordinates &copy) {
    Value &gm = copy.globalRow, &gn = copy.globalColumn;
    Value rows = op.getBounds()[0], cols = op.getBounds()[1];
    Value zero = math.constant(0);
    Value left = arith::MaxSIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, cols, gn), zero);
    Value inside =
        arith::MinSIOp::create(rewriter, loc, left, math.constant(numValues));
    Value inRows = arith::CmpIOp::create(rewriter, loc,
                                         arith::CmpIPredicate::slt, gm, rows);
    inside = arith::SelectOp::create(rewriter, loc, inRows, inside, zero);
    Value any = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sgt,
                                      inside, zero);
    gm = arith::SelectOp::create(rewriter, loc, any, gm, zero);
    gn = arith::SelectOp::create(rewriter, loc, any, gn, zero);
    Value insideBytes = arith::MulIOp::create(
        rewriter, loc, inside,
        math.constant(tileType.getElementTypeBitWidth() / 8));
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                      insideBytes);
  }

  /// A store: one vector load of the thread's values from the tile and its
  /// store to global memory (with `bounded`, only what lies inside the
  /// bounds).
  void emitVectorCopy(const CopyCoordinates &copy, bool bounded,
                      llvm::MaybeAlign alignment) {
    auto vectorType = VectorType::get({numValues}, tileType.getElementType());
    Value values =
        vector::LoadOp::create(rewriter, loc, vectorType, op.getSrc(),
                               copy.tileIndices, false, getTileAlignment());
    if (!bounded) {
      vector::StoreOp::create(rewriter, loc, values, op.getDst(),
                              ValueRange{copy.globalRow, copy.globalColumn},
                              false, alignment);
      return;
    }
    emitStoreInBounds(values, copy.globalRow, copy.globalColumn, alignment);
  }

  /// The alignment of a thread's V values in the shared tile: each starts at
  /// a tile column that is a multiple of V (as for the global side), so the
  /// vector's bytes (at most 16, and the swizzle's unit, which keeps aligned
  /// offsets aligned: T-SWZ-6) where the tile's strides and offset are
  /// multiples of V and its buffer is aligned at least that much.
  llvm::MaybeAlign getTileAlignment() {
    SharedBufferInfo info = getSharedBufferInfo(op.getSrc());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!info.alignment || !llvm::isPowerOf2_64(bytes) ||
        failed(tileType.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) || offset % numValues ||
        strides.back() != 1)
      return llvm::MaybeAlign();
    for (int64_t stride : ArrayRef(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride % numValues)
        return llvm::MaybeAlign();
    int64_t alignment = std::min<int64_t>({bytes, 16, *info.alignment});
    if (info.swizzle && !info.swizzle->isIdentity())
      alignment =
          std::min<int64_t>(alignment, int64_t(1) << info.swizzle->getBase());
    return llvm::MaybeAlign(alignment);
  }

  /// Stores `values` at global (gm, gn) where it is inside the rows: the
  /// whole vector where it fits, else the elements left of the column
  /// bound.
  void emitStoreInBounds(Value values, Value gm, Value gn,
                         llvm::MaybeAlign alignment) {
    Value rows = op.getBounds()[0], cols = op.getBounds()[1];
    auto inRows = scf::IfOp::create(rewriter, loc, math.less(gm, rows));
    rewriter.setInsertionPointToStart(&inRows.getThenRegion().front());
    Value end = math.add(gn, math.constant(numValues));
    auto whole = scf::IfOp::create(
        rewriter, loc,
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::sle, end,
                              cols),
        /*withElseRegion=*/true);
    rewriter.setInsertionPointToStart(&whole.getThenRegion().front());
    vector::StoreOp::create(rewriter, loc, values, op.getDst(),
                            ValueRange{gm, gn}, false, alignment);
    rewriter.setInsertionPointToStart(&whole.getElseRegion().front());
    for (int64_t e = 0; e < numValues; ++e) {
      Value column = math.add(gn, math.constant(e));
      auto inside = scf::IfOp::create(rewriter, loc, math.less(column, cols));
      OpBuilder::InsertionGuard inner(rewriter);
      rewriter.setInsertionPointToStart(&inside.getThenRegion().front());
      Value value = vector::ExtractOp::create(rewriter, loc, values,
                                              ArrayRef<int64_t>{e});
      memref::StoreOp::create(rewriter, loc, value, op.getDst(),
                              ValueRange{gm, column});
    }
  }
};

/// Lowers `tile.copy` to per-thread `tile.async_copy` (global to shared) or
/// vector load and store (shared to global); fails, with the error on the op,
/// when the thread and value layouts do not compose.
struct CopyOpLowering : OpRewritePattern<CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CopyOp op,
                                PatternRewriter &rewriter) const override {
    llvm::Expected<Layout> tv = op.getThreadValueLayout();
    if (!tv)
      return op.emitOpError() << llvm::toString(tv.takeError());
    TiledCopyEmitter(op, (*tv)[0], rewriter).emitTile();
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lowers `tile.tma_copy`: thread 0 announces the box bytes and starts the
/// load.
struct TmaCopyOpLowering : OpRewritePattern<TmaCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TmaCopyOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ifOp = scf::IfOp::create(rewriter, loc, isFirstThread(rewriter, loc));
    rewriter.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value bytes = arith::ConstantIntOp::create(
        rewriter, loc, op.getDescriptor().getType().getBoxBytes(), 32);
    MBarrierArriveExpectTxOp::create(
        rewriter, loc, MBarrierTokenType::get(op.getContext()),
        op.getBarriers(), op.getBarrierIndex(), bytes);
    TmaLoadOp::create(rewriter, loc, op.getDescriptor(), op.getCoordinates(),
                      ValueRange(), op.getDst(), op.getDstIndices(),
                      op.getBarriers(), op.getBarrierIndex(), Value(), Value());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileCopyLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<CopyOpLowering, TmaCopyOpLowering>(patterns.getContext());
}
