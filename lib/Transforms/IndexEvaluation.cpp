//===- IndexEvaluation.cpp - Concrete values of index arithmetic ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "IndexEvaluation.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

/// Deeper expressions are treated as unknown (and cycles cannot recurse).
static constexpr int kMaxDepth = 64;

static std::optional<int64_t> evaluate(Value value, tile::IndexLeaf leaf,
                                       int depth) {
  if (!value || depth > kMaxDepth)
    return std::nullopt;
  if (std::optional<int64_t> known = leaf(value))
    return known;
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtUIOp,
          arith::ExtSIOp, arith::TruncIOp>(def))
    return evaluate(def->getOperand(0), leaf, depth + 1);
  if (def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> l = evaluate(def->getOperand(0), leaf, depth + 1);
  std::optional<int64_t> r = evaluate(def->getOperand(1), leaf, depth + 1);
  if (!l || !r)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *l + *r;
  if (isa<arith::SubIOp>(def))
    return *l - *r;
  if (isa<arith::MulIOp>(def))
    return *l * *r;
  if (isa<arith::DivUIOp, arith::DivSIOp>(def) && *r)
    return *l / *r;
  if (isa<arith::RemUIOp, arith::RemSIOp>(def) && *r)
    return *l % *r;
  if (isa<arith::XOrIOp>(def))
    return *l ^ *r;
  if (isa<arith::AndIOp>(def))
    return *l & *r;
  if (isa<arith::ShLIOp>(def))
    return *l << *r;
  if (isa<arith::ShRUIOp, arith::ShRSIOp>(def))
    return *l >> *r;
  return std::nullopt;
}

std::optional<int64_t> tile::evaluateIndex(Value value, IndexLeaf leaf) {
  return evaluate(value, leaf, 0);
}
