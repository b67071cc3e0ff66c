//===- SharedMemoryToNVVM.cpp - Lower tile.shared_alloc -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A private .shared byte array at the buffer's required alignment, viewed
// as a memref descriptor of the static shape.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

using namespace mlir;
using namespace mlir::tile;

namespace {
struct SharedAllocOpLowering : ConvertOpToLLVMPattern<SharedAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(SharedAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Operation *symbolTableOp = op->getParentWithTrait<OpTrait::SymbolTable>();
    if (!symbolTableOp)
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    MemRefType type = op.getBuffer().getType();
    int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
    auto arrayType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), bytes);
    std::string name = "__tile_shared";
    for (unsigned i = 0; SymbolTable::lookupSymbolIn(symbolTableOp, name); ++i)
      name = "__tile_shared_" + std::to_string(i);
    LLVM::GlobalOp global;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&symbolTableOp->getRegion(0).front());
      global = LLVM::GlobalOp::create(
          rewriter, op.getLoc(), arrayType, /*isConstant=*/false,
          LLVM::Linkage::Internal, name, Attribute(),
          op.getRequiredAlignment(), kSharedAddressSpace);
    }
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
