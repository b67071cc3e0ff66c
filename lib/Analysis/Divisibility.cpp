//===- Divisibility.cpp - Known power-of-two factors of index values ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/Divisibility.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

static constexpr int64_t kMax = Divisibility::kMaxBits;

/// Trailing zeros of a constant (the cap for zero).
static int64_t constantBits(const APInt &value) {
  return value.isZero() ? kMax
                        : std::min<int64_t>(value.countTrailingZeros(), kMax);
}

static std::optional<APInt> getConstant(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant;
  return std::nullopt;
}

/// log2 of a positive constant power of two.
static std::optional<int64_t> getConstantLog2(Value value) {
  std::optional<APInt> constant = getConstant(value);
  if (!constant || constant->isNegative() || !constant->isPowerOf2())
    return std::nullopt;
  return constant->exactLogBase2();
}

/// Trailing zeros of an affine expression whose dims and symbols have
/// `operandBits`.
static int64_t exprBits(AffineExpr expr, ArrayRef<int64_t> dimBits,
                        ArrayRef<int64_t> symbolBits) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constantBits(APInt(64, constant.getValue(), /*isSigned=*/true));
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return dimBits[dim.getPosition()];
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return symbolBits[symbol.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = exprBits(binary.getLHS(), dimBits, symbolBits);
  int64_t rhs = exprBits(binary.getRHS(), dimBits, symbolBits);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return std::min(lhs, rhs);
  case AffineExprKind::Mul:
    return std::min(lhs + rhs, kMax);
  case AffineExprKind::Mod:
    // a mod c = a - c * floor(a / c).
    return std::min(lhs, rhs);
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    // Exact when the divisor is a power of two dividing the dividend.
    auto divisor = dyn_cast<AffineConstantExpr>(binary.getRHS());
    if (!divisor || divisor.getValue() <= 0 ||
        !llvm::isPowerOf2_64(divisor.getValue()))
      return 0;
    int64_t shift = llvm::Log2_64(divisor.getValue());
    return lhs >= shift ? lhs - shift : 0;
  }
  default:
    return 0;
  }
}

int64_t Divisibility::getKnownTrailingZeros(Value value) {
  auto it = known.find(value);
  if (it != known.end())
    return it->second;
  // Placeholder against cycles (values carried around a loop): unknown.
  known[value] = 0;
  int64_t bits = compute(value);
  known[value] = bits;
  return bits;
}

int64_t Divisibility::compute(Value value) {
  if (std::optional<APInt> constant = getConstant(value))
    return constantBits(*constant);
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    // lb + i * step.
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (loop && arg == loop.getInductionVar())
      return std::min(getKnownTrailingZeros(loop.getLowerBound()),
                      getKnownTrailingZeros(loop.getStep()));
    return 0;
  }
  Operation *op = value.getDefiningOp();
  auto bitsOf = [&](unsigned i) {
    return getKnownTrailingZeros(op->getOperand(i));
  };
  auto shifted = [&](bool left) -> int64_t {
    std::optional<APInt> amount = getConstant(op->getOperand(1));
    if (!amount || amount->isNegative() || amount->uge(64))
      return 0;
    int64_t shift = amount->getZExtValue();
    int64_t lhs = bitsOf(0);
    if (left)
      return std::min(lhs + shift, kMax);
    return lhs >= shift ? lhs - shift : 0;
  };
  auto divided = [&]() -> int64_t {
    std::optional<int64_t> shift = getConstantLog2(op->getOperand(1));
    if (!shift)
      return 0;
    int64_t lhs = bitsOf(0);
    return lhs >= *shift ? lhs - *shift : 0;
  };
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case<arith::AddIOp, arith::SubIOp, arith::OrIOp, arith::XOrIOp,
            arith::MinSIOp, arith::MinUIOp, arith::MaxSIOp, arith::MaxUIOp,
            arith::RemUIOp, arith::RemSIOp>(
          [&](Operation *) { return std::min(bitsOf(0), bitsOf(1)); })
      .Case<arith::MulIOp>(
          [&](Operation *) { return std::min(bitsOf(0) + bitsOf(1), kMax); })
      .Case<arith::AndIOp>(
          [&](Operation *) { return std::max(bitsOf(0), bitsOf(1)); })
      .Case<arith::ShLIOp>([&](Operation *) { return shifted(true); })
      .Case<arith::ShRUIOp, arith::ShRSIOp>(
          [&](Operation *) { return shifted(false); })
      .Case<arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
            arith::CeilDivSIOp, arith::CeilDivUIOp>(
          [&](Operation *) { return divided(); })
      .Case<arith::SelectOp>(
          [&](Operation *) { return std::min(bitsOf(1), bitsOf(2)); })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp>([&](Operation *) { return bitsOf(0); })
      .Case<arith::TruncIOp>([&](arith::TruncIOp trunc) {
        return std::min<int64_t>(bitsOf(0),
                                 trunc.getType().getIntOrFloatBitWidth());
      })
      .Case<affine::AffineApplyOp>([&](affine::AffineApplyOp apply) {
        AffineMap map = apply.getAffineMap();
        SmallVector<int64_t> dims, symbols;
        for (Value operand : apply.getDimOperands())
          dims.push_back(getKnownTrailingZeros(operand));
        for (Value operand : apply.getSymbolOperands())
          symbols.push_back(getKnownTrailingZeros(operand));
        return exprBits(map.getResult(0), dims, symbols);
      })
      .Default([](Operation *) { return 0; });
}
