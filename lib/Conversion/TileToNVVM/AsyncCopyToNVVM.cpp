//===- AsyncCopyToNVVM.cpp - Lower the cp.async family to NVVM ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.async_copy        -> nvvm.cp.async.shared.global (or inline PTX with
//                           an L2 prefetch size, which NVVM cannot express)
// tile.async_commit_group -> nvvm.cp.async.commit.group
// tile.async_wait_group   -> nvvm.cp.async.wait.group N
// tile.async_wait_all     -> commit + wait 0 (PTX ISA, "cp.async.wait_group")
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Returns the PTX spelling of an L2 prefetch size qualifier.
StringRef getPrefetchQualifier(L2PrefetchSize size) {
  switch (size) {
  case L2PrefetchSize::b64:
    return ".L2::64B";
  case L2PrefetchSize::b128:
    return ".L2::128B";
  case L2PrefetchSize::b256:
    return ".L2::256B";
  }
  llvm_unreachable("unknown L2 prefetch size");
}

/// Lowers `tile.async_copy`.
struct AsyncCopyOpLowering : ConvertOpToLLVMPattern<AsyncCopyOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    Value dst = getStridedElementPtr(rewriter, loc, op.getDst().getType(),
                                     adaptor.getDst(), adaptor.getDstIndices());
    Value src = getStridedElementPtr(rewriter, loc, op.getSrc().getType(),
                                     adaptor.getSrc(), adaptor.getSrcIndices());
    auto sharedPtr = LLVM::LLVMPointerType::get(ctx, kSharedAddressSpace);
    auto globalPtr = LLVM::LLVMPointerType::get(ctx, kGlobalAddressSpace);
    if (dst.getType() != sharedPtr)
      return rewriter.notifyMatchFailure(
          op, "destination memory space does not convert to shared (3)");
    // cp.async reads through a .global address; memrefs without a memory
    // space hold generic pointers into global memory.
    if (src.getType() != globalPtr)
      src = LLVM::AddrSpaceCastOp::create(rewriter, loc, globalPtr, src);

    int32_t size = op.getSize();
    // ignore-src is expressed as src-size 0, which PTX defines to write
    // cp-size zero bytes; this keeps the op on the NVVM intrinsic.
    Value srcSize = adaptor.getSrcBytes();
    if (Value ignore = adaptor.getIgnoreSrc()) {
      Type i32 = rewriter.getI32Type();
      Value zero = LLVM::ConstantOp::create(rewriter, loc, i32, 0);
      Value full = LLVM::ConstantOp::create(rewriter, loc, i32, size);
      srcSize = LLVM::SelectOp::create(rewriter, loc, ignore, zero, full);
    }

    StringRef cache = stringifyCacheMode(op.getCache());
    std::optional<L2PrefetchSize> prefetch = op.getL2Prefetch();
    Value policy = adaptor.getCachePolicy();
    if (prefetch || policy) {
      // NVVM's cp.async op has neither the prefetch-size nor the cache-hint
      // qualifier: emit the instruction (PTX ISA, "cp.async":
      // .level::cache_hint, .level::prefetch_size) as inline PTX.
      SmallVector<Value> operands = {dst, src};
      std::string ptx = ("cp.async." + cache + ".shared.global").str();
      if (policy)
        ptx += ".L2::cache_hint";
      if (prefetch)
        ptx += getPrefetchQualifier(*prefetch).str();
      ptx += " [$0], [$1], " + std::to_string(size);
      if (srcSize) {
        ptx += ", $" + std::to_string(operands.size());
        operands.push_back(srcSize);
      }
      if (policy) {
        ptx += ", $" + std::to_string(operands.size());
        operands.push_back(policy);
      }
      ptx += ";";
      NVVM::InlinePtxOp::create(rewriter, loc, TypeRange(), operands,
                                ValueRange(), rewriter.getStringAttr(ptx),
                                Value());
    } else {
      auto modifier = op.getCache() == CacheMode::cg
                          ? NVVM::LoadCacheModifierKind::CG
                          : NVVM::LoadCacheModifierKind::CA;
      NVVM::CpAsyncOp::create(
          rewriter, loc, dst, src, rewriter.getI32IntegerAttr(size),
          NVVM::LoadCacheModifierKindAttr::get(ctx, modifier), srcSize);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Lowers `tile.async_commit_group`; the token becomes an i32 0 that only
/// carries the dependence until it is erased as dead code.
struct AsyncCommitGroupOpLowering : ConvertOpToLLVMPattern<AsyncCommitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncCommitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(op, rewriter.getI32Type(), 0);
    return success();
  }
};

/// Lowers `tile.async_wait_group`.
struct AsyncWaitGroupOpLowering : ConvertOpToLLVMPattern<AsyncWaitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncWaitGroupOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

/// Lowers `tile.async_wait_all`: PTX defines cp.async.wait_all as
/// cp.async.commit_group followed by cp.async.wait_group 0.
struct AsyncWaitAllOpLowering : ConvertOpToLLVMPattern<AsyncWaitAllOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(AsyncWaitAllOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    NVVM::CpAsyncCommitGroupOp::create(rewriter, op.getLoc());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, 0);
    return success();
  }
};

} // namespace

void tile::populateAsyncCopyToNVVMPatterns(const LLVMTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<AsyncCopyOpLowering, AsyncCommitGroupOpLowering,
               AsyncWaitGroupOpLowering, AsyncWaitAllOpLowering>(converter);
}
