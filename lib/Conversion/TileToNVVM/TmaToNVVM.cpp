//===- TmaToNVVM.cpp - Lower TMA tensor ops and descriptors ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Host:   tile.tma_create_descriptor -> call @tileRtTensorMapEncodeTiledMemref
//         or @tileRtTensorMapEncodeIm2colMemref (the runtime's checked
//         encoders, TensorMapContract.h) into a 128-byte stack slot
// Device: tile.tma_load   -> nvvm.cp.async.bulk.tensor.shared.cluster.global
//         tile.tma_store  -> nvvm.cp.async.bulk.tensor.global.shared.cta
//         tile.tma_reduce -> nvvm.cp.async.bulk.tensor.reduce
//         tile.tma_prefetch            -> nvvm.cp.async.bulk.tensor.prefetch
//         tile.tma_prefetch_descriptor -> nvvm.prefetch tensormap
//         tile.tma_fence_descriptor    -> nvvm.fence.proxy.acquire
// A `!tile.tma_desc` is a generic `!llvm.ptr` on both sides: on the host the
// address of the encoded map, in a kernel the address of its by-value,
// grid-constant parameter (TileTensorMapsByValue makes both so). Coordinates
// are given outermost first, like memref indices; PTX wants them innermost
// first.
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;
namespace tma = ::tile_tma;

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
template <typename OpT> struct TmaLowering : ConvertOpToLLVMPattern<OpT> {
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

/// Host: encodes the map into a 128-byte, 128-byte aligned stack slot with
/// the runtime's checked encoder (the contract's signature) and yields the
/// slot's address. Kernels take maps by value: the launch copies the bytes
/// into the kernel's parameters (TileTensorMapsByValue). The slots, like the
/// encoder's other by-pointer arguments, are allocated in the function's
/// entry block, so a descriptor created in a loop reuses its slot.
struct TmaCreateDescriptorOpLowering
    : ConvertOpToLLVMPattern<TmaCreateDescriptorOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(TmaCreateDescriptorOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    TmaDescType desc = op.getDescriptor().getType();
    int64_t rank = op.getTensor().getType().getRank();
    MLIRContext *ctx = op.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    Type i64 = rewriter.getI64Type();
    auto constant = [&](int64_t value) -> Value {
      return LLVM::ConstantOp::create(rewriter, loc, i64, value);
    };
    auto function = op->getParentOfType<FunctionOpInterface>();
    if (!function)
      return rewriter.notifyMatchFailure(op, "not inside a function");
    auto entryAlloca = [&](Type type, unsigned alignment) -> Value {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&function.getFunctionBody().front());
      Value one = LLVM::ConstantOp::create(rewriter, loc, i64, 1);
      return LLVM::AllocaOp::create(rewriter, loc, ptrType, type, one,
                                    alignment);
    };
    Value map =
        entryAlloca(LLVM::LLVMArrayType::get(i64, tma::kTensorMapBytes / 8),
                    tma::kTensorMapAlignment);
    // The memref descriptor, passed by pointer.
    Value descriptorPtr = entryAlloca(adaptor.getTensor().getType(), 0);
    LLVM::StoreOp::create(rewriter, loc, adaptor.getTensor(), descriptorPtr);
    // Small i64 arrays the encoders take by pointer.
    auto storeList = [&](ArrayRef<int64_t> values) -> Value {
      Value ptr = entryAlloca(LLVM::LLVMArrayType::get(i64, values.size()), 0);
      for (auto [i, value] : llvm::enumerate(values)) {
        Value slot = LLVM::GEPOp::create(rewriter, loc, ptrType, i64, ptr,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
        LLVM::StoreOp::create(rewriter, loc, constant(value), slot);
      }
      return ptr;
    };
    std::optional<tma::DataType> dataType =
        getTensorMapDataType(desc.getElementType());
    if (!dataType)
      return rewriter.notifyMatchFailure(op, "no tensor-map data type");
    SmallVector<Value> args = {
        map,
        constant(rank),
        descriptorPtr,
        constant(int64_t(*dataType)),
        constant(int64_t(desc.getInterleave())),
        constant(int64_t(*desc.getSwizzle().getTmaMode())),
        constant(int64_t(desc.getL2promo())),
        constant(int64_t(desc.getOob()))};
    if (!desc.isIm2col()) {
      args.push_back(storeList(desc.getBox()));
      if (failed(callEncoder<tma::EncodeTiledFn>(
              rewriter, op, tma::kEncodeTiledSymbol, args)))
        return failure();
    } else {
      // im2col: the corners by pointer, then channels and pixels per column.
      args.append({storeList(desc.getIm2colLower()),
                   storeList(desc.getIm2colUpper()), constant(desc.getBox()[1]),
                   constant(desc.getBox()[0])});
      if (failed(callEncoder<tma::EncodeIm2colFn>(
              rewriter, op, tma::kEncodeIm2colSymbol, args)))
        return failure();
    }
    rewriter.replaceOp(op, map);
    return success();
  }

  /// Declares the encoder `name` with the parameters of the C type `Fn` (the
  /// contract's) and calls it with `args`.
  template <typename Fn>
  static LogicalResult callEncoder(ConversionPatternRewriter &rewriter,
                                   Operation *op, StringRef name,
                                   ValueRange args) {
    MLIRContext *ctx = op->getContext();
    SmallVector<Type> params;
    for (tma::AbiKind kind : tma::AbiOf<Fn>::kinds)
      params.push_back(kind == tma::AbiKind::pointer
                           ? Type(LLVM::LLVMPointerType::get(ctx))
                           : Type(IntegerType::get(ctx, 64)));
    assert(params.size() == args.size() && "encoder arguments");
    FailureOr<LLVM::LLVMFuncOp> encode =
        LLVM::lookupOrCreateFn(rewriter, op->getParentOfType<ModuleOp>(), name,
                               params, LLVM::LLVMVoidType::get(ctx));
    if (failed(encode))
      return rewriter.notifyMatchFailure(op, "cannot declare the encoder");
    LLVM::CallOp::create(rewriter, op->getLoc(), *encode, args);
    return success();
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
    Value barrier = getBarrierAddress(rewriter, op, adaptor.getOperands());
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
