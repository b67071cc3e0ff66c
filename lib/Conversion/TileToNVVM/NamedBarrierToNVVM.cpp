//===- NamedBarrierToNVVM.cpp - Lower the named barrier ops ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.named_barrier_sync   -> nvvm.barrier id, threads   (bar.sync)
// tile.named_barrier_arrive -> nvvm.barrier.arrive id, threads (bar.arrive)
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

Value getThreadCount(OpBuilder &builder, Location loc, int64_t threads) {
  return LLVM::ConstantOp::create(builder, loc, builder.getI32Type(), threads);
}

struct NamedBarrierSyncOpLowering : ConvertOpToLLVMPattern<NamedBarrierSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierSyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(
        op, TypeRange{}, adaptor.getId(),
        getThreadCount(rewriter, op.getLoc(), op.getThreads()),
        /*reductionOp=*/nullptr, /*reductionPredicate=*/Value());
    return success();
  }
};

struct NamedBarrierArriveOpLowering
    : ConvertOpToLLVMPattern<NamedBarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(NamedBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::BarrierArriveOp>(
        op, adaptor.getId(),
        getThreadCount(rewriter, op.getLoc(), op.getThreads()));
    return success();
  }
};

} // namespace

void tile::populateNamedBarrierToNVVMPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<NamedBarrierSyncOpLowering, NamedBarrierArriveOpLowering>(
      converter);
}
