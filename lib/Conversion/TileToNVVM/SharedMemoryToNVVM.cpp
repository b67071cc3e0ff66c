//===- SharedMemoryToNVVM.cpp - Lower tile.shared_alloc -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Static buffers: a private .shared byte array at the buffer's required
// alignment, viewed as a memref descriptor of the static shape. Dynamic
// buffers: the offset that layoutDynamicSharedMemory gave them (recorded by
// the pass as kDynamicOffsetAttrName) into one `.extern .shared .align 1024`
// array per module, whose size the launch provides.
//===----------------------------------------------------------------------===//

#include "SharedGlobals.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct SharedAllocOpLowering : ConvertOpToLLVMPattern<SharedAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SharedAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getBuffer().getType();
    if (op.getDynamic()) {
      auto offset = op->getAttrOfType<IntegerAttr>(kDynamicOffsetAttrName);
      if (!offset)
        return rewriter.notifyMatchFailure(op, "dynamic buffer not laid out");
      LLVM::GlobalOp base = getOrCreateDynamicSharedBase(rewriter, op);
      if (!base)
        return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
      Location loc = op.getLoc();
      Value address = LLVM::AddressOfOp::create(rewriter, loc, base);
      address = LLVM::GEPOp::create(
          rewriter, loc, address.getType(), rewriter.getI8Type(), address,
          ArrayRef<LLVM::GEPArg>{int32_t(offset.getInt())});
      Value descriptor = MemRefDescriptor::fromStaticShape(
          rewriter, loc, *getTypeConverter(), type, address);
      rewriter.replaceOp(op, descriptor);
      return success();
    }
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes);
    LLVM::GlobalOp global = createPrivateSharedGlobal(
        rewriter, op, arrayType, op.getRequiredAlignment(), "__tile_shared");
    if (!global)
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    Value address = LLVM::AddressOfOp::create(rewriter, op.getLoc(), global);
    Value descriptor = MemRefDescriptor::fromStaticShape(
        rewriter, op.getLoc(), *getTypeConverter(), type, address);
    rewriter.replaceOp(op, descriptor);
    return success();
  }
};
} // namespace

void tile::layoutDynamicSharedBuffers(Operation *root) {
  auto place = [](Region &body) {
    for (auto [op, offset] : layoutDynamicSharedMemory(body).offsets)
      op->setAttr(
          kDynamicOffsetAttrName,
          IntegerAttr::get(IntegerType::get(op->getContext(), 64), offset));
  };
  root->walk([&](Operation *op) {
    if (auto func = dyn_cast<gpu::GPUFuncOp>(op))
      place(func.getBody());
    else if (auto launch = dyn_cast<gpu::LaunchOp>(op))
      place(launch.getBody());
  });
}

void tile::populateSharedMemoryToNVVMPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SharedAllocOpLowering>(converter);
}
