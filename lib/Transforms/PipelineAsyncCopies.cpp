//===- PipelineAsyncCopies.cpp - N-stage cp.async rings from K loops ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Seed 002's K_STAGE pipeline, generated: for iteration i of the loop,
//   prologue:  copies of i = 0 .. N-2 into stages 0 .. N-2, one commit each
//   loop i:    wait_group(N-2); barrier; compute on stage i % N;
//              copies of i + N - 1 (if any) into stage (i + N - 1) % N; commit
//   after:     wait_group 0
// The barrier after the wait also orders the previous iteration's reads of
// stage (i - 1) % N = (i + N - 1) % N before the copies that overwrite it.
//===----------------------------------------------------------------------===//

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

/// Points every access of `buffer` under `root` at `ring[stage, ...]`.
LogicalResult retarget(Operation *root, Value buffer, Value ring, Value stage) {
  WalkResult result = root->walk([&](Operation *op) {
    for (OpOperand &use : op->getOpOperands()) {
      if (use.get() != buffer)
        continue;
      std::optional<ElementAccess> access = getElementAccess(use);
      if (!access) {
        op->emitOpError() << "uses the pipelined buffer but cannot take a "
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
  SharedAllocOp buffer;
};

/// Matches the copy / commit / wait / barrier / compute body (T-PIPE-1).
FailureOr<LoopShape> matchLoop(scf::ForOp loop) {
  LoopShape shape;
  Block &body = *loop.getBody();
  auto it = body.begin();
  auto fail = [&](const Twine &message) {
    return loop.emitOpError() << "cannot be pipelined: " << message
                              << " (T-PIPE-1)";
  };
  // The producer: pure ops and cp.async copies into one buffer, also nested
  // in pure control flow (as tile-lower-tile-ops emits for tile.copy).
  std::optional<std::string> problem;
  auto visitProducerOp = [&](Operation *op) {
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      auto alloc = copy.getDst().getDefiningOp<SharedAllocOp>();
      if (!alloc || loop->isAncestor(alloc))
        problem = "its copies must target a tile.shared_alloc buffer defined "
                  "outside the loop";
      else if (shape.buffer && shape.buffer != alloc)
        problem = "its copies target more than one buffer";
      else
        shape.buffer = alloc;
      return;
    }
    bool controlFlow = isa<scf::IfOp, scf::ForOp, scf::YieldOp>(op);
    if (!controlFlow && !isMemoryEffectFree(op))
      problem = "the producer part has '" + op->getName().getStringRef().str() +
                "', which has side effects";
  };
  for (; it != body.end() && !isa<AsyncCommitGroupOp>(&*it); ++it) {
    it->walk([&](Operation *op) { visitProducerOp(op); });
    if (problem)
      return fail(*problem);
    shape.producer.push_back(&*it);
  }
  if (!shape.buffer)
    return fail("expected tile.async_copy ops before the commit");
  if (it == body.end())
    return fail("expected a tile.async_commit_group after the copies");
  ++it;
  auto wait = it != body.end() ? dyn_cast<AsyncWaitGroupOp>(&*it) : nullptr;
  bool waitsAll =
      it != body.end() && (isa<AsyncWaitAllOp>(&*it) || (wait && wait.getPending() == 0));
  if (!waitsAll)
    return fail("expected tile.async_wait_group 0 after the commit");
  ++it;
  if (it == body.end() || !isa<gpu::BarrierOp>(&*it))
    return fail("expected a gpu.barrier after the wait");
  ++it;
  for (; it != body.end() && !isa<scf::YieldOp>(&*it); ++it)
    shape.consumer.push_back(&*it);
  // A trailing barrier only protected the single buffer; the ring's barrier
  // after the wait does that now.
  if (!shape.consumer.empty() && isa<gpu::BarrierOp>(shape.consumer.back()))
    shape.consumer.pop_back();
  for (Operation *user : shape.buffer.getBuffer().getUsers())
    if (!loop->isAncestor(user))
      return fail("its buffer is also used outside the loop");
  return shape;
}

/// Clones the producer for the iteration whose induction value is `iv`,
/// copying into stage `stage` of `ring`.
LogicalResult cloneProducer(OpBuilder &builder, LoopShape &shape,
                            scf::ForOp loop, Value iv, Value ring, Value stage) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  Value buffer = shape.buffer.getBuffer();
  for (Operation *op : shape.producer) {
    Operation *clone = builder.clone(*op, mapping);
    if (failed(retarget(clone, buffer, ring, stage)))
      return failure();
  }
  return success();
}

LogicalResult pipeline(scf::ForOp loop, int64_t stages) {
  if (stages < 2)
    return loop.emitOpError() << "needs at least 2 pipeline stages, got "
                              << stages << " (T-PIPE-1)";
  FailureOr<LoopShape> shape = matchLoop(loop);
  if (failed(shape))
    return failure();
  SharedAllocOp alloc = shape->buffer;
  MemRefType type = alloc.getBuffer().getType();
  int64_t alignment = alloc.getRequiredAlignment();
  if (alloc.getSizeInBytes() % alignment)
    return loop.emitOpError() << "cannot be pipelined: the buffer's "
                              << alloc.getSizeInBytes()
                              << " bytes are not a multiple of its "
                              << alignment
                              << "-byte alignment, so stages would misalign "
                                 "(T-PIPE-1)";
  // The ring: a leading stage dimension, the buffer's attributes.
  OpBuilder builder(alloc);
  SmallVector<int64_t> ringShape = {stages};
  llvm::append_range(ringShape, type.getShape());
  auto ringType = MemRefType::get(ringShape, type.getElementType(),
                                  MemRefLayoutAttrInterface(),
                                  type.getMemorySpace());
  auto ring = cast<SharedAllocOp>(builder.clone(*alloc));
  ring.getBuffer().setType(ringType);
  Value ringValue = ring.getBuffer();

  Location loc = loop.getLoc();
  builder.setInsertionPoint(loop);
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
    Value inRange = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                          iv, ub);
    auto ifOp = scf::IfOp::create(builder, loc, inRange);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    if (failed(cloneProducer(builder, *shape, loop, iv, ringValue, s)))
      return failure();
    builder.setInsertionPointAfter(ifOp);
    AsyncCommitGroupOp::create(builder, loc,
                               AsyncGroupType::get(builder.getContext()));
  }

  // The steady state, in place of the old body.
  Block &body = *loop.getBody();
  Operation *yield = body.getTerminator();
  builder.setInsertionPointToStart(&body);
  Value k = loop.getInductionVar();
  AsyncWaitGroupOp::create(builder, loc, builder.getI32IntegerAttr(stages - 2),
                           ValueRange());
  gpu::BarrierOp::create(builder, loc);
  Value iteration = arith::DivUIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, k, lb), step);
  Value stage = arith::RemUIOp::create(builder, loc, iteration, nStages);
  // The producer's index arithmetic for this iteration, which the consumer
  // may share (unused clones fold away).
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), k);
  for (Operation *op : shape->producer)
    if (isMemoryEffectFree(op))
      builder.clone(*op, mapping);
  for (Operation *op : shape->consumer) {
    Operation *clone = builder.clone(*op, mapping);
    if (failed(retarget(clone, alloc.getBuffer(), ringValue, stage)))
      return failure();
  }
  Value aheadIteration =
      arith::AddIOp::create(builder, loc, iteration, constant(stages - 1));
  Value ahead = arith::AddIOp::create(
      builder, loc, lb, arith::MulIOp::create(builder, loc, aheadIteration, step));
  Value more = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt,
                                     ahead, ub);
  auto ifOp = scf::IfOp::create(builder, loc, more);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value aheadStage =
        arith::RemUIOp::create(builder, loc, aheadIteration, nStages);
    if (failed(cloneProducer(builder, *shape, loop, ahead, ringValue,
                             aheadStage)))
      return failure();
  }
  AsyncCommitGroupOp::create(builder, loc,
                             AsyncGroupType::get(builder.getContext()));
  // Results of the old consumer ops flow on through their clones.
  for (Operation *op : shape->consumer)
    for (auto [old, replacement] :
         llvm::zip(op->getResults(), mapping.lookup(op)->getResults()))
      old.replaceAllUsesWith(replacement);
  // The old body: everything between the new ops and the yield.
  SmallVector<Operation *> dead;
  for (Operation &op : llvm::make_range(Block::iterator(ifOp->getNextNode()->getNextNode()),
                                        Block::iterator(yield)))
    dead.push_back(&op);
  for (Operation *op : llvm::reverse(dead))
    op->erase();

  builder.setInsertionPointAfter(loop);
  AsyncWaitGroupOp::create(builder, loc, builder.getI32IntegerAttr(0),
                           ValueRange());
  loop->removeAttr(kStagesAttr);
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
        loop.emitOpError() << kStagesAttr << " must be an integer (T-PIPE-1)";
        return signalPassFailure();
      }
      if (failed(pipeline(loop, stages.getInt())))
        return signalPassFailure();
    }
  }
};

} // namespace
