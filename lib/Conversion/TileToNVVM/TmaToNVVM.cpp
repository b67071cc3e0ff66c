//===- TmaToNVVM.cpp - Lower TMA tensor ops and descriptors ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host:   tile.tma_create_descriptor -> call @mgpuTensorMapEncodeTiledMemref
//         or @tileRtTensorMapEncodeIm2colMemref (the runtime's checked
//         encoders; they return the map in device memory)
// Device: tile.tma_load   -> nvvm.cp.async.bulk.tensor.shared.cluster.global
//         tile.tma_store  -> nvvm.cp.async.bulk.tensor.global.shared.cta
//         tile.tma_reduce -> nvvm.cp.async.bulk.tensor.reduce
//         tile.tma_prefetch            -> nvvm.cp.async.bulk.tensor.prefetch
//         tile.tma_prefetch_descriptor -> nvvm.prefetch tensormap
//         tile.tma_fence_descriptor    -> nvvm.fence.proxy.acquire
// A `!tile.tma_desc` is a generic `!llvm.ptr` on both sides (a kernel
// argument pointing at the map in global memory). Coordinates are given
// outermost first, like memref indices; PTX wants them innermost first.
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// PTX coordinates: s32, innermost dimension first.
SmallVector<Value> toPtxCoordinates(OpBuilder &builder, Location loc,
                                    ValueRange coordinates) {
  SmallVector<Value> result;
  for (Value coordinate : llvm::reverse(coordinates))
    result.push_back(
        LLVM::TruncOp::create(builder, loc, builder.getI32Type(), coordinate));
  return result;
}

/// PTX im2col offsets: innermost spatial dimension first.
SmallVector<Value> toPtxOffsets(ValueRange offsets) {
  return llvm::to_vector(llvm::reverse(offsets));
}

NVVM::TMALoadMode getLoadMode(TmaDescType desc) {
  return desc.isIm2col() ? NVVM::TMALoadMode::IM2COL : NVVM::TMALoadMode::TILE;
}

/// Base of the device patterns: the address of a shared tile (leading
/// indices, then zeros for the box dimensions).
template <typename OpT>
struct TmaLowering : ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;

  Value tileAddress(ConversionPatternRewriter &rewriter, Location loc,
                    MemRefType type, Value descriptor,
                    ValueRange leadingIndices) const {
    SmallVector<Value> indices(leadingIndices);
    Type indexType = this->getTypeConverter()->getIndexType();
    Value zero = LLVM::ConstantOp::create(rewriter, loc, indexType, 0);
    indices.resize(type.getRank(), zero);
    return this->getStridedElementPtr(rewriter, loc, type, descriptor, indices);
  }
};

struct TmaCreateDescriptorOpLowering
    : ConvertOpToLLVMPattern<TmaCreateDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaCreateDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TmaDescType desc = op.getDescriptor().getType();
    MemRefType tensor = op.getTensor().getType();
    int64_t rank = tensor.getRank();
    MLIRContext *ctx = op.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = rewriter.getI64Type();
    auto constant = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, value);
    };
    // The memref descriptor, passed by pointer.
    Value one = constant(1);
    Type descriptorType = adaptor.getTensor().getType();
    Value descriptorPtr =
        LLVM::AllocaOp::create(rewriter, loc, ptrType, descriptorType, one);
    LLVM::StoreOp::create(rewriter, loc, adaptor.getTensor(), descriptorPtr);
    // Small i64 arrays the encoders take by pointer.
    auto storeList = [&](ArrayRef<int64_t> values) -> Value {
      auto arrayType = LLVM::LLVMArrayType::get(i64, values.size());
      Value ptr = LLVM::AllocaOp::create(rewriter, loc, ptrType, arrayType, one);
      for (auto [i, value] : llvm::enumerate(values)) {
        Value slot = LLVM::GEPOp::create(rewriter, loc, ptrType, i64, ptr,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, constant(value), slot);
      }
      return ptr;
    };
    auto module = op->getParentOfType<ModuleOp>();
    std::optional<int64_t> dataType = getTensorMapDataType(desc.getElementType());
    SmallVector<Value> args = {constant(rank),
                               descriptorPtr,
                               constant(*dataType),
                               constant(int64_t(desc.getInterleave())),
                               constant(int64_t(*desc.getSwizzle().getTmaMode())),
                               constant(int64_t(desc.getL2promo())),
                               constant(int64_t(desc.getOob()))};
    if (!desc.isIm2col()) {
      FailureOr<LLVM::LLVMFuncOp> encode = LLVM::lookupOrCreateFn(
          rewriter, module, "mgpuTensorMapEncodeTiledMemref",
          {i64, ptrType, i64, i64, i64, i64, i64, ptrType}, ptrType);
      if (failed(encode))
        return rewriter.notifyMatchFailure(op, "cannot declare the encoder");
      args.push_back(storeList(desc.getBox()));
      rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, *encode, args);
      return success();
    }
    // im2col: the corners by pointer, then channels and pixels per column.
    FailureOr<LLVM::LLVMFuncOp> encode = LLVM::lookupOrCreateFn(
        rewriter, module, "tileRtTensorMapEncodeIm2colMemref",
        {i64, ptrType, i64, i64, i64, i64, i64, ptrType, ptrType, i64, i64},
        ptrType);
    if (failed(encode))
      return rewriter.notifyMatchFailure(op, "cannot declare the encoder");
    args.append({storeList(desc.getIm2colLower()),
                 storeList(desc.getIm2colUpper()), constant(desc.getBox()[1]),
                 constant(desc.getBox()[0])});
    rewriter.replaceOpWithNewOp<LLVM::CallOp>(op, *encode, args);
    return success();
  }

  /// CUtensorMapDataType of an element type (cuda.h).
  static std::optional<int64_t> getTensorMapDataType(Type type) {
    if (auto intType = dyn_cast<IntegerType>(type)) {
      switch (intType.getWidth()) {
      case 8: return 0;  // UINT8
      case 16: return 1; // UINT16
      case 32: return 3; // INT32
      case 64: return 5; // INT64
      }
      return std::nullopt;
    }
    if (type.isF16()) return 6;
    if (type.isF32()) return 7;
    if (type.isF64()) return 8;
    if (type.isBF16()) return 9;
    return std::nullopt;
  }
};

struct TmaLoadOpLowering : TmaLowering<TmaLoadOp> {
  using TmaLowering::TmaLowering;
  LogicalResult
  matchAndRewrite(TmaLoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dst = tileAddress(rewriter, loc, op.getDst().getType(),
                            adaptor.getDst(), adaptor.getDstIndices());
    // This CTA's address, which multicast reuses as the offset in every
    // destination CTA.
    dst = toSharedCluster(rewriter, loc, dst);
    Value barrier = getBarrierAddress(rewriter, loc, adaptor.getBarriers(),
                                      adaptor.getBarrierIndex());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
        op, dst, adaptor.getDescriptor(),
        toPtxCoordinates(rewriter, loc, adaptor.getCoordinates()), barrier,
        toPtxOffsets(adaptor.getIm2colOffsets()), adaptor.getMulticastMask(),
        adaptor.getCachePolicy(), getLoadMode(op.getDescriptor().getType()),
        /*isCTAOnly=*/false, NVVM::CTAGroupKindAttr(), /*predicate=*/Value());
    return success();
  }
};

struct TmaStoreOpLowering : TmaLowering<TmaStoreOp> {
  using TmaLowering::TmaLowering;
  LogicalResult
  matchAndRewrite(TmaStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = tileAddress(rewriter, loc, op.getSrc().getType(),
                            adaptor.getSrc(), adaptor.getSrcIndices());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(
        op, adaptor.getDescriptor(), src,
        toPtxCoordinates(rewriter, loc, adaptor.getCoordinates()),
        adaptor.getCachePolicy(), NVVM::TMAStoreMode::TILE,
        /*predicate=*/Value());
    return success();
  }
};

struct TmaReduceOpLowering : TmaLowering<TmaReduceOp> {
  using TmaLowering::TmaLowering;
  LogicalResult
  matchAndRewrite(TmaReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = tileAddress(rewriter, loc, op.getSrc().getType(),
                            adaptor.getSrc(), adaptor.getSrcIndices());
    // Both enums follow the PTX order add, min, max, inc, dec, and, or, xor.
    auto kind = static_cast<NVVM::TMAReduxKind>(op.getKind());
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorReduceOp>(
        op, adaptor.getDescriptor(), src, kind, NVVM::TMAStoreMode::TILE,
        toPtxCoordinates(rewriter, loc, adaptor.getCoordinates()),
        adaptor.getCachePolicy());
    return success();
  }
};

struct TmaPrefetchOpLowering : ConvertOpToLLVMPattern<TmaPrefetchOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaPrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkTensorPrefetchOp>(
        op, adaptor.getDescriptor(),
        toPtxCoordinates(rewriter, op.getLoc(), adaptor.getCoordinates()),
        toPtxOffsets(adaptor.getIm2colOffsets()),
        getLoadMode(op.getDescriptor().getType()), adaptor.getCachePolicy());
    return success();
  }
};

struct TmaPrefetchDescriptorOpLowering
    : ConvertOpToLLVMPattern<TmaPrefetchDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaPrefetchDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto prefetch = rewriter.replaceOpWithNewOp<NVVM::PrefetchOp>(
        op, NVVM::PrefetchCacheLevelAttr(), NVVM::CacheEvictionPriorityAttr(),
        adaptor.getDescriptor(), /*predicate=*/Value());
    prefetch.setTensormap(true);
    return success();
  }
};

struct TmaFenceDescriptorOpLowering
    : ConvertOpToLLVMPattern<TmaFenceDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaFenceDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A tensor map is 128 bytes, the only size the fence takes.
    Value size = LLVM::ConstantOp::create(rewriter, op.getLoc(),
                                          rewriter.getI32Type(), 128);
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyAcquireOp>(
        op, NVVM::MemScopeKind::GPU, adaptor.getDescriptor(), size,
        NVVM::ProxyKind::GENERIC, NVVM::ProxyKind::TENSORMAP);
    return success();
  }
};

} // namespace

void tile::populateTmaToNVVMPatterns(const LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<TmaCreateDescriptorOpLowering, TmaLoadOpLowering,
               TmaStoreOpLowering, TmaReduceOpLowering, TmaPrefetchOpLowering,
               TmaPrefetchDescriptorOpLowering, TmaFenceDescriptorOpLowering>(
      converter);
}
