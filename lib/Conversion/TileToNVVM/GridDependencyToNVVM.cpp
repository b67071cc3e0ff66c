//===- GridDependencyToNVVM.cpp - Lower griddepcontrol ops to NVVM --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "griddepcontrol". tile.launch_dependents is NVVM's griddepcontrol
// launch_dependents. tile.grid_dependency_wait is the same instruction as
// inline PTX with a memory clobber: LLVM 22 declares
// llvm.nvvm.griddepcontrol.wait IntrNoMem, which lets the optimizer move
// memory accesses across it, while every global access of the kernel must
// stay after it (T-PDL-2); CUTLASS's cudaGridDependencySynchronize is the
// same asm with a "memory" clobber. The clobber orders what LLVM's alias
// analysis lets a call touch: loads it proves untouchable by any call
// (through `noalias` kernel arguments never captured, or marked invariant)
// could still move above it; the lowering emits neither today.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct GridDependencyWaitOpLowering
    : ConvertOpToLLVMPattern<GridDependencyWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(GridDependencyWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *context = op.getContext();
    LLVM::InlineAsmOp::create(
        rewriter, op.getLoc(), LLVM::LLVMVoidType::get(context),
        ValueRange(), "griddepcontrol.wait;", "~{memory}",
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::tailcallkind::TailCallKind::None,
        LLVM::AsmDialectAttr::get(context, LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LaunchDependentsOpLowering : ConvertOpToLLVMPattern<LaunchDependentsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(LaunchDependentsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::GriddepcontrolOp>(
        op, NVVM::GridDepActionKindAttr::get(
                op.getContext(), NVVM::GridDepActionKind::launch_dependents));
    return success();
  }
};

} // namespace

void tile::populateGridDependencyToNVVMPatterns(
    const LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<GridDependencyWaitOpLowering, LaunchDependentsOpLowering>(
      converter);
}
