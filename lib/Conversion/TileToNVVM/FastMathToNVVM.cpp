//===- FastMathToNVVM.cpp - Hardware approximations of math ops -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// math.exp2 with `fastmath<afn>` (approximate functions allowed) in device
// code on f32 and f16 (scalars and 1-D vectors) -> the hardware
// approximation softmax kernels are built on (PTX ISA, "ex2"), instead of
// upstream's call of libdevice's __nv_exp2f:
// - f32: `ex2.approx.ftz.f32` per element (maximum relative error 2^-22
//   over the full range; subnormal inputs and results flush to zero);
// - f16: `ex2.approx.f16x2` per pair of elements (maximum relative error
//   2^-9.9; SASS still runs one MUFU.EX2.F16 per element).
// Without `afn`, and for other element types, upstream's lowering stays.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The f32 or f16 exp2 of each element of `input` (a scalar or a fixed 1-D
/// vector): `ex2.approx.ftz.f32` per f32, `ex2.approx.f16x2` per pair of f16
/// (an odd last one in a pair with itself).
Value lowerExp2(OpBuilder &builder, Location loc, Value input) {
  Type type = input.getType();
  bool f16 = getElementTypeOrSelf(type).isF16();
  Type i64 = builder.getI64Type();
  auto index = [&](int64_t i) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i64, i);
  };
  auto call = [&](StringRef intrinsic, Type result, Value x) -> Value {
    return LLVM::CallIntrinsicOp::create(builder, loc, TypeRange{result},
                                         builder.getStringAttr(intrinsic),
                                         ValueRange{x},
                                         LLVM::FastmathFlagsAttr())
        .getResult(0);
  };
  auto pairType = VectorType::get({2}, builder.getF16Type());
  auto pairExp2 = [&](Value pair) {
    return call("llvm.nvvm.ex2.approx.v2f16", pairType, pair);
  };
  auto vectorType = dyn_cast<VectorType>(type);
  if (!vectorType) {
    if (!f16)
      return call("llvm.nvvm.ex2.approx.ftz.f32", type, input);
    Value pair = LLVM::InsertElementOp::create(
        builder, loc, LLVM::UndefOp::create(builder, loc, pairType), input,
        index(0));
    return LLVM::ExtractElementOp::create(builder, loc, pairExp2(pair),
                                          index(0));
  }
  int64_t count = vectorType.getNumElements();
  Value result = LLVM::UndefOp::create(builder, loc, vectorType);
  for (int64_t i = 0; i < count; i += f16 ? 2 : 1) {
    if (!f16) {
      Value element =
          LLVM::ExtractElementOp::create(builder, loc, input, index(i));
      result = LLVM::InsertElementOp::create(
          builder, loc, result,
          call("llvm.nvvm.ex2.approx.ftz.f32", builder.getF32Type(), element),
          index(i));
      continue;
    }
    int64_t second = std::min(i + 1, count - 1);
    Value pair = LLVM::ShuffleVectorOp::create(
        builder, loc, input, input,
        ArrayRef<int32_t>{int32_t(i), int32_t(second)});
    Value exp = pairExp2(pair);
    for (int64_t h = 0; h < 2 && i + h < count; ++h)
      result = LLVM::InsertElementOp::create(
          builder, loc, result,
          LLVM::ExtractElementOp::create(builder, loc, exp, index(h)),
          index(i + h));
  }
  return result;
}

struct Exp2OpLowering : ConvertOpToLLVMPattern<math::Exp2Op> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = getElementTypeOrSelf(op.getType());
    if (!(element.isF32() || element.isF16()) ||
        !op->getParentOfType<gpu::GPUModuleOp>() ||
        !arith::bitEnumContainsAll(op.getFastmath(),
                                   arith::FastMathFlags::afn))
      return rewriter.notifyMatchFailure(
          op, "not f32 or f16 device code with fastmath<afn>");
    auto vectorType = dyn_cast<VectorType>(op.getType());
    if (vectorType && (vectorType.getRank() != 1 || vectorType.isScalable()))
      return rewriter.notifyMatchFailure(op, "not a fixed 1-D vector");
    rewriter.replaceOp(op,
                       lowerExp2(rewriter, op.getLoc(), adaptor.getOperand()));
    return success();
  }
};

} // namespace

void tile::populateFastMathToNVVMPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<Exp2OpLowering>(converter);
}
