//===- SharedGlobals.h - Private .shared arrays for lowered buffers -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETONVVM_SHAREDGLOBALS_H
#define TILE_LIB_CONVERSION_TILETONVVM_SHAREDGLOBALS_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {

/// Creates a private `.shared` global of `type`, aligned to `alignment`
/// bytes, at the start of the symbol table enclosing `op` (the gpu.module),
/// named `baseName` or `baseName_N` when taken. Returns null when `op` has no
/// enclosing symbol table.
LLVM::GlobalOp createPrivateSharedGlobal(ConversionPatternRewriter &rewriter,
                                         Operation *op, Type type,
                                         int64_t alignment, StringRef baseName);

/// The module's `.extern .shared .align 1024 .b8 __tile_dynamic_shared[]`
/// (created on first use), the base of dynamic tile.shared_alloc buffers.
LLVM::GlobalOp getOrCreateDynamicSharedBase(ConversionPatternRewriter &rewriter,
                                            Operation *op);

/// The attribute on a dynamic tile.shared_alloc holding its byte offset.
inline constexpr llvm::StringLiteral kDynamicOffsetAttrName =
    "tile.dynamic_offset";

} // namespace mlir::tile

#endif // TILE_LIB_CONVERSION_TILETONVVM_SHAREDGLOBALS_H
