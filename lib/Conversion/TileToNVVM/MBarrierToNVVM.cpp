//===- MBarrierToNVVM.cpp - Lower mbarrier and fence ops to NVVM ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A `!tile.mbarrier<count = N>` value becomes the `!llvm.ptr<3>` of the first
// of N i64 objects in a private `.shared` array; `%bars[%i]` is a GEP to the
// i-th. Each op maps to the NVVM op of the same PTX instruction, with the
// barrier's scope (cta or cluster) as the NVVM scope. The blocking
// `mbarrier_wait_parity` becomes an scf.while around `mbarrier.try_wait`
// (lowered to control flow by the pipeline's scf-to-cf), so it is safe
// inside structured loops.
//===----------------------------------------------------------------------===//

#include "Addresses.h"
#include "SharedGlobals.h"
#include "Tile/Conversion/TileToNVVM/TileToNVVM.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The NVVM memory scope of a barrier group.
NVVM::MemScopeKindAttr getScope(MBarrierType type) {
  return NVVM::MemScopeKindAttr::get(type.getContext(),
                                     type.getScope() == MBarrierScope::cluster
                                         ? NVVM::MemScopeKind::CLUSTER
                                         : NVVM::MemScopeKind::CTA);
}

/// Base of the patterns below: knows the group's type and computes the
/// address of the addressed barrier.
template <typename OpT>
struct MBarrierOpLowering : ConvertOpToLLVMPattern<OpT> {
  using ConvertOpToLLVMPattern<OpT>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename OpT::Adaptor;

  Value address(OpT op, OpAdaptor adaptor,
                ConversionPatternRewriter &rewriter) const {
    return getBarrierAddress(rewriter, op, adaptor.getOperands());
  }
};

/// Lowers `tile.mbarrier_alloc` to a private shared array of i64 in the
/// enclosing symbol table (the gpu.module) and its address.
struct MBarrierAllocOpLowering : ConvertOpToLLVMPattern<MBarrierAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(MBarrierAllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MBarrierType type = op.getBarriers().getType();
    auto arrayType =
        LLVM::LLVMArrayType::get(rewriter.getI64Type(), type.getCount());
    LLVM::GlobalOp global = createPrivateSharedGlobal(
        rewriter, op, arrayType, kMBarrierBytes, "__tile_mbarriers");
    if (!global)
      return rewriter.notifyMatchFailure(op, "no enclosing symbol table");
    rewriter.replaceOpWithNewOp<LLVM::AddressOfOp>(op, global);
    return success();
  }
};

struct MBarrierInitOpLowering : MBarrierOpLowering<MBarrierInitOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInitOp>(
        op, address(op, adaptor, rewriter), adaptor.getCount(),
        adaptor.getPredicate());
    return success();
  }
};

struct MBarrierArriveOpLowering : MBarrierOpLowering<MBarrierArriveOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveOp>(
        op, rewriter.getI64Type(), address(op, adaptor, rewriter),
        adaptor.getCount(), getScope(op.getBarriers().getType()));
    return success();
  }
};

struct MBarrierArriveDropOpLowering : MBarrierOpLowering<MBarrierArriveDropOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierArriveDropOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveDropOp>(
        op, rewriter.getI64Type(), address(op, adaptor, rewriter), Value(),
        getScope(op.getBarriers().getType()));
    return success();
  }
};

struct MBarrierArriveExpectTxOpLowering
    : MBarrierOpLowering<MBarrierArriveExpectTxOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierArriveExpectTxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierArriveExpectTxOp>(
        op, rewriter.getI64Type(), address(op, adaptor, rewriter),
        adaptor.getBytes(), getScope(op.getBarriers().getType()),
        rewriter.getBoolAttr(false), Value());
    return success();
  }
};

/// Lowers `tile.mbarrier_expect_tx` / `tile.mbarrier_complete_tx`, which
/// differ only in the NVVM op they become.
template <typename TileOp, typename NVVMOp>
struct MBarrierTxCountOpLowering : MBarrierOpLowering<TileOp> {
  using MBarrierOpLowering<TileOp>::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVMOp>(
        op, this->address(op, adaptor, rewriter), adaptor.getBytes(),
        getScope(op.getBarriers().getType()));
    return success();
  }
};

struct MBarrierTestWaitOpLowering : MBarrierOpLowering<MBarrierTestWaitOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierTestWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTestWaitOp>(
        op, rewriter.getI1Type(), address(op, adaptor, rewriter),
        adaptor.getToken(), getScope(op.getBarriers().getType()));
    return success();
  }
};

struct MBarrierTryWaitOpLowering : MBarrierOpLowering<MBarrierTryWaitOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierTryWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierTryWaitOp>(
        op, rewriter.getI1Type(), address(op, adaptor, rewriter),
        adaptor.getToken(), Value(), getScope(op.getBarriers().getType()));
    return success();
  }
};

/// `mbarrier.try_wait.parity` takes the phase parity as a 32-bit operand.
Value createTryWaitParity(ConversionPatternRewriter &rewriter, Location loc,
                          Value address, Value phase, MBarrierType type) {
  Value parity =
      LLVM::ZExtOp::create(rewriter, loc, rewriter.getI32Type(), phase);
  return NVVM::MBarrierTryWaitOp::create(rewriter, loc, rewriter.getI1Type(),
                                         address, parity, Value(),
                                         getScope(type));
}

struct MBarrierTryWaitParityOpLowering
    : MBarrierOpLowering<MBarrierTryWaitParityOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierTryWaitParityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, createTryWaitParity(rewriter, op.getLoc(),
                                               address(op, adaptor, rewriter),
                                               adaptor.getPhase(),
                                               op.getBarriers().getType()));
    return success();
  }
};

/// Lowers the blocking wait to `scf.while (!try_wait.parity) {}`. With a
/// limit, the loop counts its rounds; past the limit one thread of the hang
/// prints the barrier, the phase it waits for, its block and thread and the
/// source location, then traps, so that a protocol bug is a diagnosis
/// instead of a hung GPU (the runtime watchdog is the last resort).
struct MBarrierWaitParityOpLowering : MBarrierOpLowering<MBarrierWaitParityOp> {
  MBarrierWaitParityOpLowering(const LLVMTypeConverter &converter,
                               uint64_t limit)
      : MBarrierOpLowering(converter), limit(limit) {}

  LogicalResult
  matchAndRewrite(MBarrierWaitParityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value barrier = address(op, adaptor, rewriter);
    Value phase = adaptor.getPhase();
    MBarrierType type = op.getBarriers().getType();
    Type i64 = rewriter.getI64Type();
    Value zero = LLVM::ConstantOp::create(rewriter, loc, i64, 0);
    SmallVector<Value> inits;
    if (limit)
      inits.push_back(zero);
    auto loop = scf::WhileOp::create(rewriter, loc,
                                     ValueRange(inits).getTypes(), inits);
    Block *before = rewriter.createBlock(
        &loop.getBefore(), {}, ValueRange(inits).getTypes(),
        SmallVector<Location>(inits.size(), loc));
    rewriter.setInsertionPointToStart(before);
    Value done = createTryWaitParity(rewriter, loc, barrier, phase, type);
    Value one = LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                         rewriter.getBoolAttr(true));
    Value pending = LLVM::XOrOp::create(rewriter, loc, done, one);
    SmallVector<Value> carried;
    if (limit) {
      Value rounds =
          LLVM::AddOp::create(rewriter, loc, before->getArgument(0),
                              LLVM::ConstantOp::create(rewriter, loc, i64, 1));
      Value exhausted = LLVM::ICmpOp::create(
          rewriter, loc, LLVM::ICmpPredicate::uge, rounds,
          LLVM::ConstantOp::create(rewriter, loc, i64, int64_t(limit)));
      Value stuck = LLVM::AndOp::create(rewriter, loc, pending, exhausted);
      auto report = scf::IfOp::create(rewriter, loc, stuck, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(&report.getThenRegion().front());
        std::string where;
        llvm::raw_string_ostream os(where);
        loc.print(os);
        Value address = LLVM::PtrToIntOp::create(rewriter, loc, i64, barrier);
        Value phaseBit =
            LLVM::ZExtOp::create(rewriter, loc, rewriter.getI32Type(), phase);
        Value block = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
        Value thread =
            gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
        gpu::PrintfOp::create(
            rewriter, loc,
            rewriter.getStringAttr(
                "tile: mbarrier_wait_parity gave up after %lu rounds: barrier "
                "at shared address 0x%lx, waiting for phase parity %u, block "
                "%lu, thread %lu, " +
                where + "\n"),
            ValueRange{rounds, address, phaseBit, block, thread});
        LLVM::Trap::create(rewriter, loc);
      }
      carried.push_back(rounds);
    }
    scf::ConditionOp::create(rewriter, loc, pending, carried);
    Block *after = rewriter.createBlock(
        &loop.getAfter(), {}, ValueRange(carried).getTypes(),
        SmallVector<Location>(carried.size(), loc));
    rewriter.setInsertionPointToStart(after);
    scf::YieldOp::create(rewriter, loc, after->getArguments());
    rewriter.eraseOp(op);
    return success();
  }

private:
  uint64_t limit;
};

struct MBarrierInvalOpLowering : MBarrierOpLowering<MBarrierInvalOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(MBarrierInvalOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::MBarrierInvalOp>(
        op, address(op, adaptor, rewriter));
    return success();
  }
};

struct AsyncCopyMBarrierArriveOpLowering
    : MBarrierOpLowering<AsyncCopyMBarrierArriveOp> {
  using MBarrierOpLowering::MBarrierOpLowering;
  LogicalResult
  matchAndRewrite(AsyncCopyMBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncMBarrierArriveOp>(
        op, address(op, adaptor, rewriter),
        rewriter.getBoolAttr(op.getNoinc()));
    return success();
  }
};

struct FenceMBarrierInitOpLowering
    : ConvertOpToLLVMPattern<FenceMBarrierInitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FenceMBarrierInitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::FenceMbarrierInitOp>(op);
    return success();
  }
};

/// fence.proxy.async{.shared::cta|.global|} (PTX ISA, "membar/fence").
struct FenceProxyAsyncOpLowering : ConvertOpToLLVMPattern<FenceProxyAsyncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(FenceProxyAsyncOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    NVVM::ProxyKind kind = NVVM::ProxyKind::async;
    NVVM::SharedSpaceAttr space;
    switch (op.getSpace()) {
    case ProxySpace::shared_cta:
      kind = NVVM::ProxyKind::async_shared;
      space = NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta);
      break;
    case ProxySpace::global:
      kind = NVVM::ProxyKind::async_global;
      break;
    case ProxySpace::all:
      break;
    }
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKindAttr::get(ctx, kind), space);
    return success();
  }
};

} // namespace

void tile::populateMBarrierToNVVMPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          uint64_t debugWaitLimit) {
  patterns.add<MBarrierWaitParityOpLowering>(converter, debugWaitLimit);
  patterns.add<
      MBarrierAllocOpLowering, MBarrierInitOpLowering, MBarrierArriveOpLowering,
      MBarrierArriveDropOpLowering, MBarrierArriveExpectTxOpLowering,
      MBarrierTxCountOpLowering<MBarrierExpectTxOp, NVVM::MBarrierExpectTxOp>,
      MBarrierTxCountOpLowering<MBarrierCompleteTxOp,
                                NVVM::MBarrierCompleteTxOp>,
      MBarrierTestWaitOpLowering, MBarrierTryWaitOpLowering,
      MBarrierTryWaitParityOpLowering, MBarrierInvalOpLowering,
      AsyncCopyMBarrierArriveOpLowering, FenceMBarrierInitOpLowering,
      FenceProxyAsyncOpLowering>(converter);
}
