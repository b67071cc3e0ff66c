//===- RoleInterpreter.cpp - One role of a kernel as a trace of events ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Interprets one role of a kernel (as its first thread) into a trace of
// barrier events:
//
//  - Values. Loops run iteration by iteration with their iter_args (stage
//    counters, phase bits), scf.if takes the branch its condition selects.
//    Values a kernel cannot know statically (scalar arguments, memref sizes
//    and strides, loaded data) take one sample value, the same in every
//    role, so that loops all roles bound by the same expression run equally
//    often. Block ids are 0 and the grid is KernelFacts::gridBlocks CTAs.
//    tile.warp_specialize runs its producer region in warpgroup 0 and
//    consumer i in warpgroup i + 1.
//  - Barrier events. What an op does to its barrier comes from
//    BarrierOpInterface; an op issued once (tile.tma_copy, say) acts in
//    thread 0 only.
//  - Stages. A buffer that TMA or bulk copies fill is a ring when every copy
//    fills one whole stage named by its leading indices (see getSharedCopy);
//    else it is one stage. Reads of it (memref/vector loads, ldmatrix via
//    getElementAccess; wgmma operands until a wgmma wait retires them) are
//    events on the stage they read; through a memref.reinterpret_cast of a
//    ring that bulk copies fill row by row, the row of the view's offset.
//    In a kernel whose cp.async copies complete on mbarriers, a copy into a
//    filled buffer is an event on its stage, and the thread's next cp.async
//    arrive an event binding its copies to that barrier's phase.
//  - Bulk stores. A buffer TMA stores (or reduces, or bulk copies) read is
//    staged in tiles named by the stores' leading indices; the stores'
//    reads, their bulk commits and waits, and the generic writes and
//    stmatrix of those tiles are events.
//  - Aligned collectives (getAlignedCollective) are events too: the
//    simulation makes the roles sharing their warps pass them together.
//
// Kernels with constructs the model does not follow (barrier indices or
// loop bounds it cannot evaluate, scf.while, try/test waits, traces over
// kMaxEvents) make the interpretation give up, with the reason.
//===----------------------------------------------------------------------===//

#include "IndexEvaluation.h"
#include "ProtocolAnalyses.h"
#include "RoleProtocol.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::role_protocol;

namespace {

/// Iterations of one loop, and events of one role's trace, beyond which the
/// kernel is not modeled.
constexpr int64_t kMaxTrip = 4096;
constexpr size_t kMaxEvents = 200000;
/// Ops interpreted per role (nested loops of arithmetic).
constexpr int64_t kMaxSteps = 2000000;

/// Interprets one role of a kernel for one sample into its trace.
class RoleInterpreter {
public:
  RoleInterpreter(const KernelFacts &facts, int64_t thread, int64_t sample,
                  Role &role)
      : facts(facts), thread(thread), sample(sample), role(role) {}

  /// False when the kernel uses a construct the model does not follow;
  /// `reason` says which.
  bool run() {
    gpu::GPUFuncOp kernel = facts.kernel;
    visitBlock(kernel.getBody().front());
    return modeled;
  }

  std::string reason;

  /// The value of `value` in `thread`, from thread ids alone (no samples).
  static std::optional<int64_t> threadValue(const KernelFacts &facts,
                                            int64_t thread, Value value) {
    return evaluateIndex(value,
                         [&](Value v) { return threadLeaf(facts, thread, v); });
  }

private:
  const KernelFacts &facts;
  int64_t thread;
  int64_t sample;
  Role &role;
  llvm::DenseMap<Value, int64_t> values;
  /// sameInWarpgroup of each load's indices, once per load (it evaluates
  /// them from thread ids alone, so no iteration changes it).
  llvm::DenseMap<Operation *, bool> uniformLoads;
  bool modeled = true;

  void giveUp(Operation *op, StringRef why) {
    if (!modeled)
      return;
    modeled = false;
    std::string location;
    llvm::raw_string_ostream os(location);
    op->getLoc().print(os);
    reason =
        (why + " (" + op->getName().getStringRef() + " at " + location + ")")
            .str();
  }

  static std::optional<int64_t> threadLeaf(const KernelFacts &facts,
                                           int64_t thread, Value v) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return std::nullopt;
    int64_t x = facts.blockDims[0], y = facts.blockDims[1];
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(def)) {
      switch (tid.getDimension()) {
      case gpu::Dimension::x:
        return thread % x;
      case gpu::Dimension::y:
        return thread / x % y;
      case gpu::Dimension::z:
        return thread / (x * y);
      }
    }
    if (auto dim = dyn_cast<gpu::BlockDimOp>(def))
      return facts.blockDims[static_cast<int>(dim.getDimension())];
    if (isa<gpu::LaneIdOp>(def))
      return thread % 32;
    if (isa<gpu::SubgroupIdOp>(def))
      return thread / 32;
    if (isa<gpu::SubgroupSizeOp>(def))
      return 32;
    if (isa<gpu::NumSubgroupsOp>(def))
      return (facts.blockDims[0] * facts.blockDims[1] * facts.blockDims[2] +
              31) /
             32;
    if (isa<ElectSyncOp>(def))
      return thread % 32 == 0;
    return std::nullopt;
  }

  /// Whether sample values may stand for unknown ones (not for counts).
  bool samplesAllowed = true;

  std::optional<int64_t> sampled() {
    return samplesAllowed ? std::optional<int64_t>(sample) : std::nullopt;
  }

  std::optional<int64_t> leaf(Value v) {
    if (auto it = values.find(v); it != values.end())
      return it->second;
    if (std::optional<int64_t> known = threadLeaf(facts, thread, v))
      return known;
    if (!v.getType().isIntOrIndex())
      return std::nullopt;
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner()->isEntryBlock() &&
                     arg.getOwner()->getParentOp() == facts.kernel
                 ? sampled()
                 : std::nullopt;
    Operation *def = v.getDefiningOp();
    if (isa<gpu::BlockIdOp, gpu::ClusterIdOp, gpu::ClusterBlockIdOp,
            ClusterCtaRankOp>(def))
      return 0;
    if (auto grid = dyn_cast<gpu::GridDimOp>(def))
      return grid.getDimension() == gpu::Dimension::x ? facts.gridBlocks : 1;
    if (isa<ClusterSizeOp>(def))
      return facts.clusterSize;
    // Loaded data: sample - 1, so that a loaded flag is false in one
    // sample and true in the others (tile.split_k_reduce's "last": the
    // CTA that sums and the ones that do not). From an address that
    // depends on the thread only if all threads of the warpgroup read the
    // same word (that flag is the warpgroup's); else unknown.
    if (auto load = dyn_cast<memref::LoadOp>(def)) {
      std::optional<int64_t> value = sampled();
      auto [it, inserted] = uniformLoads.try_emplace(load, false);
      if (inserted)
        it->second = sameInWarpgroup(load.getIndices());
      if (!value || !it->second)
        return std::nullopt;
      return *value - 1;
    }
    // Sizes, strides, ...: anything but arithmetic, and never a value
    // computed from the thread id (its threads would all get the sample).
    if (!isa<arith::ArithDialect>(def->getDialect()) && !isScheduleOp(def) &&
        !dependsOnThreadId(def))
      return sampled();
    return std::nullopt;
  }

  std::optional<int64_t> evaluate(Value value) {
    return evaluateIndex(value, [&](Value v) { return leaf(v); });
  }

  /// Whether every index that depends on the thread id takes one value in
  /// all threads of this thread's warpgroup.
  bool sameInWarpgroup(ValueRange indices) const {
    int64_t threads =
        facts.blockDims[0] * facts.blockDims[1] * facts.blockDims[2];
    int64_t begin = thread / kWarpgroupThreads * kWarpgroupThreads;
    int64_t end = std::min(threads, begin + kWarpgroupThreads);
    return llvm::all_of(indices, [&](Value index) {
      Operation *def = index.getDefiningOp();
      if (!def || !dependsOnThreadId(def))
        return true;
      std::optional<int64_t> first = threadValue(facts, begin, index);
      if (!first)
        return false;
      for (int64_t t = begin + 1; t < end; ++t)
        if (threadValue(facts, t, index) != first)
          return false;
      return true;
    });
  }

  /// The value of `value`, or gives up on the kernel.
  int64_t require(Value value) {
    std::optional<int64_t> known = evaluate(value);
    if (!known)
      giveUp(current, "a value it cannot evaluate");
    else if (*known > kMaxAmount || *known < -kMaxAmount)
      giveUp(current, "a value too large to follow");
    return modeled ? *known : 0;
  }

  /// The value of an arrival count, a byte count or a multicast mask: a
  /// sample would be no plausible count (200 arrivals from 128 threads), so
  /// a count the kernel only knows at run time is not followed.
  int64_t requireCount(Value value) {
    samplesAllowed = false;
    std::optional<int64_t> known = evaluate(value);
    samplesAllowed = true;
    if (!known && modeled && evaluate(value))
      giveUp(current, "a count known only at run time");
    return require(value);
  }

  void bind(Value value, std::optional<int64_t> known) {
    if (known)
      values[value] = *known;
    else
      values.erase(value);
  }

  SmallVector<std::optional<int64_t>> evaluateAll(ValueRange range) {
    return llvm::map_to_vector(range, [&](Value v) { return evaluate(v); });
  }

  void emit(Event event) {
    if (role.trace.size() >= kMaxEvents)
      giveUp(event.op, "too many events");
    else
      role.trace.push_back(event);
  }

  BarrierId barrier(Value group, Value index) {
    return {group.getAsOpaquePointer(), require(index)};
  }

  /// The stage `memref[indices]` is in, for `buffers` (root buffer -> the
  /// leading indices that name a stage, 0: one stage). Accesses through a
  /// view of a ring name no stage (not checked), but for a
  /// memref.reinterpret_cast of a ring whose stages bulk copies fill
  /// (viewStage).
  std::optional<Stage> stageIn(const llvm::DenseMap<void *, unsigned> &buffers,
                               Value memref, ValueRange indices) {
    Value root = getRootBuffer(memref);
    auto it = buffers.find(root.getAsOpaquePointer());
    if (it == buffers.end())
      return std::nullopt;
    Stage stage{root.getAsOpaquePointer(), {}};
    if (it->second == 0)
      return stage;
    if (memref != root) {
      std::optional<int64_t> index = viewStage(memref, root, it->second);
      if (!index)
        return std::nullopt;
      stage.second.push_back(*index);
      stage.second.append(it->second - 1, 0);
      return stage;
    }
    if (indices.size() < it->second)
      return std::nullopt;
    for (Value index : indices.take_front(it->second))
      stage.second.push_back(require(index));
    return stage;
  }

  /// The stage of a ring that bulk copies fill row by row (`ringIndices`
  /// = its rank: a stage is one row of its first dimension, the copies'
  /// other indices 0) that a memref.reinterpret_cast `memref` of it lies
  /// in: the row of its offset, when every element the view spans (static
  /// sizes and non-negative strides, a broadcast's zero stride included)
  /// is in that row.
  std::optional<int64_t> viewStage(Value memref, Value root,
                                   unsigned ringIndices) {
    auto view = memref.getDefiningOp<memref::ReinterpretCastOp>();
    auto rootType = dyn_cast<MemRefType>(root.getType());
    if (!view || view.getSource() != root || !rootType ||
        !rootType.hasStaticShape() ||
        static_cast<int64_t>(ringIndices) != rootType.getRank())
      return std::nullopt;
    int64_t row = rootType.getNumElements() / rootType.getDimSize(0);
    int64_t span = 0;
    for (auto [size, stride] :
         llvm::zip(view.getStaticSizes(), view.getStaticStrides())) {
      if (ShapedType::isDynamic(size) || ShapedType::isDynamic(stride) ||
          stride < 0)
        return std::nullopt;
      if (size > 0)
        span += (size - 1) * stride;
    }
    OpFoldResult offset = view.getMixedOffsets().front();
    int64_t start = isa<Attribute>(offset) ? *getConstantIntValue(offset)
                                           : require(cast<Value>(offset));
    if (!modeled || start < 0 || row <= 0 ||
        (start + span) / row != start / row)
      return std::nullopt;
    return start / row;
  }

  /// The stage `memref[indices]` is in, for buffers copies fill.
  std::optional<Stage> stageOf(Value memref, ValueRange indices) {
    return stageIn(facts.filledBuffers, memref, indices);
  }

  /// The tile `memref[indices]` is in, for buffers bulk stores read.
  std::optional<Stage> storedTileOf(Value memref, ValueRange indices) {
    return stageIn(facts.storedBuffers, memref, indices);
  }

  /// The stage `memref[indices]` is in, for buffers roles exchange.
  std::optional<Stage> exchangedStageOf(Value memref, ValueRange indices) {
    return stageIn(facts.exchangedBuffers, memref, indices);
  }

  /// A wgmma's (async) or a load's read of an exchanged stage.
  void emitExchangeRead(Operation *op, Value memref, ValueRange indices,
                        bool async) {
    if (std::optional<Stage> stage = exchangedStageOf(memref, indices))
      emit({EventKind::ExchangeRead, op, {}, async ? 1 : 0, stage});
  }

  /// A named barrier, followed as a barrier between roles: it orders
  /// exchanged buffers' accesses and hands on the mbarrier phases its
  /// arriving roles saw.
  template <typename NamedBarrierOp>
  void emitNamedBarrier(NamedBarrierOp op, EventKind kind) {
    emit({kind, op, {nullptr, require(op.getId())}, int64_t(op.getThreads())});
  }

  void visitBlock(Block &block) {
    for (Operation &op : block) {
      if (!modeled)
        return;
      visit(&op);
    }
  }

  void visitFor(scf::ForOp forOp) {
    int64_t lb = require(forOp.getLowerBound());
    int64_t ub = require(forOp.getUpperBound());
    int64_t step = require(forOp.getStep());
    if (modeled && (step <= 0 || (ub - lb) / step > kMaxTrip))
      giveUp(forOp, "a loop of more than kMaxTrip iterations");
    if (!modeled)
      return;
    SmallVector<std::optional<int64_t>> carried =
        evaluateAll(forOp.getInitArgs());
    for (int64_t i = lb; i < ub && modeled; i += step) {
      current = forOp;
      values[forOp.getInductionVar()] = i;
      for (auto [arg, value] : llvm::zip(forOp.getRegionIterArgs(), carried))
        bind(arg, value);
      visitBlock(*forOp.getBody());
      carried = evaluateAll(forOp.getBody()->getTerminator()->getOperands());
    }
    for (auto [result, value] : llvm::zip(forOp.getResults(), carried))
      bind(result, value);
  }

  void visitIf(scf::IfOp ifOp) {
    int64_t condition = require(ifOp.getCondition());
    if (!modeled)
      return;
    Region &taken = condition ? ifOp.getThenRegion() : ifOp.getElseRegion();
    if (taken.empty())
      return;
    visitBlock(taken.front());
    for (auto [result, yielded] : llvm::zip(
             ifOp.getResults(), taken.front().getTerminator()->getOperands()))
      bind(result, evaluate(yielded));
  }

  void visitWarpSpecialize(WarpSpecializeOp op) {
    int64_t warpgroup = thread / 128;
    if (warpgroup == 0)
      return visitBlock(op.getProducer().front());
    if (warpgroup > static_cast<int64_t>(op.getConsumers()))
      return;
    Block &consumer = op.getConsumer().front();
    if (consumer.getNumArguments() == 1)
      values[consumer.getArgument(0)] = warpgroup - 1;
    visitBlock(consumer);
  }

  int64_t requireCount(OpFoldResult count) {
    if (auto value = dyn_cast<Value>(count))
      return requireCount(value);
    return getConstantIntValue(count).value_or(0);
  }

  /// The multicast mask of a copy into this CTA, if it has one.
  static Value getMulticastMask(Operation *op) {
    if (auto load = dyn_cast<TmaLoadOp>(op))
      return load.getMulticastMask();
    if (auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(op))
      return bulk.getMulticastMask();
    return nullptr;
  }

  /// The stage a copy into this CTA's shared memory writes.
  std::optional<Stage> getCopyStage(Operation *op) {
    if (std::optional<SharedCopy> copy = getSharedCopy(op))
      return stageOf(copy->dst, copy->dstIndices);
    return std::nullopt;
  }

  /// The events of an op on a barrier, from what BarrierOpInterface says it
  /// does: init, inval, a parity wait, expected bytes, arrivals, completed
  /// bytes (with the stage a copy writes). Clusters are symmetric: a remote
  /// arrive of a peer arrives here, a multicast copy delivers its bytes once
  /// per CTA of its mask.
  void visitBarrierOp(BarrierOpInterface op) {
    Operation *raw = op.getOperation();
    // One elected thread, thread 0, acts for the executing threads.
    bool once = op.isIssuedOnce();
    if (once && thread != 0)
      return;
    BarrierId id = barrier(op.getBarrierGroup(), op.getBarrierIndex());
    // A cp.async arrive: the thread's copies since its last one complete on
    // this barrier.
    if (isa<AsyncCopyMBarrierArriveOp>(raw)) {
      emit({EventKind::Gathered, raw, id});
      gathered.clear();
    }
    if (Value count = op.getInitCount())
      return emit({EventKind::Init, raw, id, requireCount(count)});
    if (op.isInval())
      return emit({EventKind::Inval, raw, id});
    if (op.isWait()) {
      // Try and test waits return a flag a loop decides on: not followed.
      if (!isa<MBarrierWaitParityOp>(raw))
        return giveUp(raw, "a try/test wait (the loop around it decides)");
      return emit({EventKind::Wait, raw, id, require(op.getWaitParity())});
    }
    if (int64_t bytes = requireCount(op.getExpectedTxBytes()))
      emit({EventKind::ExpectTx, raw, id, bytes, std::nullopt, !once});
    if (int64_t arrivals = requireCount(op.getArrivalCount()))
      emit({isa<MBarrierArriveDropOp>(raw) ? EventKind::ArriveDrop
                                           : EventKind::Arrive,
            raw, id, arrivals, std::nullopt, !once});
    if (int64_t bytes = requireCount(op.getCompletedTxBytes())) {
      if (Value mask = getMulticastMask(raw))
        bytes *= llvm::popcount(static_cast<uint16_t>(requireCount(mask)));
      emit({EventKind::Deliver, raw, id, bytes, getCopyStage(raw), !once});
    }
  }

  /// The op being interpreted, for the reason of giving up.
  Operation *current = nullptr;

  int64_t steps = 0;

  void visit(Operation *op) {
    current = op;
    if (++steps > kMaxSteps)
      return giveUp(op, "too many steps");
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return visitFor(forOp);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return visitIf(ifOp);
    if (auto ws = dyn_cast<WarpSpecializeOp>(op))
      return visitWarpSpecialize(ws);
    if (op->getNumRegions() != 0) {
      if (involvesProtocol(op))
        giveUp(op, "a region op it does not follow");
      return;
    }
    if (auto barrierOp = dyn_cast<BarrierOpInterface>(op))
      return visitBarrierOp(barrierOp);
    // A wgmma reads the tiles its descriptors address when it is issued
    // (building a descriptor only computes an address).
    // An MN-major descriptor's tile spans `extent` (M or N) in chunks of
    // one span each. (A K-major one reads its own chunk: each K step has
    // its descriptor; B rows that continue over the chunk dimension are
    // the halves a cluster multicasts, which this CTA's copies do not
    // fill, so the first stands for both.)
    SmallVector<std::pair<Value, int64_t>, 2> descriptors;
    if (auto wgmma = dyn_cast<WgmmaOp>(op))
      descriptors = {{wgmma.getDescA(), 64}, {wgmma.getDescB(), wgmma.getN()}};
    else if (auto wgmma = dyn_cast<WgmmaRsOp>(op))
      descriptors = {{wgmma.getDescB(), wgmma.getN()}};
    for (auto [descriptor, extent] : descriptors)
      if (auto tile = descriptor.getDefiningOp<WgmmaDescriptorOp>()) {
        int64_t span = tile.getBuffer().getType().getShape().back();
        emitChunkReads(op, tile.getBuffer(), tile.getIndices(),
                       tile.getMnMajor() ? llvm::divideCeil(extent, span) : 1);
        emitExchangeRead(op, tile.getBuffer(), tile.getIndices(),
                         /*async=*/true);
      }
    if (auto sync = dyn_cast<NamedBarrierSyncOp>(op))
      emitNamedBarrier(sync, EventKind::NamedSync);
    if (auto arrive = dyn_cast<NamedBarrierArriveOp>(op))
      emitNamedBarrier(arrive, EventKind::NamedArrive);
    visitEffects(op);
    // Aligned collectives: the warp's or warpgroup's threads pass them
    // together (after their effects: a wgmma wait retires in all threads).
    if (std::optional<AlignedCollective> aligned = getAlignedCollective(op))
      emit({EventKind::Collective, op, {}, aligned->warps});
  }

  /// Async reads of the tile at `buffer[indices]` that covers `chunks`
  /// entries of the dimension before its last two (a tile's MN-major
  /// chunks, K-major rows or K spans that continue there) and `groups`
  /// entries of the one before that (a B of row groups, T-WGMMA-6), each its
  /// own stage where a ring's stages name those dimensions.
  void emitChunkReads(Operation *op, Value buffer, ValueRange indices,
                      int64_t chunks, int64_t groups = 1) {
    std::optional<Stage> stage = stageOf(buffer, indices);
    if (!stage)
      return;
    size_t rank = indices.size();
    size_t chunkDim = rank >= 3 ? rank - 3 : rank;
    size_t groupDim = rank >= 4 ? rank - 4 : rank;
    auto entries = [&](size_t dim, int64_t count) {
      return dim < stage->second.size() ? count : int64_t(1);
    };
    for (int64_t g = 0; g < entries(groupDim, groups); ++g)
      for (int64_t c = 0; c < entries(chunkDim, chunks); ++c) {
        Stage read = *stage;
        if (groupDim < read.second.size())
          read.second[groupDim] += g;
        if (chunkDim < read.second.size())
          read.second[chunkDim] += c;
        emit({EventKind::AsyncRead, op, {}, 0, read});
      }
  }

  /// Reads of a warpgroup MMA's B of row groups: N x K (K-major: N rows, K
  /// over the chunks) or with transpose_b K x N (K rows, N over them).
  template <typename MmaLikeOp>
  void emitRowGroupReads(MmaLikeOp mma) {
    ArrayRef<int64_t> shape = mma.getShape();
    int64_t span = mma.getB().getType().getShape().back();
    bool mnMajor = mma.getTransposeB();
    int64_t rows = mnMajor ? shape[2] : shape[1];
    int64_t chunks = llvm::divideCeil(mnMajor ? shape[1] : shape[2], span);
    int64_t groupRows = mma.getB().getType().getShape().take_back(2)[0];
    emitChunkReads(mma.getOperation(), mma.getB(), mma.getBIndices(), chunks,
                   llvm::divideCeil(rows, groupRows));
  }

  /// Reads of the A and B tiles of a tile-level MMA.
  template <typename MmaLikeOp>
  void emitOperandReads(MmaLikeOp mma, EventKind kind) {
    for (auto [buffer, indices] : {std::pair(mma.getA(), mma.getAIndices()),
                                   std::pair(mma.getB(), mma.getBIndices())})
      if (std::optional<Stage> stage = stageOf(buffer, indices))
        emit({kind, mma.getOperation(), {}, 0, stage});
  }

  /// The stages of filled buffers that the thread's cp.async copies wrote
  /// since its last cp.async arrive.
  std::set<Stage> gathered;

  /// The events of a wgmma, copy or shared read op.
  void visitEffects(Operation *op) {
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      if (std::optional<Stage> stage =
              stageOf(copy.getDst(), copy.getDstIndices()))
        if (gathered.insert(*stage).second)
          emit({EventKind::Gather, op, {}, 0, stage});
      return;
    }
    if (isa<WgmmaCommitGroupOp>(op))
      return emit({EventKind::AsyncCommit, op});
    if (auto wait = dyn_cast<WgmmaWaitGroupOp>(op))
      return emit({EventKind::AsyncWait, op, {}, wait.getPending()});
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      if (mma.getBRowGroups()) {
        if (std::optional<Stage> stage = stageOf(mma.getA(), mma.getAIndices()))
          emit({EventKind::AsyncRead, op, {}, 0, stage});
        emitRowGroupReads(mma);
      } else {
        emitOperandReads(mma, EventKind::AsyncRead);
      }
      emitExchangeRead(op, mma.getA(), mma.getAIndices(), /*async=*/true);
      emitExchangeRead(op, mma.getB(), mma.getBIndices(), /*async=*/true);
      emit({EventKind::AsyncCommit, op});
      return emit({EventKind::AsyncWait, op, {}, mma.getWait()});
    }
    if (auto mma = dyn_cast<WarpgroupMmaRsOp>(op)) {
      // B's N (MN-major) or K (K-major) over chunks of one span.
      int64_t span = mma.getB().getType().getShape().back();
      int64_t chunks =
          llvm::divideCeil(mma.getShape()[mma.getTransposeB() ? 1 : 2], span);
      if (mma.getBRowGroups())
        emitRowGroupReads(mma);
      else
        emitChunkReads(op, mma.getB(), mma.getBIndices(), chunks);
      emitExchangeRead(op, mma.getB(), mma.getBIndices(), /*async=*/true);
      emit({EventKind::AsyncCommit, op});
      return emit({EventKind::AsyncWait, op, {}, mma.getWait()});
    }
    if (auto mma = dyn_cast<MmaOp>(op))
      return emitOperandReads(mma, EventKind::Read);
    if (isa<gpu::BarrierOp, ClusterWaitOp>(op))
      return emit({EventKind::Sync, op});
    if (auto store = dyn_cast<WarpgroupMmaStoreOp>(op)) {
      if (std::optional<Stage> stage =
              exchangedStageOf(store.getDst(), store.getIndices()))
        emit({EventKind::ExchangeWrite, op, {}, 0, stage});
      return;
    }
    // Bulk stores read their tile until a bulk wait retires their group.
    if (std::optional<BulkStoreSource> source = getBulkStoreSource(op)) {
      if (std::optional<Stage> tile =
              storedTileOf(source->src, source->indices))
        emit({EventKind::BulkRead, op, {}, 0, tile});
      return;
    }
    if (isa<BulkCommitGroupOp>(op))
      return emit({EventKind::BulkCommit, op});
    if (auto wait = dyn_cast<BulkWaitGroupOp>(op))
      return emit({EventKind::BulkWait, op, {}, wait.getPending()});
    // Generic reads (memref/vector loads, ldmatrix) of filled stages, and
    // writes (stores, stmatrix) of the tiles bulk stores read.
    for (OpOperand &use : op->getOpOperands()) {
      std::optional<ElementAccess> access = getElementAccess(use);
      if (!access)
        continue;
      Value memref = access->memref->get();
      OperandRange indices(access->indices);
      if (!access->writes) {
        if (std::optional<Stage> stage = stageOf(memref, indices))
          emit({EventKind::Read, op, {}, 0, stage});
        emitExchangeRead(op, memref, indices, /*async=*/false);
      } else if (!isa<AsyncCopyOp>(op)) {
        if (std::optional<Stage> tile = storedTileOf(memref, indices))
          emit({EventKind::Write, op, {}, 0, tile});
        if (std::optional<Stage> stage = exchangedStageOf(memref, indices))
          emit({EventKind::ExchangeWrite, op, {}, 0, stage});
      }
    }
  }
};

} // namespace

std::optional<int64_t> role_protocol::evaluateInThread(const KernelFacts &facts,
                                                       int64_t thread,
                                                       Value value) {
  return RoleInterpreter::threadValue(facts, thread, value);
}

bool role_protocol::interpretRole(const KernelFacts &facts, int64_t sample,
                                  Role &role, std::string &reason) {
  RoleInterpreter interpreter(facts, role.firstThread, sample, role);
  if (interpreter.run())
    return true;
  reason = interpreter.reason;
  return false;
}
