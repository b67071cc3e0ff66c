//===- SharedMemoryToNVVM.cpp - Lower tile.shared_alloc -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A private .shared byte array at the buffer's required alignment, viewed
// as a memref descriptor of the static shape.
//===----------------------------------------------------------------------===//

#include "SharedGlobals.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
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

void tile::populateSharedMemoryToNVVMPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<SharedAllocOpLowering>(converter);
}
