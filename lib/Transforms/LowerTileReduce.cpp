//===- LowerTileReduce.cpp - Warp, warpgroup and block reductions ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.reduce onto upstream ops:
// - warp: one `gpu.subgroup_reduce ... uniform` (`cluster(size = N)` for
//   `lanes N`), which tile-lower-subgroup-reduce turns into upstream's
//   `gpu.shuffle xor` butterfly or, for full-warp i32 reductions on sm_80+,
//   leaves to convert-gpu-to-nvvm's `redux.sync`;
// - warpgroup and block: the warp reduction, each warp's partial through a
//   32-element shared scratch between two barriers (named barrier 1 + w of
//   the warpgroup, or `gpu.barrier`), and a fixed-order combination of the
//   partials that every thread computes alike (CUB's BlockReduce with
//   BLOCK_REDUCE_WARP_REDUCTIONS; PTX ISA, "bar, barrier").
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/APFloat.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The discardable attribute naming the scratch buffer of a scope and type.
constexpr llvm::StringLiteral kScratchAttrName = "tile.reduce_scratch";

/// The identity of `kind` on `type` (f32 or i32): what lanes past the
/// number of warps contribute. maxnumf/minnumf take a quiet NaN, which
/// they ignore, so that all-NaN inputs still give NaN.
static TypedAttr getIdentity(Builder &builder, gpu::AllReduceOperation kind,
                             Type type) {
  using gpu::AllReduceOperation;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    switch (kind) {
    case AllReduceOperation::ADD:
      // -0 + x is x for every x, also -0.
      return builder.getFloatAttr(type,
                                  llvm::APFloat::getZero(semantics,
                                                         /*Negative=*/true));
    case AllReduceOperation::MUL:
      return builder.getFloatAttr(type, 1.0);
    case AllReduceOperation::MINIMUMF:
      return builder.getFloatAttr(type, llvm::APFloat::getInf(semantics));
    case AllReduceOperation::MAXIMUMF:
      return builder.getFloatAttr(
          type, llvm::APFloat::getInf(semantics, /*Negative=*/true));
    default: // MINNUMF, MAXNUMF
      return builder.getFloatAttr(type, llvm::APFloat::getQNaN(semantics));
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  llvm::APInt value;
  switch (kind) {
  case AllReduceOperation::MUL:
    value = llvm::APInt(width, 1);
    break;
  case AllReduceOperation::AND:
  case AllReduceOperation::MINUI:
    value = llvm::APInt::getAllOnes(width);
    break;
  case AllReduceOperation::MINSI:
    value = llvm::APInt::getSignedMaxValue(width);
    break;
  case AllReduceOperation::MAXSI:
    value = llvm::APInt::getSignedMinValue(width);
    break;
  default: // ADD, OR, XOR, MAXUI
    value = llvm::APInt::getZero(width);
    break;
  }
  return builder.getIntegerAttr(type, value);
}

/// The kernel body that `op` runs in: a gpu.func's or a gpu.launch's entry
/// block.
static Block *getKernelEntry(Operation *op) {
  if (auto func = op->getParentOfType<gpu::GPUFuncOp>())
    return &func.getBody().front();
  if (auto launch = op->getParentOfType<gpu::LaunchOp>())
    return &launch.getBody().front();
  return nullptr;
}

/// The kernel's 32-element shared scratch of `type` for reductions over
/// `scope`, created at the kernel's entry on first use. Reductions of one
/// scope share it: each writes it between two barriers that all its threads
/// pass. Scopes do not share one: after a block reduction one warpgroup may
/// already write its partials while another still reads the block's.
static Value getScratch(PatternRewriter &rewriter, ReduceOp op, Block *entry,
                        Type type) {
  auto scope = ReduceScopeAttr::get(op.getContext(), op.getScope());
  for (auto alloc : entry->getOps<SharedAllocOp>())
    if (alloc->getAttr(kScratchAttrName) == scope &&
        alloc.getType().getElementType() == type)
      return alloc;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(entry);
  auto alloc = SharedAllocOp::create(
      rewriter, op.getLoc(),
      MemRefType::get({kMaxWarpsPerBlock}, type, MemRefLayoutAttrInterface(),
                      rewriter.getI64IntegerAttr(kSharedAddressSpace)),
      /*swizzle=*/nullptr, /*alignment=*/nullptr, /*dynamic=*/false);
  alloc->setAttr(kScratchAttrName, scope);
  return alloc;
}

struct ReduceOpLowering : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    gpu::AllReduceOperation kind = op.getKind();
    ReduceScope scope = op.getScope();
    auto scopeAttr = ReduceScopeAttr::get(op.getContext(), scope);
    // Every lane of the warp (of each `lanes` group) gets the result of the
    // butterfly. The scope of the whole op rides on the first warp
    // reduction, so that the protocol check (T-RED-6) still knows which
    // threads must reach it after this expansion.
    auto warpReduce = [&](Value value, std::optional<uint32_t> lanes,
                          bool tagged) -> Value {
      auto reduce = gpu::SubgroupReduceOp::create(rewriter, loc, value, kind,
                                                  /*uniform=*/true, lanes);
      if (tagged)
        reduce->setAttr(kReduceScopeAttrName, scopeAttr);
      return reduce;
    };
    if (scope == ReduceScope::warp) {
      // `lanes 32` is the whole warp (which redux.sync can take).
      std::optional<uint32_t> lanes = op.getLanes();
      if (lanes == 32u)
        lanes = std::nullopt;
      rewriter.replaceOp(op, warpReduce(op.getValue(), lanes, true));
      return success();
    }

    Block *entry = getKernelEntry(op);
    if (!entry)
      return op.emitOpError("must be inside a gpu.func or a gpu.launch body "
                            "(its scratch is a static shared allocation)");
    std::optional<std::array<int64_t, 3>> shape = op.getKnownBlockShape();
    if (!shape)
      if (auto func = op->getParentOfType<gpu::GPUFuncOp>()) {
        // The launches' block shape: T-RED-5 holds for it too.
        shape = getBlockShape(func);
        if (shape && failed(op.verifyBlockShape(*shape)))
          return failure();
      }
    std::optional<int64_t> threads;
    if (shape)
      threads = (*shape)[0] * (*shape)[1] * (*shape)[2];
    // A block of one warp: the warp reduction is the block's.
    if (scope == ReduceScope::block && threads && *threads <= 32) {
      rewriter.replaceOp(op, warpReduce(op.getValue(), std::nullopt, true));
      return success();
    }
    IndexMath math(rewriter, loc);
    // The thread's linear id in the block, x fastest; warps are runs of 32
    // consecutive ids (CUDA C++ Programming Guide, "SIMT Architecture").
    Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
    if (!shape || (*shape)[1] != 1 || (*shape)[2] != 1) {
      Value y = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::y);
      Value z = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::z);
      Value dimX = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x);
      Value dimY = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::y);
      Value plane = math.add(
          y, arith::MulIOp::create(rewriter, loc, dimY, z).getResult());
      thread = math.add(
          thread,
          arith::MulIOp::create(rewriter, loc, dimX, plane).getResult());
    }

    Value scratch = getScratch(rewriter, op, entry, type);
    Value lane = math.rem(thread, 32), warp = math.div(thread, 32);
    Value partial = warpReduce(op.getValue(), std::nullopt, true);
    Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        lane, math.constant(0));
    auto combine = [&](Value a, Value b) {
      return vector::makeArithReduction(rewriter, loc,
                                        gpu::convertReductionKind(kind), a, b);
    };
    std::function<void()> barrier;
    Value warpgroup;
    if (scope == ReduceScope::warpgroup) {
      // Named barrier 1 + w of the warpgroup's 128 threads (T-BAR-1).
      warpgroup = math.div(thread, kWarpgroupThreads);
      Value id =
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI32Type(),
                                     math.add(warpgroup, math.constant(1)));
      Value count = arith::ConstantOp::create(
          rewriter, loc, rewriter.getI32IntegerAttr(kWarpgroupThreads));
      barrier = [&rewriter, loc, id, count] {
        NVVM::BarrierOp::create(rewriter, loc, TypeRange{}, id, count,
                                /*reductionOp=*/nullptr,
                                /*reductionPredicate=*/Value());
      };
    } else {
      barrier = [&rewriter, loc] { gpu::BarrierOp::create(rewriter, loc); };
    }
    // The previous reduction's readers of the scratch are done; warp w's
    // partial goes to slot w (4 w' + w of warpgroup w': slots of different
    // warpgroups are disjoint); then all partials are there.
    barrier();
    auto write = scf::IfOp::create(rewriter, loc, first);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(write.thenBlock());
      memref::StoreOp::create(rewriter, loc, partial, scratch, warp);
    }
    barrier();

    Value result;
    if (scope == ReduceScope::warpgroup) {
      // The 4 partials in warp order, as a pairwise tree: the same
      // operations in every thread.
      Value base = math.mul(warpgroup, kWarpgroupThreads / 32);
      SmallVector<Value> parts;
      for (int64_t w = 0; w < kWarpgroupThreads / 32; ++w)
        parts.push_back(memref::LoadOp::create(
            rewriter, loc, scratch,
            ValueRange{math.add(base, math.constant(w))}));
      result =
          combine(combine(parts[0], parts[1]), combine(parts[2], parts[3]));
    } else {
      // Lane l of every warp takes warp l's partial (the identity past the
      // last warp; the scratch has 32 slots, so the load is in bounds) and
      // the warp reduces them: every warp computes the same butterfly.
      Value value = memref::LoadOp::create(rewriter, loc, scratch, lane);
      if (!threads || *threads < 32 * 32) {
        Value warps;
        if (threads) {
          warps = math.constant((*threads + 31) / 32);
        } else {
          Value x = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::x);
          Value y = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::y);
          Value z = gpu::BlockDimOp::create(rewriter, loc, gpu::Dimension::z);
          Value all = arith::MulIOp::create(
              rewriter, loc, arith::MulIOp::create(rewriter, loc, x, y), z);
          // Whole warps; a partial last warp counts (its lane 0 wrote).
          warps = math.div(math.add(all, math.constant(31)), 32);
        }
        Value inside = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, lane, warps);
        Value identity = arith::ConstantOp::create(
            rewriter, loc, getIdentity(rewriter, kind, type));
        value = arith::SelectOp::create(rewriter, loc, inside, value, identity);
      }
      result = warpReduce(value, std::nullopt, false);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::tile::populateTileReduceLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReduceOpLowering>(patterns.getContext());
}
