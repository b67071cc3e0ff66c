//===- LowerTileSplitK.cpp - Lower the split-K fixup ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile.split_k_reduce: each thread of the warpgroup stores its partial
// accumulators to the workspace in 16-byte chunks, the warpgroup's threads
// side by side (vector.store; a warp's chunk is 512 contiguous bytes); the
// warpgroup meets (a named barrier); its first thread counts the arrival
// (memref.atomic_rmw
// addi between two GPU-scope fences, fence.acq_rel.gpu: the release and
// acquire patterns of the PTX ISA's memory consistency model, which a
// fence.acq_rel serves where membar.gl's sequential consistency is more
// than needed) and writes whether it was the last to a
// shared flag (its warpgroup's slot of a static tile.shared_alloc); the
// warpgroup meets again and reads the flag; the last CTA sums every split's
// partial in split order, 64 values (sixteen 16-byte loads a split) at a time
// (with `prefetch`: all its values, the next split's loads issued before the
// current split's adds, its own split from its registers), and resets the
// counter. With one split, nothing but the result.
//===----------------------------------------------------------------------===//

#include "LowerTileOpsPatterns.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

struct SplitKReduceOpLowering : OpRewritePattern<SplitKReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SplitKReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexMath math(rewriter, loc);
    Type i1 = rewriter.getI1Type(), i32 = rewriter.getI32Type();
    Value acc = op.getAcc(), tile = op.getTile(), split = op.getSplit(),
          splits = op.getSplits();
    Value slots = op.getSlots() ? op.getSlots() : splits;
    auto accType = cast<VectorType>(acc.getType());
    // The partials are stored in 4-element (16-byte) chunks, chunk c of
    // thread t of a split at element 4 (128 c + t) of the split's 128
    // workspace rows: a warp's store or load of one chunk is 512 contiguous
    // bytes. Rows of whole chunks start 16-byte aligned in a workspace whose
    // base is (T-TILE-6). Other accumulator sizes take a row per thread.
    int64_t elements = accType.getNumElements();
    int64_t width = elements % 4 == 0 ? 4 : 1;
    auto chunkType = VectorType::get({width}, rewriter.getF32Type());
    llvm::MaybeAlign chunkAlignment(width * 4);
    auto i32Constant = [&](int64_t value) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getI32IntegerAttr(value));
    };
    // The warpgroups' shared flags (one each: several warpgroups of a CTA
    // may reduce their own tiles): whether the CTA counted last.
    Value flag;
    {
      OpBuilder::InsertionGuard guard(rewriter);
      auto func = op->getParentOfType<gpu::GPUFuncOp>();
      if (!func)
        return op.emitOpError("must be inside a gpu.func (its shared flag "
                              "is a static shared allocation)");
      rewriter.setInsertionPointToStart(&func.getBody().front());
      flag = SharedAllocOp::create(
          rewriter, loc,
          MemRefType::get({kMaxWarpgroupsPerBlock}, i32,
                          MemRefLayoutAttrInterface(),
                          rewriter.getI64IntegerAttr(kSharedAddressSpace)),
          /*swizzle=*/nullptr, /*alignment=*/nullptr, /*dynamic=*/false);
    }
    WarpgroupBarrier warpgroup(rewriter, loc);
    Value thread = warpgroup.thread, first = warpgroup.first;
    Value zero = math.constant(0);
    // The workspace as one row-major vector (its layout is the identity,
    // T-TILE-6), so that a chunk's address is the split's base plus a
    // constant and the thread's offset, whatever the row length (a row of
    // 96 accumulators would otherwise divide every chunk's index by 96).
    Value flat = memref::CollapseShapeOp::create(
        rewriter, loc, op.getWorkspace(),
        ArrayRef<ReassociationIndices>{ReassociationIndices{0, 1}});
    // The element of the flat workspace where chunk `c` of split `s` of this
    // tile starts for this thread.
    auto chunkAt = [&](OpBuilder &b, Value s, int64_t c) -> Value {
      IndexMath at(b, loc);
      Value base = at.mul(
          arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, tile, slots), s),
          kWarpgroupThreads * elements);
      if (width == 1)
        return at.add(base, at.add(at.mul(thread, elements), at.constant(c)));
      return at.add(base, at.add(at.constant(c * kWarpgroupThreads * width),
                                 at.mul(thread, width)));
    };
    Value single = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, splits, math.constant(1));
    auto outer = scf::IfOp::create(rewriter, loc, TypeRange{i1, accType},
                                   single, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&outer.getThenRegion().front());
      Value yes =
          arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true));
      scf::YieldOp::create(rewriter, loc, ValueRange{yes, acc});

      rewriter.setInsertionPointToStart(&outer.getElseRegion().front());
      // The thread's partial as its chunks: stored, and with `prefetch` the
      // last CTA's own split.
      SmallVector<Value> own;
      for (int64_t c = 0; c < elements / width; ++c) {
        Value at = chunkAt(rewriter, split, c);
        SmallVector<int64_t> lanes;
        for (int64_t e = 0; e < width; ++e)
          lanes.push_back(c * width + e);
        own.push_back(vector::ShuffleOp::create(rewriter, loc, acc, acc, lanes));
        vector::StoreOp::create(rewriter, loc, own.back(), flat, ValueRange{at},
                                /*nontemporal=*/false, chunkAlignment);
      }
      warpgroup.sync(rewriter, loc);
      auto count = scf::IfOp::create(rewriter, loc, first);
      {
        OpBuilder::InsertionGuard inner(rewriter);
        rewriter.setInsertionPointToStart(&count.getThenRegion().front());
        LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel,
                              "device");
        Value old = memref::AtomicRMWOp::create(
            rewriter, loc, arith::AtomicRMWKind::addi, i32Constant(1),
            op.getCounters(), ValueRange{tile});
        // The PTX memory model's release and acquire patterns around the
        // count (fence; atomic / atomic; fence): whatever the atomic's own
        // ordering becomes, the partials written before it are visible to
        // the last CTA, which reads them after it.
        LLVM::FenceOp::create(rewriter, loc, LLVM::AtomicOrdering::acq_rel,
                              "device");
        Value lastIndex = arith::IndexCastOp::create(
            rewriter, loc, i32,
            arith::SubIOp::create(rewriter, loc, splits, math.constant(1)));
        Value isLast = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq, old, lastIndex);
        memref::StoreOp::create(
            rewriter, loc, arith::ExtUIOp::create(rewriter, loc, i32, isLast),
            flag, ValueRange{warpgroup.index});
      }
      rewriter.setInsertionPointAfter(count);
      warpgroup.sync(rewriter, loc);
      Value last = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ne,
          memref::LoadOp::create(rewriter, loc, flag,
                                 ValueRange{warpgroup.index}),
          i32Constant(0));
      auto reduce = scf::IfOp::create(rewriter, loc, TypeRange{accType}, last,
                                      /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard inner(rewriter);
        rewriter.setInsertionPointToStart(&reduce.getThenRegion().front());
        Value zeroChunk = arith::ConstantOp::create(
            rewriter, loc, chunkType,
            DenseElementsAttr::get(chunkType, rewriter.getF32FloatAttr(0)));
        Value result = acc;
        // Copies `chunks` chunks of `sums` from chunk `from` on into result.
        auto insertSums = [&](ValueRange sums, int64_t from) {
          for (auto [c, sum] : llvm::enumerate(sums))
            for (int64_t e = 0; e < width; ++e)
              result = vector::InsertOp::create(
                  rewriter, loc,
                  vector::ExtractOp::create(rewriter, loc, sum,
                                            ArrayRef<int64_t>{e}),
                  result, ArrayRef<int64_t>{(from + int64_t(c)) * width + e});
        };
        if (op.getPrefetch()) {
          // The splits' partials summed in split order with the next
          // split's loads issued before this split's adds (two splits'
          // loads in flight: the last CTA's reads are latency-bound), and
          // this CTA's own partial taken from its registers instead of read
          // back (the same bits).
          int64_t chunks = elements / width;
          SmallVector<Type> chunkTypes(chunks, chunkType);
          // Split `s`'s chunks: this CTA's own, or loaded.
          auto partial = [&](OpBuilder &b, Location l,
                             Value s) -> SmallVector<Value> {
            Value mine =
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, s, split);
            auto pick = scf::IfOp::create(b, l, chunkTypes, mine,
                                          /*withElseRegion=*/true);
            OpBuilder::InsertionGuard inner(b);
            b.setInsertionPointToStart(&pick.getThenRegion().front());
            scf::YieldOp::create(b, l, own);
            b.setInsertionPointToStart(&pick.getElseRegion().front());
            SmallVector<Value> loaded;
            for (int64_t c = 0; c < chunks; ++c)
              loaded.push_back(vector::LoadOp::create(
                  b, l, chunkType, flat, ValueRange{chunkAt(b, s, c)},
                  /*nontemporal=*/false, chunkAlignment));
            scf::YieldOp::create(b, l, loaded);
            return SmallVector<Value>(pick.getResults());
          };
          SmallVector<Value> inits(chunks, zeroChunk);
          llvm::append_range(inits, partial(rewriter, loc, zero));
          auto loop = scf::ForOp::create(
              rewriter, loc, zero, splits, math.constant(1), inits,
              [&](OpBuilder &b, Location l, Value s, ValueRange carried) {
                ValueRange sums = carried.take_front(chunks),
                           current = carried.drop_front(chunks);
                Value after = arith::AddIOp::create(
                    b, l, s, arith::ConstantIndexOp::create(b, l, 1));
                Value more = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::ult, after, splits);
                auto ahead = scf::IfOp::create(b, l, chunkTypes, more,
                                               /*withElseRegion=*/true);
                {
                  OpBuilder::InsertionGuard inner(b);
                  b.setInsertionPointToStart(&ahead.getThenRegion().front());
                  scf::YieldOp::create(b, l, partial(b, l, after));
                  b.setInsertionPointToStart(&ahead.getElseRegion().front());
                  scf::YieldOp::create(b, l, current);
                }
                SmallVector<Value> next;
                for (int64_t c = 0; c < chunks; ++c)
                  next.push_back(
                      arith::AddFOp::create(b, l, sums[c], current[c]));
                llvm::append_range(next, ahead.getResults());
                scf::YieldOp::create(b, l, next);
              });
          insertSums(loop.getResults().take_front(chunks), 0);
        } else {
          // Every split's partial read back (this CTA's too: the same
          // thread wrote it) and summed in split order, a group of up to 64
          // values (sixteen independent 16-byte loads a split) at a time:
          // the running sums of one group and the loads in flight fit
          // beside the result (acc is dead here, which its use as the own
          // split's partial would not be).
          int64_t group = std::min<int64_t>(elements, 64) / width * width;
          for (int64_t g = 0; g < elements; g += group) {
            int64_t chunks = std::min(group, elements - g) / width;
            SmallVector<Value> inits(chunks, zeroChunk);
            auto loop = scf::ForOp::create(
                rewriter, loc, zero, splits, math.constant(1), inits,
                [&](OpBuilder &b, Location l, Value s, ValueRange sums) {
                  SmallVector<Value> loaded, next;
                  for (int64_t c = 0; c < chunks; ++c) {
                    loaded.push_back(vector::LoadOp::create(
                        b, l, chunkType, flat,
                        ValueRange{chunkAt(b, s, g / width + c)},
                        /*nontemporal=*/false, chunkAlignment));
                  }
                  for (int64_t c = 0; c < chunks; ++c)
                    next.push_back(
                        arith::AddFOp::create(b, l, sums[c], loaded[c]));
                  scf::YieldOp::create(b, l, next);
                });
            insertSums(loop.getResults(), g / width);
          }
        }
        auto reset = scf::IfOp::create(rewriter, loc, first);
        rewriter.setInsertionPointToStart(&reset.getThenRegion().front());
        memref::StoreOp::create(rewriter, loc, i32Constant(0), op.getCounters(),
                                ValueRange{tile});
        rewriter.setInsertionPointAfter(reset);
        scf::YieldOp::create(rewriter, loc, ValueRange{result});
        rewriter.setInsertionPointToStart(&reduce.getElseRegion().front());
        scf::YieldOp::create(rewriter, loc, ValueRange{acc});
      }
      scf::YieldOp::create(rewriter, loc,
                           ValueRange{last, reduce.getResult(0)});
    }
    rewriter.replaceOp(op, outer.getResults());
    return success();
  }
};

} // namespace

void mlir::tile::populateTileSplitKLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SplitKReduceOpLowering>(patterns.getContext());
}
