//===- NVGPUWhereUsed.cpp - convert-nvgpu-to-nvvm where nvgpu ops are -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECONVERTNVGPUWHEREUSEDPASS
#include "Tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {
/// Whether `op` is or holds an nvgpu op.
bool holdsNVGPU(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isa<nvgpu::NVGPUDialect>(nested->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct TileConvertNVGPUWhereUsedPass
    : tile::impl::TileConvertNVGPUWhereUsedPassBase<
          TileConvertNVGPUWhereUsedPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // The ops of a module's body (gpu.modules, host functions) one by one;
    // any other operation whole.
    SmallVector<Operation *> units;
    if (auto module = dyn_cast<ModuleOp>(root))
      for (Operation &op : *module.getBody())
        units.push_back(&op);
    else
      units.push_back(root);
    for (Operation *unit : units) {
      if (!holdsNVGPU(unit))
        continue;
      OpPassManager nested(unit->getName());
      nested.addPass(createConvertNVGPUToNVVMPass());
      if (failed(runPipeline(nested, unit)))
        return signalPassFailure();
    }
  }
};
} // namespace
