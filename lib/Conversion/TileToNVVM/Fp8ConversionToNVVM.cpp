//===- Fp8ConversionToNVVM.cpp - arith.truncf to FP8 in device code -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// arith.truncf to f8E4M3FN or f8E5M2 (scalars and 1-D vectors of f32, f16
// or bf16) in device code, which upstream's arith lowering leaves alone
// (LLVM has no 8-bit float type): pairs of elements convert with
// `cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32` (PTX ISA, "cvt"; sm_89, PTX 7.8,
// T-TARGET-7) and the result keeps arith.truncf's semantics, round to
// nearest even with APFloat's overflow: satfinite clamps to the largest
// finite value, so magnitudes that round past it take the overflow value
// instead: NaN for f8E4M3FN (no infinity; |x| > 464, the midpoint between
// 448 and 480), +-inf for f8E5M2 (|x| >= 61440, the midpoint between 57344
// and 65536, a tie that rounds to the even infinity). Infinities overflow
// alike; NaN stays NaN. f16 and bf16 extend to f32 exactly first. Where the
// op's fast-math flags make the overflow value poison (`nnan` for
// f8E4M3FN, whose overflow is NaN; `ninf` for f8E5M2), the saturated byte
// stands and the fix-up is left out (e.g. attention's probabilities, which
// cannot overflow: one cvt a pair).
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The f32 bits from which a magnitude overflows `type` (f8E4M3FN: above
/// 464; f8E5M2: 61440 and above), and the byte of the overflow value
/// without its sign.
struct Fp8Overflow {
  uint32_t bits;
  bool inclusive;
  uint8_t magnitude;
};

Fp8Overflow getOverflow(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return {0x43E80000u, false, 0x7F}; // 464.0f; NaN
  return {0x47700000u, true, 0x7C};    // 61440.0f; infinity
}

/// `value`'s byte as arith.truncf gives it: `converted` (satfinite) or,
/// where the magnitude overflows, the signed overflow value.
Value fixOverflow(OpBuilder &builder, Location loc, Value value,
                  Value converted, Fp8Overflow overflow) {
  Type i32 = builder.getI32Type(), i8 = builder.getI8Type();
  auto constant = [&](Type type, int64_t v) -> Value {
    return LLVM::ConstantOp::create(builder, loc, type, v);
  };
  Value bits = LLVM::BitcastOp::create(builder, loc, i32, value);
  Value magnitude =
      LLVM::AndOp::create(builder, loc, bits, constant(i32, 0x7FFFFFFF));
  // NaN (above the infinity's bits) converts to NaN as it is.
  Value notNaN = LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ule,
                                      magnitude, constant(i32, 0x7F800000));
  Value beyond = LLVM::ICmpOp::create(
      builder, loc,
      overflow.inclusive ? LLVM::ICmpPredicate::uge : LLVM::ICmpPredicate::ugt,
      magnitude, constant(i32, overflow.bits));
  Value overflows = LLVM::AndOp::create(builder, loc, notNaN, beyond);
  Value sign = LLVM::TruncOp::create(
      builder, loc, i8,
      LLVM::LShrOp::create(builder, loc, bits, constant(i32, 24)));
  sign = LLVM::AndOp::create(builder, loc, sign, constant(i8, 0x80));
  Value saturated = LLVM::OrOp::create(builder, loc, sign,
                                       constant(i8, overflow.magnitude));
  return LLVM::SelectOp::create(builder, loc, overflows, saturated, converted);
}

struct TruncFToFp8Lowering : ConvertOpToLLVMPattern<arith::TruncFOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(arith::TruncFOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    Type source = getElementTypeOrSelf(op.getIn().getType());
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(element) ||
        !op->getParentOfType<gpu::GPUModuleOp>())
      return rewriter.notifyMatchFailure(op, "not FP8 in device code");
    // tile-check-target reports these (T-TARGET-7).
    if (!(source.isF32() || source.isF16() || source.isBF16()))
      return rewriter.notifyMatchFailure(op, "not from f32, f16 or bf16");
    if (op.getRoundingmode() &&
        *op.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "not round to nearest even");
    auto vectorType = dyn_cast<VectorType>(op.getType());
    if (vectorType && (vectorType.getRank() != 1 || vectorType.isScalable()))
      return rewriter.notifyMatchFailure(op, "not a fixed 1-D vector");

    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type(), i8 = rewriter.getI8Type(),
         i64 = rewriter.getI64Type();
    auto index = [&](int64_t i) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, i);
    };
    int64_t count = vectorType ? vectorType.getNumElements() : 1;
    Value input = adaptor.getIn();
    auto elementAt = [&](int64_t i) -> Value {
      Value x = vectorType
                    ? LLVM::ExtractElementOp::create(rewriter, loc, input,
                                                     index(i))
                          .getResult()
                    : input;
      if (!source.isF32())
        x = LLVM::FPExtOp::create(rewriter, loc, f32, x);
      return x;
    };
    Fp8Overflow overflow = getOverflow(element);
    arith::FastMathFlags poisonOverflow =
        isa<Float8E4M3FNType>(element) ? arith::FastMathFlags::nnan
                                       : arith::FastMathFlags::ninf;
    std::optional<arith::FastMathFlags> flags = op.getFastmath();
    bool fixOverflows =
        !flags || !bitEnumContainsAll(*flags, poisonOverflow);
    auto pairType = VectorType::get({2}, i8);
    Type i16 = rewriter.getI16Type();
    if (vectorType && !fixOverflows && count % 2 == 0) {
      // No fix-up: each cvt's 16 bits are two elements as they lie in the
      // vector (the first in the low byte), so the pairs are one vector
      // of i16 bitcast to the bytes: no byte is split out and packed
      // again (a register of 8-bit MMA fragment is two cvts).
      Value pairs =
          LLVM::UndefOp::create(rewriter, loc, VectorType::get({count / 2}, i16));
      for (int64_t i = 0; i < count; i += 2) {
        Value low = elementAt(i), high = elementAt(i + 1);
        Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
            rewriter, loc, i16, high, low,
            NVVM::FPRoundingMode::RN, NVVM::SaturationMode::SATFINITE,
            /*relu=*/false, element);
        pairs = LLVM::InsertElementOp::create(rewriter, loc, pairs, pair,
                                              index(i / 2));
      }
      rewriter.replaceOp(op, LLVM::BitcastOp::create(
                                 rewriter, loc, VectorType::get({count}, i8),
                                 pairs));
      return success();
    }
    SmallVector<Value> bytes;
    for (int64_t i = 0; i < count; i += 2) {
      Value first = elementAt(i);
      Value second = i + 1 < count ? elementAt(i + 1) : first;
      // The op packs `a` into the high byte: as bytes, b then a.
      Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
          rewriter, loc, pairType, second, first, NVVM::FPRoundingMode::RN,
          NVVM::SaturationMode::SATFINITE, /*relu=*/false, element);
      for (int64_t h = 0; h < 2 && i + h < count; ++h) {
        Value byte =
            LLVM::ExtractElementOp::create(rewriter, loc, pair, index(h));
        bytes.push_back(fixOverflows ? fixOverflow(rewriter, loc,
                                                   h ? second : first, byte,
                                                   overflow)
                                     : byte);
      }
    }
    if (!vectorType) {
      rewriter.replaceOp(op, bytes.front());
      return success();
    }
    Value result = LLVM::UndefOp::create(
        rewriter, loc, VectorType::get({count}, i8));
    for (int64_t i = 0; i < count; ++i)
      result = LLVM::InsertElementOp::create(rewriter, loc, result, bytes[i],
                                             index(i));
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tile::populateFp8ConversionToNVVMPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<TruncFToFp8Lowering>(converter);
}
