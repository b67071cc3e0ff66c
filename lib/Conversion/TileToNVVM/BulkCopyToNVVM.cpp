//===- BulkCopyToNVVM.cpp - Lower 1D bulk copies to NVVM ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.bulk_copy_global_to_shared -> nvvm.cp.async.bulk.shared.cluster.global
//                                    (mbarrier::complete_tx::bytes)
// tile.bulk_copy_shared_to_global -> nvvm.cp.async.bulk.global.shared.cta
//                                    (bulk_group)
// tile.bulk_copy_shared_to_cluster -> mapa + inline cp.async.bulk
//                                    .shared::cluster.shared::cta
// tile.bulk_prefetch -> nvvm.cp.async.bulk.prefetch
// tile.bulk_commit_group / bulk_wait_group -> nvvm.cp.async.bulk.*group
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Base of the two copy directions: the element addresses of the source
/// and the destination.
template <typename OpT> struct BulkCopyLowering : ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;

  std::pair<Value, Value> addresses(OpT op, typename OpT::Adaptor adaptor,
                                    ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    Value src =
        this->getStridedElementPtr(rewriter, loc, op.getSrc().getType(),
                                   adaptor.getSrc(), adaptor.getSrcIndices());
    Value dst =
        this->getStridedElementPtr(rewriter, loc, op.getDst().getType(),
                                   adaptor.getDst(), adaptor.getDstIndices());
    return {src, dst};
  }
};

struct BulkCopyGlobalToSharedOpLowering
    : BulkCopyLowering<BulkCopyGlobalToSharedOp> {
  using BulkCopyLowering::BulkCopyLowering;
  LogicalResult
  matchAndRewrite(BulkCopyGlobalToSharedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [src, dst] = addresses(op, adaptor, rewriter);
    Value barrier = getBarrierAddress(rewriter, op, adaptor.getOperands());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkGlobalToSharedClusterOp>(
        op, toSharedCluster(rewriter, loc, dst),
        toGlobalPointer(rewriter, loc, src), barrier, adaptor.getBytes(),
        adaptor.getMulticastMask(), adaptor.getCachePolicy());
    return success();
  }
};

struct BulkCopySharedToGlobalOpLowering
    : BulkCopyLowering<BulkCopySharedToGlobalOp> {
  using BulkCopyLowering::BulkCopyLowering;
  LogicalResult
  matchAndRewrite(BulkCopySharedToGlobalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [src, dst] = addresses(op, adaptor, rewriter);
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkSharedCTAToGlobalOp>(
        op, toGlobalPointer(rewriter, loc, dst), src, adaptor.getBytes(),
        adaptor.getCachePolicy(), adaptor.getByteMask());
    return success();
  }
};

/// shared::cta -> another CTA's shared memory. NVVM's op takes the remote
/// barrier as a shared::cta pointer, which a mapa result is not: emit the
/// instruction (PTX ISA, "cp.async.bulk", shared::cluster destination from
/// shared::cta source) as inline PTX on the mapped addresses.
struct BulkCopySharedToClusterOpLowering
    : BulkCopyLowering<BulkCopySharedToClusterOp> {
  using BulkCopyLowering::BulkCopyLowering;
  LogicalResult
  matchAndRewrite(BulkCopySharedToClusterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto [src, dst] = addresses(op, adaptor, rewriter);
    Value barrier = getBarrierAddress(rewriter, op, adaptor.getOperands());
    Value remoteDst = mapToCta(rewriter, loc, dst, adaptor.getRank());
    Value remoteBarrier = mapToCta(rewriter, loc, barrier, adaptor.getRank());
    NVVM::InlinePtxOp::create(
        rewriter, loc, TypeRange(),
        ValueRange{remoteDst, src, adaptor.getBytes(), remoteBarrier},
        ValueRange(),
        rewriter.getStringAttr("cp.async.bulk.shared::cluster.shared::cta."
                               "mbarrier::complete_tx::bytes [$0], [$1], $2, "
                               "[$3];"),
        Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkPrefetchOpLowering : ConvertOpToLLVMPattern<BulkPrefetchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BulkPrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = getStridedElementPtr(rewriter, loc, op.getSrc().getType(),
                                     adaptor.getSrc(), adaptor.getIndices());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkPrefetchOp>(
        op, toGlobalPointer(rewriter, loc, src), adaptor.getBytes(),
        adaptor.getCachePolicy());
    return success();
  }
};

struct BulkCommitGroupOpLowering : ConvertOpToLLVMPattern<BulkCommitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BulkCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op,
                                                                TypeRange());
    return success();
  }
};

struct BulkWaitGroupOpLowering : ConvertOpToLLVMPattern<BulkWaitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(BulkWaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPendingAttr(),
        op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

} // namespace

void tile::populateBulkCopyToNVVMPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns
      .add<BulkCopyGlobalToSharedOpLowering, BulkCopySharedToGlobalOpLowering,
           BulkCopySharedToClusterOpLowering, BulkPrefetchOpLowering,
           BulkCommitGroupOpLowering, BulkWaitGroupOpLowering>(converter);
}
