//===- NVGPUWhereUsed.cpp - convert-nvgpu-to-nvvm where nvgpu ops are -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTNVGPUWHEREUSEDPASS
#include "Tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
struct TileConvertNVGPUWhereUsedPass
    : tile::impl::TileConvertNVGPUWhereUsedPassBase<
          TileConvertNVGPUWhereUsedPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    bool usesNVGPU = root->walk([](Operation *op) {
                           return isa<nvgpu::NVGPUDialect>(op->getDialect())
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!usesNVGPU)
      return;
    OpPassManager nested(root->getName());
    nested.addPass(createConvertNVGPUToNVVMPass());
    if (failed(runPipeline(nested, root)))
      signalPassFailure();
  }
};
} // namespace
