//===- TileToNVVMPass.cpp - The convert-tile-to-nvvm pass -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Type conversion: memrefs become LLVM descriptors (the standard
// LLVMTypeConverter), `!tile.async_group` becomes i32. Memref operands are
// converted through unrealized casts, which the func/gpu-to-LLVM conversions
// that run later make disappear; so this pass only needs source
// materializations that the framework inserts by default.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETONVVMPASS
#include "Tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

void tile::populateTileToNVVMTypeConversions(LLVMTypeConverter &converter) {
  // The NVPTX numbers of the gpu dialect's symbolic address spaces.
  populateGpuMemorySpaceAttributeConversions(
      converter, [](gpu::AddressSpace space) -> unsigned {
        switch (space) {
        case gpu::AddressSpace::Global:
          return kGlobalAddressSpace;
        case gpu::AddressSpace::Workgroup:
          return kSharedAddressSpace;
        case gpu::AddressSpace::Private:
          return 0; // allocas are generic until NVPTX infers .local
        }
        llvm_unreachable("unknown address space enum value");
      });
  converter.addConversion([](AsyncGroupType type) -> Type {
    return IntegerType::get(type.getContext(), 32);
  });
  converter.addConversion([](MBarrierType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), kSharedAddressSpace);
  });
  converter.addConversion([](MBarrierTokenType type) -> Type {
    return IntegerType::get(type.getContext(), 64);
  });
  converter.addConversion([](TmaDescType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext());
  });
}

void tile::populateTileToNVVMConversionPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns,
    uint64_t debugWaitLimit) {
  populateAsyncCopyToNVVMPatterns(converter, patterns);
  populateMBarrierToNVVMPatterns(converter, patterns, debugWaitLimit);
  populateClusterToNVVMPatterns(converter, patterns);
  populateGridDependencyToNVVMPatterns(converter, patterns);
  populateBulkCopyToNVVMPatterns(converter, patterns);
  populateSharedMemoryToNVVMPatterns(converter, patterns);
  populateTmaToNVVMPatterns(converter, patterns);
  populateMatrixToNVVMPatterns(converter, patterns);
  populateWgmmaToNVVMPatterns(converter, patterns);
  populateNamedBarrierToNVVMPatterns(converter, patterns);
  populateFastMathToNVVMPatterns(converter, patterns);
  populateFp8ConversionToNVVMPatterns(converter, patterns);
}

namespace {
/// Lets the generic LLVM conversions convert tile types and ops.
struct TileToLLVMDialectInterface : ConvertToLLVMPatternInterface {
  using ConvertToLLVMPatternInterface::ConvertToLLVMPatternInterface;
  void populateConvertToLLVMConversionPatterns(
      ConversionTarget &, LLVMTypeConverter &converter,
      RewritePatternSet &patterns) const final {
    populateTileToNVVMTypeConversions(converter);
    populateTileToNVVMConversionPatterns(converter, patterns);
  }
};
} // namespace

void tile::registerConvertTileToLLVMInterface(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *, TileDialect *dialect) {
    dialect->addInterfaces<TileToLLVMDialectInterface>();
  });
}

namespace {
/// Pass shell: applies every tile-to-NVVM pattern as a partial conversion.
struct ConvertTileToNVVMPass
    : tile::impl::ConvertTileToNVVMPassBase<ConvertTileToNVVMPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LowerToLLVMOptions options(ctx);
    if (indexBitwidth != 0)
      options.overrideIndexBitwidth(indexBitwidth);
    LLVMTypeConverter converter(ctx, options);
    populateTileToNVVMTypeConversions(converter);

    layoutDynamicSharedBuffers(getOperation());
    recordTensorMapParams(getOperation(), converter);
    RewritePatternSet patterns(ctx);
    populateTileToNVVMConversionPatterns(converter, patterns, debugWaitLimit);

    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<TileDialect>();
    // The loop of mbarrier_wait_parity and, with debug-wait-limit, its
    // gpu.printf; later passes of the pipeline lower both.
    target.addLegalDialect<scf::SCFDialect, gpu::GPUDialect>();
    // ldmatrix and mma.sync go through NVGPU, which the pipeline lowers next.
    target.addLegalDialect<nvgpu::NVGPUDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
