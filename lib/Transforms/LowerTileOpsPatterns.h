//===- LowerTileOpsPatterns.h - Patterns of tile-lower-tile-ops -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The rewrite patterns that expand tile-level ops into per-thread ops, one
// populate function per family, and the index arithmetic they all emit.
// Each pattern either lowers its op or reports why it cannot (emitOpError)
// and fails; it never declines silently.
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_TRANSFORMS_LOWERTILEOPSPATTERNS_H
#define TILE_LIB_TRANSFORMS_LOWERTILEOPSPATTERNS_H

#include "Tile/IR/HardwareLimits.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// tile.copy and tile.tma_copy (LowerTileCopies.cpp).
void populateTileCopyLoweringPatterns(RewritePatternSet &patterns);

/// tile.mma, tile.warpgroup_mma and tile.warpgroup_mma_rs (LowerTileMma.cpp).
void populateTileMmaLoweringPatterns(RewritePatternSet &patterns);

/// tile.mma_store, tile.warpgroup_mma_store, tile.warpgroup_tma_store,
/// tile.warpgroup_rows and tile.warpgroup_scale (LowerTileMmaStores.cpp).
void populateTileMmaStoreLoweringPatterns(RewritePatternSet &patterns);

/// tile.warpgroup_row_reduce, tile.warpgroup_broadcast_rows and
/// tile.warpgroup_iota (LowerWarpgroupFragments.cpp).
void populateWarpgroupFragmentLoweringPatterns(RewritePatternSet &patterns);

/// tile.warpgroup_add and tile.warpgroup_activation
/// (LowerWarpgroupEpilogue.cpp).
void populateWarpgroupEpilogueLoweringPatterns(RewritePatternSet &patterns);

/// tile.reduce (LowerTileReduce.cpp).
void populateTileReduceLoweringPatterns(RewritePatternSet &patterns);

/// tile.tile_coord, tile.work_count and tile.work_unit
/// (LowerTileSchedule.cpp).
void populateTileScheduleLoweringPatterns(RewritePatternSet &patterns);

/// tile.split_k_reduce (LowerTileSplitK.cpp).
void populateTileSplitKLoweringPatterns(RewritePatternSet &patterns);

/// tile.warp_specialize (LowerTileWarpSpecialize.cpp).
void populateTileWarpSpecializeLoweringPatterns(RewritePatternSet &patterns);

/// Index arithmetic emitted at a builder's insertion point.
struct IndexMath {
  OpBuilder &builder;
  Location loc;
  IndexMath(OpBuilder &builder, Location loc) : builder(builder), loc(loc) {}
  Value constant(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value add(Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b);
  }
  Value mul(Value a, int64_t b) {
    return arith::MulIOp::create(builder, loc, a, constant(b));
  }
  Value div(Value a, int64_t b) {
    return arith::DivUIOp::create(builder, loc, a, constant(b));
  }
  Value rem(Value a, int64_t b) {
    return arith::RemUIOp::create(builder, loc, a, constant(b));
  }
  Value less(Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, a, b);
  }
};

/// The lane, and the (M, N) coordinates of the warp in a column-major grid of
/// warps, of the current thread.
struct WarpPosition {
  Value lane, warpM, warpN;
};

/// Emits the current thread's position in a column-major grid of `warps`
/// (thread x / 32 is the warp, thread x mod 32 the lane).
inline WarpPosition getWarpPosition(OpBuilder &builder, Location loc,
                                    ArrayRef<int64_t> warps) {
  IndexMath math(builder, loc);
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value lane = arith::RemUIOp::create(builder, loc, tid, math.constant(32));
  Value warp = arith::DivUIOp::create(builder, loc, tid, math.constant(32));
  return {lane,
          arith::RemUIOp::create(builder, loc, warp, math.constant(warps[0])),
          arith::DivUIOp::create(builder, loc, warp, math.constant(warps[0]))};
}

/// The (row, column) in a warpgroup tile of the current thread's first
/// accumulator element: the warpgroup's warps as a 4x1 grid, warp w holding
/// rows 16 w + lane / 4 (+ 8) of each 64-row block, lane l columns 2 (l mod
/// 4) (+ 1) of each 8-column fragment.
inline std::pair<Value, Value> getWarpgroupFragmentOrigin(OpBuilder &builder,
                                                          Location loc) {
  IndexMath math(builder, loc);
  WarpPosition position =
      getWarpPosition(builder, loc, {kWarpgroupThreads / 32, 1});
  Value lane = position.lane;
  return {math.add(math.mul(position.warpM, 16), math.div(lane, 4)),
          math.mul(math.rem(lane, 4), 2)};
}

/// The warpgroup of the current thread as a group that meets: the thread's
/// place in it (thread x mod 128), its index (thread x / 128), named barrier
/// 1 + index of its 128 threads (0 stays the block's __syncthreads), and
/// whether the thread is its first.
struct WarpgroupBarrier {
  Value thread, index, id, threads, first;

  WarpgroupBarrier(OpBuilder &builder, Location loc) {
    IndexMath math(builder, loc);
    Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
    thread = math.rem(tid, kWarpgroupThreads);
    index = math.div(tid, kWarpgroupThreads);
    id = arith::IndexCastOp::create(builder, loc, builder.getI32Type(),
                                    math.add(index, math.constant(1)));
    threads = arith::ConstantOp::create(
        builder, loc, builder.getI32IntegerAttr(kWarpgroupThreads));
    first = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                  thread, math.constant(0));
  }

  /// `bar.sync id, 128`.
  void sync(OpBuilder &builder, Location loc) const {
    NVVM::BarrierOp::create(builder, loc, TypeRange{}, id, threads,
                            /*reductionOp=*/nullptr,
                            /*reductionPredicate=*/Value());
  }
};

} // namespace mlir::tile

#endif // TILE_LIB_TRANSFORMS_LOWERTILEOPSPATTERNS_H
