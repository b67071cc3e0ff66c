//===- TensorMapsByValue.cpp - Tensor maps as by-value kernel params -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// CUTLASS and Triton pass a CUtensorMap to kernels as a `__grid_constant__`
// by-value parameter: TMA reads it from the kernel's parameter space (PTX
// ISA, "Tensor Copy Instructions": the tensor map may be in .param, .const or
// .global space), and the launch copies it with the other parameters. Tile
// does the same in two steps:
//  1. convert-tile-to-nvvm records, on each kernel, the LLVM argument
//     positions of its `!tile.tma_desc` parameters (recordTensorMapParams);
//     upstream's gpu.func lowering keeps that attribute but not arbitrary
//     argument attributes.
//  2. tile-tensor-maps-by-value, once both sides are LLVM, makes those
//     arguments `llvm.byval` 128-byte grid constants and has every launch of
//     the kernel pass the bytes its host operand (the encoded map) points at.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETENSORMAPSBYVALUEPASS
#include "Tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
namespace tma = ::tile_tma;

/// The kernel attribute listing the LLVM positions of tensor-map arguments.
static constexpr StringLiteral kTensorMapParamsAttr = "tile.tensor_map_params";

void tile::recordTensorMapParams(Operation *root,
                                 const LLVMTypeConverter &converter) {
  root->walk([&](gpu::GPUFuncOp kernel) {
    if (!kernel.isKernel())
      return;
    // The positions after the signature conversion that gpu-to-nvvm applies
    // (memref arguments expand into their descriptor fields).
    TypeConverter::SignatureConversion conversion(kernel.getNumArguments());
    if (!converter.convertFunctionSignature(kernel.getFunctionType(),
                                            /*isVariadic=*/false,
                                            /*useBarePtrCallConv=*/false,
                                            conversion))
      return;
    SmallVector<int64_t> positions;
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
      if (isa<TmaDescType>(type))
        positions.push_back(conversion.getInputMapping(i)->inputNo);
    if (!positions.empty())
      kernel->setAttr(kTensorMapParamsAttr,
                      DenseI64ArrayAttr::get(kernel.getContext(), positions));
  });
}

namespace {
struct TileTensorMapsByValuePass
    : tile::impl::TileTensorMapsByValuePassBase<TileTensorMapsByValuePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Type mapType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 64),
                                            tma::kTensorMapBytes / 8);
    // Kernels: the recorded arguments become by-value grid constants.
    WalkResult walk = module.walk([&](LLVM::LLVMFuncOp kernel) {
      auto positions =
          kernel->getAttrOfType<DenseI64ArrayAttr>(kTensorMapParamsAttr);
      if (!positions)
        return WalkResult::advance();
      for (int64_t position : positions.asArrayRef())
        if (position < 0 || position >= kernel.getNumArguments() ||
            !isa<LLVM::LLVMPointerType>(kernel.getArgumentTypes()[position])) {
          emitConciseError(kernel)
              << kTensorMapParamsAttr << " names argument " << position
              << ", which is not a pointer argument "
                 "of the kernel";
          return WalkResult::interrupt();
        }
      kernel->removeAttr(kTensorMapParamsAttr);
      Builder b(ctx);
      for (int64_t position : positions.asArrayRef()) {
        kernel.setArgAttr(position, LLVM::LLVMDialect::getByValAttrName(),
                          TypeAttr::get(mapType));
        kernel.setArgAttr(position, LLVM::LLVMDialect::getAlignAttrName(),
                          b.getI64IntegerAttr(tma::kTensorMapAlignment));
        kernel.setArgAttr(position,
                          NVVM::NVVMDialect::getGridConstantAttrName(),
                          b.getUnitAttr());
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // Launches: a by-value parameter gets the bytes its operand points at.
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<LLVM::LLVMFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return;
      OpBuilder builder(launch);
      for (unsigned i = 0, e = launch.getNumKernelOperands(); i < e; ++i) {
        Value operand = launch.getKernelOperands()[i];
        auto byValue = kernel.getArgAttrOfType<TypeAttr>(
            i < kernel.getNumArguments() ? i : 0,
            LLVM::LLVMDialect::getByValAttrName());
        if (i >= kernel.getNumArguments() || !byValue ||
            byValue.getValue() != mapType ||
            !kernel.getArgAttr(i,
                               NVVM::NVVMDialect::getGridConstantAttrName()) ||
            !isa<LLVM::LLVMPointerType>(operand.getType()))
          continue;
        Value bytes = LLVM::LoadOp::create(builder, launch.getLoc(), mapType,
                                           operand, tma::kTensorMapAlignment);
        launch.getKernelOperandsMutable()[i].set(bytes);
      }
    });
  }
};
} // namespace
