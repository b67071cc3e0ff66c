//===- Passes.h - Tile conversion passes ------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_PASSES_H
#define TILE_CONVERSION_PASSES_H

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace LLVM {
class LLVMDialect;
} // namespace LLVM
namespace NVVM {
class NVVMDialect;
} // namespace NVVM
namespace scf {
class SCFDialect;
} // namespace scf
namespace gpu {
class GPUDialect;
} // namespace gpu

namespace tile {
#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "Tile/Conversion/Passes.h.inc"
} // namespace tile
} // namespace mlir

#endif // TILE_CONVERSION_PASSES_H
