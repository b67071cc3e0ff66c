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
    rewriter.replaceOpWithNewOp<nvgpu::LdMatrixOp>(
        op, op.getResult().getType(), op.getSrc(), op.getIndices(),
        op.getTrans(), op.getNum());
    return success();
  }
};

struct MmaSyncOpLowering : ConvertOpToLLVMPattern<MmaSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MmaSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<nvgpu::MmaSyncOp>(op, op.getA(), op.getB(),
                                                  op.getC(), op.getShape());
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
      Value pair = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(),
                                                ArrayRef<int64_t>{i});
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
