//===- SharedGlobals.cpp - Private .shared arrays for lowered buffers -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "SharedGlobals.h"
#include "Tile/IR/HardwareLimits.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

using namespace mlir;

LLVM::GlobalOp tile::createPrivateSharedGlobal(
    ConversionPatternRewriter &rewriter, Operation *op, Type type,
    int64_t alignment, StringRef baseName) {
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
