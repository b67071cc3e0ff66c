//===- FastMathToNVVM.cpp - Hardware approximations of math ops -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// math.exp2 on f32 (scalars and 1-D vectors, element by element) in device
// code -> llvm.nvvm.ex2.approx.ftz.f32, one `ex2.approx.ftz.f32` (PTX ISA,
// "ex2": maximum relative error 2^-22 over the full range; subnormal inputs
// and results flush to zero), the instruction softmax kernels are built on,
// instead of upstream's call of libdevice's __nv_exp2f (whose accuracy is
// the same 2 ulp, at more instructions). Other element types keep
// upstream's lowering.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct Exp2OpLowering : ConvertOpToLLVMPattern<math::Exp2Op> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(math::Exp2Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(op.getType()).isF32() ||
        !op->getParentOfType<gpu::GPUModuleOp>())
      return rewriter.notifyMatchFailure(op, "not f32 device code");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto exp2 = [&](Value x) -> Value {
      return LLVM::CallIntrinsicOp::create(
                 rewriter, loc, TypeRange{f32},
                 rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                 ValueRange{x}, LLVM::FastmathFlagsAttr())
          .getResult(0);
    };
    auto vectorType = dyn_cast<VectorType>(op.getType());
    if (!vectorType) {
      rewriter.replaceOp(op, exp2(adaptor.getOperand()));
      return success();
    }
    if (vectorType.getRank() != 1 || vectorType.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed 1-D vector");
    Type i64 = rewriter.getI64Type();
    Value result = LLVM::UndefOp::create(rewriter, loc, vectorType);
    for (int64_t i = 0; i < vectorType.getNumElements(); ++i) {
      Value index = LLVM::ConstantOp::create(rewriter, loc, i64, i);
      Value element = LLVM::ExtractElementOp::create(
          rewriter, loc, adaptor.getOperand(), index);
      result = LLVM::InsertElementOp::create(rewriter, loc, result,
                                             exp2(element), index);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tile::populateFastMathToNVVMPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<Exp2OpLowering>(converter);
}
