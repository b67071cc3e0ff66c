//===- PipelineAsyncCopies.cpp - N-stage cp.async rings from K loops ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The multistage cp.async pipeline (CUTLASS's Ampere mainloop), generated: for
// iteration i of the loop,
//   prologue:  copies of i = 0 .. N-2 into stages 0 .. N-2, one commit each
//   loop i:    wait_group(N-2); barrier; compute on stage i % N;
//              copies of i + N - 1 (if any) into stage (i + N - 1) % N; commit
//   after:     wait_group 0
// The barrier after the wait also orders the previous iteration's reads of
// stage (i - 1) % N = (i + N - 1) % N before the copies that overwrite it.
// A loop whose lower bound or step is a run-time value (a persistent loop
// over rows first, first + ctas, ...) is first normalized to count 0, 1, ...,
// so each stage is a constant-divisor remainder that the protocol checker
// evaluates, with no division by the step left in the loop.
//===----------------------------------------------------------------------===//

#include "FirstThread.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEPIPELINEASYNCCOPIESPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr StringLiteral kStagesAttr = "tile.pipeline_stages";

/// The buffers of a loop and the rings that replace them.
using RingMap = llvm::SmallMapVector<Value, Value, 2>;

/// Points every access under `root` of a buffer in `rings` at
/// `ring[stage, ...]`; TMA copies into it also get the stage's barrier
/// `full[stage]` when `full` is given.
LogicalResult retarget(Operation *root, const RingMap &rings, Value stage,
                       Value full = {}) {
  // Tile-level ops take the tile whole, with indices of its leading
  // dimensions: the stage goes first.
  auto stageTile = [&](OpOperand &tile, MutableOperandRange indices) {
    Value ring = rings.lookup(tile.get());
    if (!ring)
      return false;
    SmallVector<Value> staged = {stage};
    llvm::append_range(staged, OperandRange(indices));
    tile.set(ring);
    indices.assign(staged);
    return true;
  };
  WalkResult result = root->walk([&](Operation *op) {
    if (auto copy = dyn_cast<TmaCopyOp>(op)) {
      if (stageTile(copy.getDstMutable(), copy.getDstIndicesMutable()) &&
          full) {
        copy.getBarriersMutable().assign(full);
        copy.getBarrierIndexMutable().assign(stage);
      }
      return WalkResult::advance();
    }
    if (auto copy = dyn_cast<CopyOp>(op)) {
      if (copy.isLoad())
        stageTile(copy.getDstMutable(), copy.getDstIndicesMutable());
      else
        stageTile(copy.getSrcMutable(), copy.getSrcIndicesMutable());
      return WalkResult::advance();
    }
    if (auto mma = dyn_cast<MmaOp>(op)) {
      stageTile(mma.getAMutable(), mma.getAIndicesMutable());
      stageTile(mma.getBMutable(), mma.getBIndicesMutable());
      return WalkResult::advance();
    }
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      stageTile(mma.getAMutable(), mma.getAIndicesMutable());
      stageTile(mma.getBMutable(), mma.getBIndicesMutable());
      return WalkResult::advance();
    }
    for (OpOperand &use : op->getOpOperands()) {
      Value ring = rings.lookup(use.get());
      if (!ring)
        continue;
      std::optional<ElementAccess> access = getElementAccess(use);
      if (!access) {
        emitConciseOpError(op) << "uses the pipelined buffer but cannot take a "
                                  "stage index (T-PIPE-1)";
        return WalkResult::interrupt();
      }
      SmallVector<Value> staged = {stage};
      llvm::append_range(staged, OperandRange(access->indices));
      access->memref->set(ring);
      access->indices.assign(staged);
      // The operand list changed; an op accesses the buffer through one
      // operand.
      break;
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// The parts of a loop marked for pipelining.
struct LoopShape {
  SmallVector<Operation *> producer, consumer;
  SmallVector<SharedAllocOp> buffers;
  /// The TMA form: the producer's tile.tma_copy ops, which all arrive on one
  /// barrier that the consumer waits on.
  SmallVector<TmaCopyOp> tmaCopies;
  bool isTma() const { return !tmaCopies.empty(); }
};

/// Matches the copy / commit / wait / barrier / compute body (cp.async,
/// T-PIPE-1) or the copy / wait / compute body (TMA, T-PIPE-2).
FailureOr<LoopShape> matchLoop(scf::ForOp loop) {
  LoopShape shape;
  Block &body = *loop.getBody();
  auto it = body.begin();
  bool sawCpAsync = false;
  auto fail = [&](const Twine &message) {
    return emitConciseOpError(loop)
           << "cannot be pipelined: " << message
           << (shape.isTma() ? " (T-PIPE-2)" : " (T-PIPE-1)");
  };
  std::optional<std::string> problem;
  auto addBuffer = [&](Value dst) {
    auto alloc = dst.getDefiningOp<SharedAllocOp>();
    if (!alloc || loop->isAncestor(alloc))
      problem = "its copies must target tile.shared_alloc buffers defined "
                "outside the loop";
    else if (!llvm::is_contained(shape.buffers, alloc))
      shape.buffers.push_back(alloc);
  };
  // The producer: pure ops and copies into shared buffers. cp.async copies
  // may be nested in pure control flow (as tile-lower-tile-ops emits for
  // tile.copy); TMA copies are counted as the full barrier's arrivals, so
  // they stand in the loop body itself.
  auto visitProducerOp = [&](Operation *op, bool topLevel) {
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      sawCpAsync = true;
      return addBuffer(copy.getDst());
    }
    if (auto copy = dyn_cast<CopyOp>(op)) {
      sawCpAsync = true;
      if (!copy.isLoad())
        problem = "its tile.copy writes global memory";
      return addBuffer(copy.getDst());
    }
    if (auto copy = dyn_cast<TmaCopyOp>(op)) {
      if (!topLevel)
        problem = "a tile.tma_copy is nested in control flow, so its "
                  "arrivals cannot be counted";
      else if (!shape.tmaCopies.empty() &&
               !BarrierOpInterface(shape.tmaCopies[0]).namesSameBarrier(copy))
        problem = "its tile.tma_copy ops arrive on different barriers";
      shape.tmaCopies.push_back(copy);
      return addBuffer(copy.getDst());
    }
    bool controlFlow = isa<scf::IfOp, scf::ForOp, scf::YieldOp>(op);
    if (!controlFlow && !isMemoryEffectFree(op))
      problem = "the producer part has '" + op->getName().getStringRef().str() +
                "', which has side effects";
  };
  for (;
       it != body.end() && !isa<AsyncCommitGroupOp, MBarrierWaitParityOp>(&*it);
       ++it) {
    Operation *top = &*it;
    top->walk([&](Operation *op) { visitProducerOp(op, op == top); });
    if (!problem && sawCpAsync && !shape.tmaCopies.empty())
      problem = "it mixes cp.async and TMA copies";
    if (problem)
      return fail(*problem);
    shape.producer.push_back(top);
  }
  if (shape.buffers.empty())
    return fail("expected tile.async_copy or tile.tma_copy ops before the "
                "commit or wait");
  if (shape.isTma()) {
    // TMA: the wait on the copies' barrier, then the consumer.
    auto wait =
        it != body.end() ? dyn_cast<MBarrierWaitParityOp>(&*it) : nullptr;
    if (!wait || !BarrierOpInterface(wait).namesSameBarrier(shape.tmaCopies[0]))
      return fail("expected a tile.mbarrier_wait_parity on the copies' "
                  "barrier after the copies");
    Value barriers = wait.getBarriers();
    if (loop->isAncestor(barriers.getParentBlock()->getParentOp()))
      return fail("the copies' barrier must be defined outside the loop");
    ++it;
  } else {
    if (it == body.end() || !isa<AsyncCommitGroupOp>(&*it))
      return fail("expected a tile.async_commit_group after the copies");
    ++it;
    auto wait = it != body.end() ? dyn_cast<AsyncWaitGroupOp>(&*it) : nullptr;
    bool waitsAll = it != body.end() && (isa<AsyncWaitAllOp>(&*it) ||
                                         (wait && wait.getPending() == 0));
    if (!waitsAll)
      return fail("expected tile.async_wait_group 0 after the commit");
    ++it;
    if (it == body.end() || !isa<gpu::BarrierOp>(&*it))
      return fail("expected a gpu.barrier after the wait");
    ++it;
  }
  for (; it != body.end() && !isa<scf::YieldOp>(&*it); ++it)
    shape.consumer.push_back(&*it);
  // A trailing barrier only protected the single buffer; the ring's barrier
  // after the wait (cp.async) or its empty barriers (TMA) do that now.
  if (!shape.consumer.empty() && isa<gpu::BarrierOp>(shape.consumer.back()))
    shape.consumer.pop_back();
  for (SharedAllocOp buffer : shape.buffers)
    for (Operation *user : buffer.getBuffer().getUsers())
      if (!loop->isAncestor(user))
        return fail("its buffer is also used outside the loop");
  return shape;
}

/// Clones the producer for the iteration whose induction value is `iv`,
/// copying into stage `stage` of the rings (TMA copies arriving on
/// `full[stage]`).
LogicalResult cloneProducer(OpBuilder &builder, LoopShape &shape,
                            scf::ForOp loop, Value iv, const RingMap &rings,
                            Value stage, Value full = {}) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : shape.producer) {
    Operation *clone = builder.clone(*op, mapping);
    if (failed(retarget(clone, rings, stage, full)))
      return failure();
  }
  return success();
}

/// Replaces each buffer with a ring of `stages` copies of it (a leading stage
/// dimension, the buffer's attributes), or fails when stages would misalign.
FailureOr<RingMap> createRings(scf::ForOp loop, LoopShape &shape,
                               int64_t stages) {
  RingMap rings;
  for (SharedAllocOp alloc : shape.buffers) {
    MemRefType type = alloc.getBuffer().getType();
    int64_t alignment = alloc.getRequiredAlignment();
    if (alloc.getSizeInBytes() % alignment)
      return emitConciseOpError(loop)
             << "cannot be pipelined: the buffer's " << alloc.getSizeInBytes()
             << " bytes are not a multiple of its " << alignment
             << "-byte alignment, so stages would misalign (T-PIPE-1)";
    // T-SMEM-4: a static ring stays within a kernel's static shared memory.
    if (!alloc.getDynamic() &&
        stages * alloc.getSizeInBytes() > kMaxStaticSharedMemoryBytes)
      return emitConciseOpError(loop)
             << "cannot be pipelined with " << stages
             << " stages: the ring of a static buffer of "
             << alloc.getSizeInBytes() << " bytes takes "
             << stages * alloc.getSizeInBytes() << ", more than the "
             << kMaxStaticSharedMemoryBytes
             << " bytes (48 KB) of static shared memory a kernel may have; "
                "allocate the buffer with `tile.shared_alloc dynamic` "
                "(T-SMEM-4)";
    OpBuilder builder(alloc);
    SmallVector<int64_t> ringShape = {stages};
    llvm::append_range(ringShape, type.getShape());
    auto ringType =
        MemRefType::get(ringShape, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    auto ring = cast<SharedAllocOp>(builder.clone(*alloc));
    ring.getBuffer().setType(ringType);
    rings.insert({alloc.getBuffer(), ring.getBuffer()});
  }
  return rings;
}

/// Clones the consumer into the insertion point on stage `stage` (with the
/// producer's effect-free ops, whose index arithmetic it may share; unused
/// clones fold away) and forwards the old consumer results to the clones.
LogicalResult cloneConsumer(OpBuilder &builder, LoopShape &shape,
                            scf::ForOp loop, const RingMap &rings,
                            Value stage) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), loop.getInductionVar());
  for (Operation *op : shape.producer)
    if (isMemoryEffectFree(op))
      builder.clone(*op, mapping);
  for (Operation *op : shape.consumer) {
    Operation *clone = builder.clone(*op, mapping);
    if (failed(retarget(clone, rings, stage)))
      return failure();
  }
  for (Operation *op : shape.consumer)
    for (auto [old, replacement] :
         llvm::zip(op->getResults(), mapping.lookup(op)->getResults()))
      old.replaceAllUsesWith(replacement);
  return success();
}

/// Erases the ops of the old body: from `first` up to the terminator.
void eraseOldBody(Operation *first) {
  SmallVector<Operation *> dead;
  for (Operation *op = first; !op->hasTrait<OpTrait::IsTerminator>();
       op = op->getNextNode())
    dead.push_back(op);
  for (Operation *op : llvm::reverse(dead))
    op->erase();
}

/// The cp.async ring (CUTLASS's multistage mainloop): commit per stage,
/// wait_group(N - 2).
LogicalResult pipelineCpAsync(scf::ForOp loop, LoopShape &shape,
                              const RingMap &rings, int64_t stages) {
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value nStages = constant(stages);

  // Prologue: iterations 0 .. N-2, each committed (possibly empty).
  auto prologue = scf::ForOp::create(builder, loc, constant(0),
                                     constant(stages - 1), constant(1));
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(prologue.getBody());
    Value s = prologue.getInductionVar();
    Value iv = arith::AddIOp::create(
        builder, loc, lb, arith::MulIOp::create(builder, loc, s, step));
    Value inRange =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, iv, ub);
    auto ifOp = scf::IfOp::create(builder, loc, inRange);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    if (failed(cloneProducer(builder, shape, loop, iv, rings, s)))
      return failure();
    builder.setInsertionPointAfter(ifOp);
    AsyncCommitGroupOp::create(builder, loc,
                               AsyncGroupType::get(builder.getContext()));
  }

  // The steady state, in place of the old body.
  Block &body = *loop.getBody();
  Operation *oldFirst = &body.front();
  builder.setInsertionPoint(oldFirst);
  Value k = loop.getInductionVar();
  AsyncWaitGroupOp::create(builder, loc, builder.getI32IntegerAttr(stages - 2),
                           ValueRange());
  gpu::BarrierOp::create(builder, loc);
  Value iteration = arith::DivUIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, k, lb), step);
  Value stage = arith::RemUIOp::create(builder, loc, iteration, nStages);
  if (failed(cloneConsumer(builder, shape, loop, rings, stage)))
    return failure();
  Value aheadIteration =
      arith::AddIOp::create(builder, loc, iteration, constant(stages - 1));
  Value ahead = arith::AddIOp::create(
      builder, loc, lb,
      arith::MulIOp::create(builder, loc, aheadIteration, step));
  Value more =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, ahead, ub);
  auto ifOp = scf::IfOp::create(builder, loc, more);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value aheadStage =
        arith::RemUIOp::create(builder, loc, aheadIteration, nStages);
    if (failed(cloneProducer(builder, shape, loop, ahead, rings, aheadStage)))
      return failure();
  }
  AsyncCommitGroupOp::create(builder, loc,
                             AsyncGroupType::get(builder.getContext()));
  eraseOldBody(oldFirst);

  builder.setInsertionPointAfter(loop);
  AsyncWaitGroupOp::create(builder, loc, builder.getI32IntegerAttr(0),
                           ValueRange());
  return success();
}

/// The TMA ring (CUTLASS's PipelineTmaAsync): N stages, each with a full
/// barrier (one arrival per tile.tma_copy, plus the bytes) and an empty
/// barrier (one arrival per thread once it has consumed the stage). The
/// consumer state (stage, phase) is carried by the loop; the producer state
/// of the tile N - 1 iterations ahead is derived from it: stage - 1 mod N,
/// and on wrapping (stage 0) the other phase. The producer waits on the empty
/// barrier before refilling; on a stage's first use it waits for phase
/// parity 1, which a fresh barrier reports as complete.
LogicalResult pipelineTma(scf::ForOp loop, LoopShape &shape,
                          const RingMap &rings, int64_t stages) {
  auto kernel = loop->getParentOfType<gpu::GPUFuncOp>();
  std::optional<int64_t> threads =
      kernel ? getBlockThreads(kernel) : std::nullopt;
  if (!threads)
    return emitConciseOpError(loop)
           << "cannot be pipelined: the TMA ring counts one release per "
              "thread, so the kernel needs known_block_size (T-PIPE-2)";
  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  OpBuilder builder(loop);
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  auto i32 = [&](int64_t value) -> Value {
    return arith::ConstantIntOp::create(builder, loc, value, 32);
  };
  auto barrierType = MBarrierType::get(context, stages);
  Value full = MBarrierAllocOp::create(builder, loc, barrierType);
  Value empty = MBarrierAllocOp::create(builder, loc, barrierType);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value zero = constant(0), one = constant(1), nStages = constant(stages);

  // Barrier initialization by thread 0, visible to the block.
  {
    OpBuilder::InsertionGuard guard(builder);
    auto ifOp = scf::IfOp::create(builder, loc, isFirstThread(builder, loc));
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    auto init = scf::ForOp::create(builder, loc, zero, nStages, one);
    builder.setInsertionPointToStart(init.getBody());
    Value s = init.getInductionVar();
    MBarrierInitOp::create(builder, loc, full, s, i32(shape.tmaCopies.size()),
                           Value());
    MBarrierInitOp::create(builder, loc, empty, s, i32(*threads), Value());
  }
  gpu::BarrierOp::create(builder, loc);

  // Prologue: iterations 0 .. N-2 into stages 0 .. N-2 (first use: no wait).
  auto prologue =
      scf::ForOp::create(builder, loc, zero, constant(stages - 1), one);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(prologue.getBody());
    Value s = prologue.getInductionVar();
    Value iv = arith::AddIOp::create(
        builder, loc, lb, arith::MulIOp::create(builder, loc, s, step));
    Value inRange =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, iv, ub);
    auto ifOp = scf::IfOp::create(builder, loc, inRange);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    if (failed(cloneProducer(builder, shape, loop, iv, rings, s, full)))
      return failure();
  }

  // The loop carries the consumer state (stage, phase).
  Value phase0 = arith::ConstantIntOp::create(builder, loc, 0, 1);
  IRRewriter rewriter(builder);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{zero, phase0},
      /*replaceInitOperandUsesInLoop=*/false,
      [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
        return SmallVector<Value>(args.begin(), args.end());
      });
  if (failed(replaced))
    return emitConciseOpError(loop)
           << "cannot be pipelined: cannot extend the loop";
  loop = cast<scf::ForOp>(replaced->getOperation());
  Block &body = *loop.getBody();
  unsigned numArgs = body.getNumArguments();
  Value stage = body.getArgument(numArgs - 2);
  Value phase = body.getArgument(numArgs - 1);
  Operation *oldFirst = &body.front();
  builder.setInsertionPoint(oldFirst);

  // Refill the stage consumed in the previous iteration with the tile
  // N - 1 iterations ahead, once every thread has released it.
  Value k = loop.getInductionVar();
  Value ahead = arith::AddIOp::create(
      builder, loc, k,
      arith::MulIOp::create(builder, loc, step, constant(stages - 1)));
  Value more =
      arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, ahead, ub);
  auto refill = scf::IfOp::create(builder, loc, more);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&refill.getThenRegion().front());
    Value wraps = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        stage, zero);
    Value previous = arith::SelectOp::create(
        builder, loc, wraps, constant(stages - 1),
        arith::SubIOp::create(builder, loc, stage, one));
    Value emptyPhase = arith::XOrIOp::create(builder, loc, phase, wraps);
    auto producer =
        scf::IfOp::create(builder, loc, isFirstThread(builder, loc));
    builder.setInsertionPointToStart(&producer.getThenRegion().front());
    MBarrierWaitParityOp::create(builder, loc, empty, previous, emptyPhase);
    builder.setInsertionPointAfter(producer);
    if (failed(
            cloneProducer(builder, shape, loop, ahead, rings, previous, full)))
      return failure();
  }
  // Consume the current stage, then release it.
  MBarrierWaitParityOp::create(builder, loc, full, stage, phase);
  if (failed(cloneConsumer(builder, shape, loop, rings, stage)))
    return failure();
  MBarrierArriveOp::create(builder, loc, MBarrierTokenType::get(context), empty,
                           stage, Value());
  // Advance the state.
  Value next = arith::AddIOp::create(builder, loc, stage, one);
  Value wrapped = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                        next, nStages);
  Value nextStage = arith::SelectOp::create(builder, loc, wrapped, zero, next);
  Value nextPhase = arith::XOrIOp::create(builder, loc, phase, wrapped);
  Operation *yield = body.getTerminator();
  yield->setOperand(yield->getNumOperands() - 2, nextStage);
  yield->setOperand(yield->getNumOperands() - 1, nextPhase);
  eraseOldBody(oldFirst);
  return success();
}

/// Rewrites `loop` in place to count its iterations 0, 1, ... up to
/// ceil((ub - lb) / step), the original induction value lb + i * step
/// computed at the top of the body, when its lower bound or step is not a
/// constant. (Upstream's emitNormalizedLoopBounds lives in a header that
/// declares a function `mlir::tile`, which clashes with this namespace.)
void normalizeDynamicLoop(scf::ForOp loop) {
  Value lb = loop.getLowerBound(), step = loop.getStep();
  if (getConstantIntValue(lb) && getConstantIntValue(step))
    return;
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  Value span = arith::SubIOp::create(builder, loc, loop.getUpperBound(), lb);
  Value count = arith::CeilDivSIOp::create(builder, loc, span, step);
  loop.setUpperBound(count);
  loop.setLowerBound(arith::ConstantIndexOp::create(builder, loc, 0));
  loop.setStep(arith::ConstantIndexOp::create(builder, loc, 1));
  Value i = loop.getInductionVar();
  builder.setInsertionPointToStart(loop.getBody());
  auto scaled = arith::MulIOp::create(builder, loc, i, step);
  Value iv = arith::AddIOp::create(builder, loc, lb, scaled);
  i.replaceAllUsesExcept(iv, scaled);
}

LogicalResult pipeline(scf::ForOp loop, int64_t stages) {
  if (stages < 2)
    return emitConciseOpError(loop) << "needs at least 2 pipeline stages, got "
                                    << stages << " (T-PIPE-1)";
  if (!loop.getInductionVar().getType().isIndex())
    return emitConciseOpError(loop)
           << "pipelines loops over `index` values, got an induction variable "
              "of type "
           << loop.getInductionVar().getType()
           << "; cast the bounds with arith.index_cast (T-PIPE-1)";
  normalizeDynamicLoop(loop);
  FailureOr<LoopShape> shape = matchLoop(loop);
  if (failed(shape))
    return failure();
  FailureOr<RingMap> rings = createRings(loop, *shape, stages);
  if (failed(rings))
    return failure();
  loop->removeAttr(kStagesAttr);
  if (failed(shape->isTma() ? pipelineTma(loop, *shape, *rings, stages)
                            : pipelineCpAsync(loop, *shape, *rings, stages)))
    return failure();
  for (SharedAllocOp alloc : shape->buffers)
    alloc.erase();
  return success();
}

struct TilePipelineAsyncCopiesPass
    : tile::impl::TilePipelineAsyncCopiesPassBase<TilePipelineAsyncCopiesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kStagesAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      auto stages = loop->getAttrOfType<IntegerAttr>(kStagesAttr);
      if (!stages) {
        emitConciseOpError(loop)
            << kStagesAttr << " must be an integer (T-PIPE-1)";
        return signalPassFailure();
      }
      if (failed(pipeline(loop, stages.getInt())))
        return signalPassFailure();
    }
  }
};

} // namespace
