//===- IndexEvaluation.cpp - Concrete values of index arithmetic ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "IndexEvaluation.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/WorkSchedule.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"
#include <limits>

using namespace mlir;

/// Deeper expressions are treated as unknown (and cycles cannot recurse).
static constexpr int kMaxDepth = 64;

namespace {
/// One evaluation: the leaf function and the values computed so far (an
/// expression DAG that reuses values is evaluated once per value, not once
/// per path).
struct Context {
  tile::IndexLeaf leaf;
  llvm::DenseMap<Value, std::optional<int64_t>> memo;
};
} // namespace

static std::optional<int64_t> evaluate(Value value, Context &context,
                                       int depth);

/// i1 values are 0 or 1 (an i1 constant `true` reads as -1 sign-extended).
static std::optional<int64_t> normalize(Value value,
                                        std::optional<int64_t> result) {
  if (result && value.getType().isInteger(1))
    return *result & 1;
  return result;
}

static std::optional<int64_t> compare(arith::CmpIPredicate predicate, int64_t l,
                                      int64_t r) {
  using P = arith::CmpIPredicate;
  uint64_t ul = l, ur = r;
  switch (predicate) {
  case P::eq:
    return l == r;
  case P::ne:
    return l != r;
  case P::slt:
    return l < r;
  case P::sle:
    return l <= r;
  case P::sgt:
    return l > r;
  case P::sge:
    return l >= r;
  case P::ult:
    return ul < ur;
  case P::ule:
    return ul <= ur;
  case P::ugt:
    return ul > ur;
  case P::uge:
    return ul >= ur;
  }
  return std::nullopt;
}

static std::optional<int64_t> evaluateOp(Value value, Context &context,
                                         int depth);

namespace {
/// WorkSchedule.h's arithmetic on integers, unsigned and wrapping like the
/// emitted index arithmetic (the formulas compute both kinds of unit and
/// select one: the other may wrap); a division by zero makes the result
/// unknown.
struct CountedMath {
  using V = uint64_t;
  bool valid = true;

  V constant(int64_t n) { return n; }
  V flag(bool value) { return value; }
  V add(V x, V y) { return x + y; }
  V sub(V x, V y) { return x - y; }
  V mul(V x, V y) { return x * y; }
  V div(V x, V y) {
    valid &= y != 0;
    return y ? x / y : 0;
  }
  V rem(V x, V y) {
    valid &= y != 0;
    return y ? x % y : 0;
  }
  V min(V x, V y) { return std::min(x, y); }
  V max(V x, V y) { return std::max(x, y); }
  V ugt(V x, V y) { return x > y; }
  V ult(V x, V y) { return x < y; }
  V ne(V x, V y) { return x != y; }
  V both(V x, V y) { return x & y; }
  V either(V x, V y) { return x | y; }
  V select(V c, V x, V y) { return c ? x : y; }
};
} // namespace

/// A result of tile.tile_coord, tile.work_count or tile.work_unit (T-TILE-7)
/// of evaluable operands; the op's other results are memoised with it.
static std::optional<int64_t> evaluateSchedule(Value value, Operation *def,
                                               Context &context, int depth) {
  SmallVector<uint64_t> operands;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> known = evaluate(operand, context, depth + 1);
    if (!known || *known < 0)
      return std::nullopt;
    operands.push_back(*known);
  }
  CountedMath m;
  SmallVector<uint64_t, 6> results =
      tile::schedule::results(m, def, ArrayRef<uint64_t>(operands));
  for (auto [result, computed] : llvm::zip(def->getResults(), results)) {
    std::optional<int64_t> known;
    if (m.valid && computed <= (uint64_t)std::numeric_limits<int64_t>::max())
      known = computed;
    context.memo[result] = known;
  }
  return context.memo[value];
}

static std::optional<int64_t> evaluate(Value value, Context &context,
                                       int depth) {
  if (!value || depth > kMaxDepth)
    return std::nullopt;
  if (auto it = context.memo.find(value); it != context.memo.end())
    return it->second;
  std::optional<int64_t> result =
      normalize(value, evaluateOp(value, context, depth));
  context.memo[value] = result;
  return result;
}

static std::optional<int64_t> evaluateOp(Value value, Context &context,
                                         int depth) {
  if (std::optional<int64_t> known = context.leaf(value))
    return known;
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (tile::isScheduleOp(def))
    return evaluateSchedule(value, def, context, depth);
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp, arith::TruncIOp>(def))
    return evaluate(def->getOperand(0), context, depth + 1);
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    std::optional<int64_t> condition =
        evaluate(select.getCondition(), context, depth + 1);
    if (!condition)
      return std::nullopt;
    return evaluate(*condition ? select.getTrueValue() : select.getFalseValue(),
                    context, depth + 1);
  }
  if (def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> l = evaluate(def->getOperand(0), context, depth + 1);
  std::optional<int64_t> r = evaluate(def->getOperand(1), context, depth + 1);
  if (!l || !r)
    return std::nullopt;
  if (auto cmp = dyn_cast<arith::CmpIOp>(def))
    return compare(cmp.getPredicate(), *l, *r);
  // Overflowing arithmetic is unknown (rather than undefined behaviour).
  int64_t result;
  if (isa<arith::AddIOp>(def))
    return llvm::AddOverflow(*l, *r, result) ? std::nullopt
                                             : std::optional(result);
  if (isa<arith::SubIOp>(def))
    return llvm::SubOverflow(*l, *r, result) ? std::nullopt
                                             : std::optional(result);
  if (isa<arith::MulIOp>(def))
    return llvm::MulOverflow(*l, *r, result) ? std::nullopt
                                             : std::optional(result);
  if (*r == -1 && *l == std::numeric_limits<int64_t>::min())
    return std::nullopt;
  if (isa<arith::DivUIOp, arith::DivSIOp>(def) && *r)
    return *l / *r;
  if (isa<arith::RemUIOp, arith::RemSIOp>(def) && *r)
    return *l % *r;
  if (isa<arith::CeilDivUIOp, arith::CeilDivSIOp>(def) && *r > 0 && *l >= 0)
    return *l / *r + (*l % *r != 0);
  if (isa<arith::MinUIOp>(def))
    return (uint64_t)*l < (uint64_t)*r ? *l : *r;
  if (isa<arith::MaxUIOp>(def))
    return (uint64_t)*l > (uint64_t)*r ? *l : *r;
  if (isa<arith::MinSIOp>(def))
    return std::min(*l, *r);
  if (isa<arith::MaxSIOp>(def))
    return std::max(*l, *r);
  if (isa<arith::OrIOp>(def))
    return *l | *r;
  if (isa<arith::XOrIOp>(def))
    return *l ^ *r;
  if (isa<arith::AndIOp>(def))
    return *l & *r;
  if (*r < 0 || *r > 62)
    return std::nullopt;
  if (isa<arith::ShLIOp>(def))
    return (*l < 0 || *l > (INT64_MAX >> *r)) ? std::nullopt
                                              : std::optional(*l << *r);
  if (isa<arith::ShRUIOp, arith::ShRSIOp>(def))
    return *l >> *r;
  return std::nullopt;
}

bool tile::isScheduleOp(Operation *op) {
  return isa<TileCoordOp, WorkCountOp, WorkUnitOp>(op);
}

std::optional<int64_t> tile::evaluateIndex(Value value, IndexLeaf leaf) {
  Context context{leaf, llvm::DenseMap<Value, std::optional<int64_t>>()};
  return evaluate(value, context, 0);
}
