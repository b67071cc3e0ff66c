//===- MatrixToNVVM.cpp - Lower warp-level matrix ops ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.ldmatrix   -> nvgpu.ldmatrix (lowered by convert-nvgpu-to-nvvm)
// tile.mma_sync   -> nvgpu.mma.sync
// tile.stmatrix   -> nvvm.stmatrix (NVGPU has no stmatrix)
// tile.setmaxnreg -> nvvm.setmaxregister
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct LdMatrixOpLowering : ConvertOpToLLVMPattern<LdMatrixOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(LdMatrixOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<nvgpu::LdMatrixOp>(op, op.getResult().getType(),
                                                   op.getSrc(), op.getIndices(),
                                                   op.getTrans(), op.getNum());
    return success();
  }
};

struct MmaSyncOpLowering : ConvertOpToLLVMPattern<MmaSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MmaSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getA().getType().getElementType().isBF16()) {
      rewriter.replaceOpWithNewOp<nvgpu::MmaSyncOp>(op, op.getA(), op.getB(),
                                                    op.getC(), op.getShape());
      return success();
    }
    // NVGPU cannot type bf16 operands: emit nvvm.mma.sync with bf16 x2
    // registers (as b32) and f32 accumulators directly.
    Location loc = op.getLoc();
    auto i32 = rewriter.getI32Type();
    auto f32 = rewriter.getF32Type();
    auto registers = [&](Value fragments, int64_t count) {
      SmallVector<Value> result;
      for (int64_t i = 0; i < count; ++i)
        result.push_back(LLVM::BitcastOp::create(
            rewriter, loc, i32,
            LLVM::ExtractValueOp::create(rewriter, loc, fragments,
                                         ArrayRef<int64_t>{i})));
      return result;
    };
    auto index = [&](int64_t i) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i32,
                                      rewriter.getI32IntegerAttr(i));
    };
    SmallVector<Value> c;
    for (int64_t row = 0; row < 2; ++row) {
      Value pair = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getC(),
                                                ArrayRef<int64_t>{row});
      for (int64_t e = 0; e < 2; ++e)
        c.push_back(
            LLVM::ExtractElementOp::create(rewriter, loc, pair, index(e)));
    }
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    Value d = NVVM::MmaOp::create(
        rewriter, loc, resultType,
        registers(adaptor.getA(), op.getA().getType().getShape()[0]),
        registers(adaptor.getB(), op.getB().getType().getShape()[0]), c,
        op.getShape(), std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    Type resultArray =
        getTypeConverter()->convertType(op.getResult().getType());
    Value result = LLVM::PoisonOp::create(rewriter, loc, resultArray);
    auto pairType = VectorType::get({2}, f32);
    for (int64_t row = 0; row < 2; ++row) {
      Value pair = LLVM::PoisonOp::create(rewriter, loc, pairType);
      for (int64_t e = 0; e < 2; ++e)
        pair = LLVM::InsertElementOp::create(
            rewriter, loc, pair,
            LLVM::ExtractValueOp::create(rewriter, loc, d,
                                         ArrayRef<int64_t>{2 * row + e}),
            index(e));
      result = LLVM::InsertValueOp::create(rewriter, loc, result, pair,
                                           ArrayRef<int64_t>{row});
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct StMatrixOpLowering : ConvertOpToLLVMPattern<StMatrixOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(StMatrixOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value ptr = getStridedElementPtr(rewriter, loc, op.getDst().getType(),
                                     adaptor.getDst(), adaptor.getIndices());
    // Each matrix's two 16-bit elements travel as one b32 register.
    SmallVector<Value> sources;
    for (int64_t i = 0, e = op.getNum(); i < e; ++i) {
      Value pair = LLVM::ExtractValueOp::create(
          rewriter, loc, adaptor.getValue(), ArrayRef<int64_t>{i});
      sources.push_back(
          LLVM::BitcastOp::create(rewriter, loc, rewriter.getI32Type(), pair));
    }
    auto layout = op.getTrans() ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    rewriter.replaceOpWithNewOp<NVVM::StMatrixOp>(
        op, ptr, sources, layout,
        NVVM::LdStMatrixShapeAttr::get(op.getContext(), 8, 8),
        NVVM::LdStMatrixEltType::B16);
    return success();
  }
};

struct SetMaxNRegOpLowering : ConvertOpToLLVMPattern<SetMaxNRegOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SetMaxNRegOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::SetMaxRegisterOp>(
        op, op.getCount(),
        op.getInc() ? NVVM::SetMaxRegisterAction::increase
                    : NVVM::SetMaxRegisterAction::decrease);
    return success();
  }
};

} // namespace

void tile::populateMatrixToNVVMPatterns(const LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns) {
  patterns.add<LdMatrixOpLowering, MmaSyncOpLowering, StMatrixOpLowering,
               SetMaxNRegOpLowering>(converter);
}
