//===- LowerWarpgroupEpilogue.cpp - Fused GEMM epilogue ops ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The epilogue ops on warpgroup accumulators (wgmma's D layout: element
// 4 j + 2 h + e of a 64-row block is row 8 h, column 8 j + e from the
// thread's origin), expanded into each thread's loads and arithmetic:
// - tile.warpgroup_add: per element pair, a load (one 2-element vector load
//   with a unit innermost stride) and the adds; where the tile reaches past
//   the source's extents, the loads clamped into it and selects that keep
//   the accumulators outside it;
// - tile.warpgroup_activation: the activation's arith/math element by
//   element; gated, of each gate element times its up element.
// Each element's chain is emitted before the next one's, so the loads and
// temporaries live one at a time beside the accumulators.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The row and column strides of a rank-2 `type` (ShapedType::kDynamic
/// where not static).
static std::pair<int64_t, int64_t> getStaticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return {ShapedType::kDynamic, ShapedType::kDynamic};
  return {strides[0], strides[1]};
}

struct WarpgroupAddOpLowering : OpRewritePattern<WarpgroupAddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupAddOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    ArrayRef<int64_t> shape = op.getShape();
    Value src = op.getSrc();
    Value rows = memref::DimOp::create(rewriter, loc, src, 0);
    Value columns = memref::DimOp::create(rewriter, loc, src, 1);
    // Each access clamped into the source and its sum kept only inside it;
    // from global memory, where the whole tile lies inside the source
    // (every tile but a last row or column one), the loads unclamped
    // instead, at constant offsets from the thread's first element (an
    // immediate offset each), and no selects. The condition is the
    // warpgroup's, so its threads take one branch.
    if (!isGlobalMemory(op.getSrc().getType())) {
      rewriter.replaceOp(op, expand(rewriter, op, rows, columns, true));
      return success();
    }
    auto fits = [&](Value first, int64_t extent, Value bound) {
      return arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule,
                                   math.add(first, math.constant(extent)),
                                   bound);
    };
    Value whole = arith::AndIOp::create(
        rewriter, loc, fits(op.getRow(), shape[0], rows),
        fits(op.getColumn(), shape[1], columns));
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{op.getType()},
                                  whole, /*withElseRegion=*/true);
    for (bool clamped : {false, true}) {
      OpBuilder::InsertionGuard guard(rewriter);
      Block &block = clamped ? ifOp.getElseRegion().front()
                             : ifOp.getThenRegion().front();
      rewriter.setInsertionPointToStart(&block);
      Value sum = expand(rewriter, op, rows, columns, clamped);
      scf::YieldOp::create(rewriter, loc, sum);
    }
    rewriter.replaceOp(op, ifOp.getResults());
    return success();
  }

  /// The sum of the accumulators and the source's elements at their
  /// positions; `clamped`: accesses clamped into the source's `rows` x
  /// `columns` and sums kept only inside it.
  static Value expand(OpBuilder &builder, WarpgroupAddOp op, Value rows,
                      Value columns, bool clamped) {
    Location loc = op.getLoc();
    IndexMath math(builder, loc);
    ArrayRef<int64_t> shape = op.getShape();
    int64_t blocks = shape[0] / 64, perBlock = shape[1] / 2;
    Value src = op.getSrc();
    MemRefType type = op.getSrc().getType();
    Type element = type.getElementType();
    Type f32 = builder.getF32Type();
    // A statically unit column stride reads pairs; a statically zero row
    // (column) stride one value per column (row).
    auto [rowStride, columnStride] = getStaticStrides(type);
    bool pairs = columnStride == 1;
    int64_t width = pairs ? 2 : 1;
    auto [rowOrigin, columnOrigin] = getWarpgroupFragmentOrigin(builder, loc);
    Value firstRow = math.add(op.getRow(), rowOrigin);
    Value firstColumn = math.add(op.getColumn(), columnOrigin);
    // Clamped: the last row, and the last column (pair) an access may start
    // at.
    Value lastRow, lastColumn;
    if (clamped) {
      lastRow = arith::SubIOp::create(builder, loc, rows, math.constant(1));
      lastColumn =
          arith::SubIOp::create(builder, loc, columns, math.constant(width));
    }
    auto pairType = VectorType::get({width}, element);
    uint64_t alignment = width * element.getIntOrFloatBitWidth() / 8;
    Value acc = op.getAcc();
    // A value shared by a column's (row's) elements is loaded once and
    // added to each of them, the loop over them innermost so it dies at
    // once.
    bool perColumn = rowStride == 0, perRow = columnStride == 0 && !perColumn;
    SmallVector<std::pair<int64_t, int64_t>> rowSteps, columnSteps;
    for (int64_t i = 0; i < blocks; ++i)
      for (int64_t h = 0; h < 2; ++h)
        rowSteps.push_back({i, h});
    for (int64_t j = 0; j < perBlock / 4; ++j)
      for (int64_t e = 0; e < 2; e += width)
        columnSteps.push_back({j, e});
    // The row's index (clamped) and whether it lies inside the source
    // (null: unclamped, inside).
    auto rowOf = [&](int64_t i, int64_t h) -> std::pair<Value, Value> {
      Value row = math.add(firstRow, math.constant(64 * i + 8 * h));
      if (!clamped)
        return {row, Value()};
      return {arith::MinUIOp::create(builder, loc, row, lastRow),
              arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                    row, rows)};
    };
    auto columnOf = [&](int64_t j, int64_t e) -> std::pair<Value, Value> {
      Value column = math.add(firstColumn, math.constant(8 * j + e));
      if (!clamped)
        return {column, Value()};
      return {arith::MinUIOp::create(builder, loc, column, lastColumn),
              arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                    column, columns)};
    };
    auto both = [&](Value a, Value b) -> Value {
      return a ? arith::AndIOp::create(builder, loc, a, b).getResult() : b;
    };
    // The `width` elements at (row, column), extended to f32.
    auto load = [&](Value row, Value column) {
      SmallVector<Value> loaded;
      if (pairs) {
        Value pair = vector::LoadOp::create(
            builder, loc, pairType, src, ValueRange{row, column},
            /*nontemporal=*/false, llvm::MaybeAlign(alignment));
        for (int64_t k = 0; k < 2; ++k)
          loaded.push_back(vector::ExtractOp::create(builder, loc, pair,
                                                     ArrayRef<int64_t>{k}));
      } else {
        loaded.push_back(
            memref::LoadOp::create(builder, loc, src, ValueRange{row, column}));
      }
      for (Value &value : loaded)
        if (element != f32)
          value = arith::ExtFOp::create(builder, loc, f32, value);
      return loaded;
    };
    // Adds `loaded` to the elements of (i, h) x (j, e) (where `inside`, if
    // not null).
    auto add = [&](ArrayRef<Value> loaded, int64_t i, int64_t h, int64_t j,
                   int64_t e, Value inside) {
      for (auto [k, value] : llvm::enumerate(loaded)) {
        int64_t position = i * perBlock + 4 * j + 2 * h + e + k;
        Value old = vector::ExtractOp::create(builder, loc, acc,
                                              ArrayRef<int64_t>{position});
        Value sum = arith::AddFOp::create(builder, loc, old, value);
        if (inside)
          sum = arith::SelectOp::create(builder, loc, inside, sum, old);
        acc = vector::InsertOp::create(builder, loc, sum, acc,
                                       ArrayRef<int64_t>{position});
      }
    };
    if (perColumn) {
      Value anyRow = math.constant(0);
      for (auto [j, e] : columnSteps) {
        auto [columnAt, columnInside] = columnOf(j, e);
        SmallVector<Value> loaded = load(anyRow, columnAt);
        for (auto [i, h] : rowSteps)
          add(loaded, i, h, j, e, both(rowOf(i, h).second, columnInside));
      }
      return acc;
    }
    for (auto [i, h] : rowSteps) {
      auto [rowAt, rowInside] = rowOf(i, h);
      SmallVector<Value> shared;
      if (perRow)
        shared = load(rowAt, math.constant(0));
      for (auto [j, e] : columnSteps) {
        auto [columnAt, columnInside] = columnOf(j, e);
        SmallVector<Value> loaded = perRow ? shared : load(rowAt, columnAt);
        add(loaded, i, h, j, e, both(rowInside, columnInside));
      }
    }
    return acc;
  }
};

/// `kind` of the f32 `x`, as PyTorch defines it.
static Value activate(OpBuilder &builder, Location loc, Activation kind,
                      Value x) {
  auto splat = [&](double value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getF32FloatAttr(value));
  };
  switch (kind) {
  case Activation::identity:
    return x;
  case Activation::relu:
    // maximumf propagates NaN, as torch.relu does.
    return arith::MaximumFOp::create(builder, loc, x, splat(0.0));
  case Activation::silu: {
    // x / (1 + e^-x): e^-x overflows to inf for x < -88 and the quotient
    // is -0, as PyTorch's.
    Value negated = arith::NegFOp::create(builder, loc, x);
    Value exp = math::ExpOp::create(builder, loc, negated,
                                    arith::FastMathFlags::afn);
    Value denominator = arith::AddFOp::create(builder, loc, splat(1.0), exp);
    return arith::DivFOp::create(builder, loc, x, denominator,
                                 arith::FastMathFlags::afn);
  }
  case Activation::gelu: {
    Value scaled = arith::MulFOp::create(builder, loc, x, splat(M_SQRT1_2));
    Value erf = math::ErfOp::create(builder, loc, scaled);
    Value one = arith::AddFOp::create(builder, loc, splat(1.0), erf);
    Value half = arith::MulFOp::create(builder, loc, x, splat(0.5));
    return arith::MulFOp::create(builder, loc, half, one);
  }
  case Activation::gelu_tanh: {
    Value cube = arith::MulFOp::create(
        builder, loc, x, arith::MulFOp::create(builder, loc, x, x));
    Value inner = arith::AddFOp::create(
        builder, loc, x,
        arith::MulFOp::create(builder, loc, cube, splat(0.044715)));
    Value tanh = math::TanhOp::create(
        builder, loc,
        arith::MulFOp::create(builder, loc, inner,
                              splat(M_2_SQRTPI * M_SQRT1_2)));
    Value one = arith::AddFOp::create(builder, loc, splat(1.0), tanh);
    Value half = arith::MulFOp::create(builder, loc, x, splat(0.5));
    return arith::MulFOp::create(builder, loc, half, one);
  }
  }
  llvm_unreachable("an activation kind");
}

struct WarpgroupActivationOpLowering
    : OpRewritePattern<WarpgroupActivationOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpgroupActivationOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value acc = op.getAcc();
    Activation kind = op.getKind();
    auto at = [&](int64_t position) -> Value {
      return vector::ExtractOp::create(rewriter, loc, acc,
                                       ArrayRef<int64_t>{position});
    };
    // Element by element, each chain before the next: a vector-wide op per
    // step would keep every element's temporaries live at once.
    Value result = acc;
    if (!op.getGated()) {
      for (int64_t position = 0, e = op.getType().getNumElements();
           position < e; ++position)
        result = vector::InsertOp::create(
            rewriter, loc, activate(rewriter, loc, kind, at(position)), result,
            ArrayRef<int64_t>{position});
      rewriter.replaceOp(op, result);
      return success();
    }
    // Block i's gate elements 8 j + t and up elements 8 j + 4 + t (t < 4)
    // become element 4 j + t of the half-width block.
    ArrayRef<int64_t> shape = op.getShape();
    int64_t blocks = shape[0] / 64, perBlock = shape[1] / 2;
    result = arith::ConstantOp::create(
        rewriter, loc, op.getType(),
        DenseElementsAttr::get(op.getType(), rewriter.getF32FloatAttr(0)));
    for (int64_t i = 0; i < blocks; ++i)
      for (int64_t j = 0; j < perBlock / 8; ++j)
        for (int64_t t = 0; t < 4; ++t) {
          Value gate = activate(rewriter, loc, kind, at(i * perBlock + 8 * j + t));
          Value product = arith::MulFOp::create(
              rewriter, loc, gate, at(i * perBlock + 8 * j + 4 + t));
          result = vector::InsertOp::create(
              rewriter, loc, product, result,
              ArrayRef<int64_t>{i * perBlock / 2 + 4 * j + t});
        }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tile::populateWarpgroupEpilogueLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<WarpgroupAddOpLowering, WarpgroupActivationOpLowering>(
      patterns.getContext());
}
