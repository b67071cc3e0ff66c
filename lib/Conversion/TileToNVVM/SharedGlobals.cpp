//===- SharedGlobals.cpp - Private .shared arrays for lowered buffers -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "SharedGlobals.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/SharedBuffer.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

using namespace mlir;

LLVM::GlobalOp
tile::createPrivateSharedGlobal(ConversionPatternRewriter &rewriter,
                                Operation *op, Type type, int64_t alignment,
                                StringRef baseName) {
  Operation *symbolTableOp = op->getParentWithTrait<OpTrait::SymbolTable>();
  if (!symbolTableOp)
    return {};
  std::string name = baseName.str();
  for (unsigned i = 0; SymbolTable::lookupSymbolIn(symbolTableOp, name); ++i)
    name = (baseName + "_" + Twine(i)).str();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&symbolTableOp->getRegion(0).front());
  return LLVM::GlobalOp::create(rewriter, op->getLoc(), type,
                                /*isConstant=*/false, LLVM::Linkage::Internal,
                                name, Attribute(), alignment,
                                kSharedAddressSpace);
}

LLVM::GlobalOp
tile::getOrCreateDynamicSharedBase(ConversionPatternRewriter &rewriter,
                                   Operation *op) {
  static constexpr llvm::StringLiteral kName = "__tile_dynamic_shared";
  Operation *symbolTableOp = op->getParentWithTrait<OpTrait::SymbolTable>();
  if (!symbolTableOp)
    return {};
  if (auto existing = dyn_cast_or_null<LLVM::GlobalOp>(
          SymbolTable::lookupSymbolIn(symbolTableOp, kName)))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&symbolTableOp->getRegion(0).front());
  auto type = LLVM::LLVMArrayType::get(rewriter.getI8Type(), 0);
  return LLVM::GlobalOp::create(rewriter, op->getLoc(), type,
                                /*isConstant=*/false, LLVM::Linkage::External,
                                kName, Attribute(), kDynamicSharedBaseAlignment,
                                kSharedAddressSpace);
}
