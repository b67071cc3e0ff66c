//===- ClusterToNVVM.cpp - Lower cluster ops to NVVM ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Special registers for rank and size, barrier.cluster for the split
// barrier, mapa for distributed shared memory: a mapped memref is the source
// descriptor with both pointers moved into shared::cluster (address space 7).
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Reads an i32 special register and widens it to the index type.
template <typename SourceOp, typename RegisterOp>
struct SpecialRegisterLowering : ConvertOpToLLVMPattern<SourceOp> {
  using ConvertOpToLLVMPattern<SourceOp>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SourceOp op, typename SourceOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value value =
        RegisterOp::create(rewriter, op.getLoc(), rewriter.getI32Type());
    Type index = this->getTypeConverter()->getIndexType();
    if (index == value.getType())
      rewriter.replaceOp(op, value);
    else
      rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, index, value);
    return success();
  }
};

struct ClusterArriveOpLowering : ConvertOpToLLVMPattern<ClusterArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ClusterArriveOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    UnitAttr aligned = op.getAligned() ? rewriter.getUnitAttr() : UnitAttr();
    if (op.getRelaxed())
      rewriter.replaceOpWithNewOp<NVVM::ClusterArriveRelaxedOp>(op, aligned);
    else
      rewriter.replaceOpWithNewOp<NVVM::ClusterArriveOp>(op, aligned);
    return success();
  }
};

struct ClusterWaitOpLowering : ConvertOpToLLVMPattern<ClusterWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ClusterWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ClusterWaitOp>(
        op, op.getAligned() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

/// Lowers `tile.cluster_map_shared`: mapa on the allocated and aligned
/// pointers, offset, sizes and strides unchanged.
struct ClusterMapSharedOpLowering : ConvertOpToLLVMPattern<ClusterMapSharedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ClusterMapSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<MemRefType>(op.getResult().getType());
    Type descriptorType = getTypeConverter()->convertType(resultType);
    if (!descriptorType)
      return rewriter.notifyMatchFailure(op, "result type does not convert");
    MemRefDescriptor source(adaptor.getSource());
    MemRefDescriptor result =
        MemRefDescriptor::poison(rewriter, loc, descriptorType);
    result.setAllocatedPtr(rewriter, loc,
                           mapToCta(rewriter, loc,
                                    source.allocatedPtr(rewriter, loc),
                                    adaptor.getRank()));
    result.setAlignedPtr(rewriter, loc,
                         mapToCta(rewriter, loc,
                                  source.alignedPtr(rewriter, loc),
                                  adaptor.getRank()));
    result.setOffset(rewriter, loc, source.offset(rewriter, loc));
    for (unsigned i = 0, e = resultType.getRank(); i < e; ++i) {
      result.setSize(rewriter, loc, i, source.size(rewriter, loc, i));
      result.setStride(rewriter, loc, i, source.stride(rewriter, loc, i));
    }
    rewriter.replaceOp(op, {result});
    return success();
  }
};

/// Lowers `tile.mbarrier_arrive_remote` to mapa + an arrive on the
/// shared::cluster address with release at the group's scope (T-MBAR-6; PTX
/// returns no state for remote arrives).
struct MBarrierArriveRemoteOpLowering
    : ConvertOpToLLVMPattern<MBarrierArriveRemoteOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveRemoteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value local = getBarrierAddress(rewriter, op, adaptor.getOperands());
    Value remote = mapToCta(rewriter, loc, local, adaptor.getRank());
    bool cluster =
        op.getBarriers().getType().getScope() == MBarrierScope::cluster;
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveOp>(
        op, Type(), remote, Value(),
        NVVM::MemScopeKindAttr::get(op.getContext(),
                                    cluster ? NVVM::MemScopeKind::CLUSTER
                                            : NVVM::MemScopeKind::CTA));
    return success();
  }
};

struct ElectSyncOpLowering : ConvertOpToLLVMPattern<ElectSyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(ElectSyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::ElectSyncOp>(op, rewriter.getI1Type(),
                                                   Value());
    return success();
  }
};

} // namespace

void tile::populateClusterToNVVMPatterns(const LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns) {
  patterns.add<SpecialRegisterLowering<ClusterCtaRankOp, NVVM::ClusterId>,
               SpecialRegisterLowering<ClusterSizeOp, NVVM::ClusterDim>,
               ClusterArriveOpLowering, ClusterWaitOpLowering,
               ClusterMapSharedOpLowering, MBarrierArriveRemoteOpLowering,
               ElectSyncOpLowering>(converter);
}
