//===- Passes.h - Tile transformation passes --------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_H
#define TILE_TRANSFORMS_PASSES_H

#include "Tile/IR/TileDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "Tile/Transforms/Passes.h.inc"

/// Checks `chip` and `features` (T-TARGET-1, T-TARGET-2), that every
/// target-dependent tile op in `module` runs on the chip (T-TARGET-3), the
/// optimization level, output format and index width (T-TARGET-4), the
/// kernels' attributions (T-TARGET-5, T-TARGET-6) and the launches.
/// Diagnostics are attached to the module or to the offending op.
LogicalResult checkTarget(ModuleOp module, StringRef chip, StringRef features,
                          int optLevel = 3, StringRef format = "isa",
                          int64_t indexBitwidth = 64);

#define GEN_PASS_REGISTRATION
#include "Tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_TRANSFORMS_PASSES_H
