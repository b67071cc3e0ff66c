//===- ThreadProtocol.cpp - One thread's cp.async and mbarrier protocol ---===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An abstract interpretation of one function, in program order, of the
// per-thread cp.async group FIFO and of mbarrier initialization:
//
//  - cp.async copies join an open group; commit_group pushes it on the FIFO;
//    wait_group N keeps the N newest groups in flight; wait_all empties it.
//    A shared-memory read of a slot that an in-flight group writes is an
//    error (T-PROTO-1). A slot is a buffer plus, for buffers of rank >= 2,
//    the value of the first index (the stage of a ring) when it is known.
//  - Integer and i1 values are evaluated concretely: loops with constant
//    bounds are simulated iteration by iteration (up to kMaxSimulated), and
//    values carried through scf.for iter_args (a stage counter wrapped by
//    compare/select or remui, a phase bit flipped by xori) and scf.if
//    results follow the simulated iterations, so `stage = k mod N` rings
//    and rings whose (stage, phase) is loop-carried are checked exactly.
//  - scf.if branches are interpreted separately and joined. Branches that
//    leave different numbers of groups committed since the last wait that
//    emptied the FIFO (T-PROTO-2: a commit under a condition) are reported
//    at the if, with a note at the first later wait_group N > 0 before
//    such a wait: its count names different groups on the two paths.
//    wait_group 0 and wait_all count none, so warp roles that commit
//    differently and wait for everything are not reported. Inside an
//    scf.while (one pass of its body) the if is reported at once.
//  - Copies still open or in flight when the function returns: T-PROTO-3.
//  - mbarrier ops on a group before any init (T-PROTO-4), a second init of
//    the same barrier without inval (T-PROTO-5), a cluster-scope init not
//    followed by fence_mbarrier_init before the cluster sees it
//    (cluster_arrive or a remote arrive, T-PROTO-6), and the thread model of
//    parities: the n-th wait of the thread on a barrier waits for parity
//    n mod 2 (T-PROTO-7; kernels the role protocol simulates are checked
//    there instead, where a role may start at parity 1).
//  - Generic stores read by the async proxy (bulk copies and TMA stores
//    from shared memory, wgmma's shared operands) without a proxy fence
//    (T-PROTO-10).
//
// Joins over-approximate (a group may be pending if it is on either path),
// so every report is a possible execution, and silence on a construct the
// analysis cannot follow is preferred over noise.
//===----------------------------------------------------------------------===//

#include "IndexEvaluation.h"
#include "ProtocolAnalyses.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <deque>
#include <map>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Loop iterations simulated with concrete induction values; longer loops
/// continue with an unknown induction variable until the state is stable.
constexpr int64_t kMaxSimulated = 64;
/// Iterations with unknown values before giving up on a fixpoint.
constexpr int kMaxFixpointRounds = 8;

/// A piece of shared memory: a root buffer and, when known, the first index.
struct Slot {
  Value buffer;
  std::optional<int64_t> stage;
  bool overlaps(const Slot &other) const {
    return buffer == other.buffer &&
           (!stage || !other.stage || *stage == *other.stage);
  }
  bool operator<(const Slot &o) const {
    if (buffer != o.buffer)
      return buffer.getAsOpaquePointer() < o.buffer.getAsOpaquePointer();
    return stage < o.stage;
  }
  bool operator==(const Slot &o) const {
    return buffer == o.buffer && stage == o.stage;
  }
};

/// The copies of one cp.async group: slots written and one copy to point at.
struct Group {
  std::set<Slot> slots;
  Operation *firstCopy = nullptr;
  bool operator==(const Group &o) const { return slots == o.slots; }
};

/// The abstract state at a program point.
struct State {
  Group open;                ///< copies not committed yet
  std::deque<Group> pending; ///< committed groups, oldest first
  /// Initialized barriers: (group, index or -1 for unknown) -> init op.
  std::map<std::pair<void *, int64_t>, Operation *> initialized;
  /// Cluster-scope inits not yet followed by fence_mbarrier_init.
  std::vector<Operation *> unfencedClusterInits;
  /// Slots whose copies an mbarrier tracks (cp.async.mbarrier.arrive): a
  /// wait on that barrier completes them.
  std::map<void *, std::set<Slot>> trackedBy;
  /// Bulk copies into shared memory that complete on a barrier (complete_tx).
  std::map<void *, Group> barrierCopies;
  /// Shared buffers written by generic stores since the last proxy fence,
  /// with one such store (T-PROTO-10).
  std::map<void *, Operation *> unfencedWrites;
  /// Blocking parity waits so far per barrier (group, static index): the
  /// n-th wait of a thread is for phase n, so its parity must be n mod 2.
  std::map<std::pair<void *, int64_t>, int64_t> waitsDone;
  /// The scf.ifs whose branches committed different numbers of groups,
  /// until a wait empties the FIFO (T-PROTO-2).
  llvm::SmallSetVector<Operation *, 2> divergentCommits;
  /// Groups committed since a wait last emptied the FIFO (on joins the
  /// larger; not compared: it grows in pipelined loops).
  int64_t committedSinceEmpty = 0;

  bool operator==(const State &o) const {
    return open == o.open && pending == o.pending &&
           initialized == o.initialized &&
           unfencedClusterInits == o.unfencedClusterInits &&
           trackedBy == o.trackedBy && waitsDone == o.waitsDone &&
           barrierCopies == o.barrierCopies &&
           unfencedWrites == o.unfencedWrites &&
           divergentCommits == o.divergentCommits;
  }
};

/// Unions `b` into `a`, aligning the FIFOs at their newest group.
void join(State &a, const State &b) {
  a.open.slots.insert(b.open.slots.begin(), b.open.slots.end());
  if (!a.open.firstCopy)
    a.open.firstCopy = b.open.firstCopy;
  while (a.pending.size() < b.pending.size())
    a.pending.push_front(Group());
  size_t offset = a.pending.size() - b.pending.size();
  for (size_t i = 0; i < b.pending.size(); ++i) {
    Group &target = a.pending[offset + i];
    target.slots.insert(b.pending[i].slots.begin(), b.pending[i].slots.end());
    if (!target.firstCopy)
      target.firstCopy = b.pending[i].firstCopy;
  }
  // A barrier counts as initialized only if it is on both paths.
  for (auto it = a.initialized.begin(); it != a.initialized.end();)
    it = b.initialized.count(it->first) ? std::next(it)
                                        : a.initialized.erase(it);
  for (Operation *op : b.unfencedClusterInits)
    if (!llvm::is_contained(a.unfencedClusterInits, op))
      a.unfencedClusterInits.push_back(op);
  for (const auto &[barrier, slots] : b.trackedBy)
    a.trackedBy[barrier].insert(slots.begin(), slots.end());
  for (const auto &[barrier, group] : b.barrierCopies) {
    Group &target = a.barrierCopies[barrier];
    target.slots.insert(group.slots.begin(), group.slots.end());
    if (!target.firstCopy)
      target.firstCopy = group.firstCopy;
  }
  for (const auto &[buffer, store] : b.unfencedWrites)
    a.unfencedWrites.emplace(buffer, store);
  a.divergentCommits.insert(b.divergentCommits.begin(), b.divergentCommits.end());
  a.committedSinceEmpty = std::max(a.committedSinceEmpty, b.committedSinceEmpty);
  // Wait counts that differ between paths are unknown from here on.
  for (auto it = a.waitsDone.begin(); it != a.waitsDone.end();) {
    auto other = b.waitsDone.find(it->first);
    it = (other != b.waitsDone.end() && other->second == it->second)
             ? std::next(it)
             : a.waitsDone.erase(it);
  }
}

class ThreadChecker {
public:
  explicit ThreadChecker(bool checkParity) : checkParity(checkParity) {}

  /// Interprets `body`; returns failure if an error was reported.
  LogicalResult run(Region &body) {
    State state;
    visitRegion(body, state);
    return failure(hadError);
  }

private:
  /// Concrete values of index/integer SSA values in the current simulation.
  llvm::DenseMap<Value, int64_t> values;
  /// The commit counts of each T-PROTO-2 if's branches, for its report.
  llvm::DenseMap<Operation *, std::pair<int64_t, int64_t>> divergentCounts;
  /// Ops already reported, so that loop simulation reports each once.
  llvm::DenseSet<Operation *> reported;
  bool hadError = false;
  bool checkParity;

  /// Concrete value of index arithmetic under the simulated loop variables.
  std::optional<int64_t> evaluate(Value value) {
    return evaluateIndex(value, [&](Value v) -> std::optional<int64_t> {
      if (auto it = values.find(v); it != values.end())
        return it->second;
      return std::nullopt;
    });
  }

  Slot slotOf(Value memref, ValueRange indices) {
    Slot slot{getRootBuffer(memref), std::nullopt};
    auto type = dyn_cast<MemRefType>(memref.getType());
    if (type && type.getRank() >= 2 && !indices.empty())
      slot.stage = evaluate(indices.front());
    return slot;
  }

  InFlightDiagnostic report(Operation *op, bool error) {
    reported.insert(op);
    if (error)
      hadError = true;
    return error ? emitConciseError(op) : emitConciseWarning(op);
  }

  void visitRegion(Region &region, State &state) {
    for (Block &block : region)
      for (Operation &op : block)
        visit(&op, state);
  }

  void visit(Operation *op, State &state) {
    if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
      state.open.slots.insert(slotOf(copy.getDst(), copy.getDstIndices()));
      if (!state.open.firstCopy)
        state.open.firstCopy = op;
      return;
    }
    // Copies that complete on a barrier: a wait on it completes them.
    if (std::optional<SharedCopy> copy = getSharedCopy(op)) {
      auto barrierOp = cast<BarrierOpInterface>(op);
      Group &group =
          state.barrierCopies[barrierOp.getBarrierGroup().getAsOpaquePointer()];
      group.slots.insert(slotOf(copy->dst, copy->dstIndices));
      if (!group.firstCopy)
        group.firstCopy = op;
      return;
    }
    if (auto bulk = dyn_cast<BulkCopySharedToGlobalOp>(op))
      return checkProxyFence(bulk, bulk.getSrc(), state);
    if (auto bulk = dyn_cast<BulkCopySharedToClusterOp>(op))
      return checkProxyFence(bulk, bulk.getSrc(), state);
    if (auto tma = dyn_cast<TmaStoreOp>(op))
      return checkProxyFence(tma, tma.getSrc(), state);
    if (auto tma = dyn_cast<TmaReduceOp>(op))
      return checkProxyFence(tma, tma.getSrc(), state);
    // wgmma reads its shared operands through the async proxy as well: as a
    // descriptor (lowered) or a tile-level MMA's tiles.
    if (auto descriptor = dyn_cast<WgmmaDescriptorOp>(op))
      return checkProxyFence(descriptor, descriptor.getBuffer(), state);
    if (auto mma = dyn_cast<WarpgroupMmaOp>(op)) {
      checkProxyFence(mma, mma.getA(), state);
      return checkProxyFence(mma, mma.getB(), state);
    }
    if (auto mma = dyn_cast<WarpgroupMmaRsOp>(op))
      return checkProxyFence(mma, mma.getB(), state);
    // A tile-level store of accumulators into shared memory is generic.
    if (auto store = dyn_cast<WarpgroupMmaStoreOp>(op)) {
      if (isSharedMemory(store.getDst().getType()))
        state.unfencedWrites.emplace(
            getRootBuffer(store.getDst()).getAsOpaquePointer(), op);
      return;
    }
    if (auto fence = dyn_cast<FenceProxyAsyncOp>(op)) {
      if (fence.getSpace() != ProxySpace::global)
        state.unfencedWrites.clear();
      return;
    }
    if (visitElementAccesses(op, state))
      return;
    if (isa<AsyncCommitGroupOp>(op)) {
      state.pending.push_back(state.open);
      state.open = Group();
      ++state.committedSinceEmpty;
      return;
    }
    if (auto wait = dyn_cast<AsyncWaitGroupOp>(op)) {
      size_t keep = wait.getPendingAttr().getValue().getZExtValue();
      for (Operation *ifOp : state.divergentCommits)
        if (keep > 0)
          reportDivergentCommits(ifOp, wait);
      while (state.pending.size() > keep)
        state.pending.pop_front();
      if (keep == 0)
        emptied(state);
      return;
    }
    if (isa<AsyncWaitAllOp>(op)) {
      state.pending.clear();
      state.open = Group();
      emptied(state);
      return;
    }
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      return visitFor(forOp, state);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      return visitIf(ifOp, state);
    if (isa<gpu::ReturnOp, func::ReturnOp>(op))
      return checkExit(op, state);
    visitMBarrier(op, state);
    for (Region &region : op->getRegions())
      visitRegion(region, state);
  }

  /// Shared-memory element accesses of `op` (getElementAccess): generic
  /// stores for T-PROTO-10, reads for T-PROTO-1. True if `op` has one.
  bool visitElementAccesses(Operation *op, State &state) {
    bool any = false;
    for (OpOperand &use : op->getOpOperands()) {
      std::optional<ElementAccess> access = getElementAccess(use);
      if (!access)
        continue;
      Value memref = access->memref->get();
      auto type = dyn_cast<MemRefType>(memref.getType());
      if (!type || !isSharedMemory(type))
        continue;
      any = true;
      if (access->writes)
        state.unfencedWrites.emplace(getRootBuffer(memref).getAsOpaquePointer(),
                                     op);
      else
        checkRead(op, memref, OperandRange(access->indices), state);
    }
    return any;
  }

  /// T-PROTO-1: a read of shared memory that an in-flight group writes.
  void checkRead(Operation *op, Value memref, ValueRange indices,
                 State &state) {
    if (reported.contains(op))
      return;
    Slot slot = slotOf(memref, indices);
    auto writes = [&](const Group &group) {
      return llvm::any_of(group.slots,
                          [&](const Slot &s) { return s.overlaps(slot); });
    };
    for (const auto &[barrier, group] : state.barrierCopies) {
      if (!writes(group))
        continue;
      InFlightDiagnostic diag = report(op, /*error=*/true);
      diag << "reads shared memory that a bulk copy may still be writing: "
              "wait on the mbarrier it completes first (T-PROTO-1)";
      if (group.firstCopy)
        diag.attachNote(group.firstCopy->getLoc()) << "copy issued here";
      return;
    }
    const Group *culprit = writes(state.open) ? &state.open : nullptr;
    size_t newer = 0;
    for (size_t i = 0; !culprit && i < state.pending.size(); ++i)
      if (writes(state.pending[i])) {
        culprit = &state.pending[i];
        newer = state.pending.size() - 1 - i;
      }
    if (!culprit)
      return;
    InFlightDiagnostic diag = report(op, /*error=*/true);
    diag << "reads shared memory that a cp.async group may still be writing";
    if (slot.stage)
      diag << " (stage " << *slot.stage << ")";
    if (culprit == &state.open)
      diag << ": the copy is not committed and waited for yet";
    else
      diag << ": " << newer << " newer group(s) were committed after it, so "
           << "wait_group must keep at most " << newer << " pending";
    diag << " (T-PROTO-1)";
    if (culprit->firstCopy)
      diag.attachNote(culprit->firstCopy->getLoc()) << "copy issued here";
  }

  /// T-PROTO-10: a bulk copy, TMA store/reduce or wgmma (async proxy) reads
  /// shared memory that generic stores wrote with no fence.proxy.async in
  /// between.
  void checkProxyFence(Operation *bulk, Value src, State &state) {
    auto it =
        state.unfencedWrites.find(getRootBuffer(src).getAsOpaquePointer());
    if (it == state.unfencedWrites.end() || reported.contains(bulk))
      return;
    InFlightDiagnostic diag = report(bulk, /*error=*/true);
    diag << "reads shared memory written by generic stores without "
            "tile.fence_proxy_async shared_cta in between: the async proxy may "
            "read stale data (T-PROTO-10)";
    diag.attachNote(it->second->getLoc()) << "generic store here";
  }

  /// T-PROTO-3: copies left behind at a return.
  void checkExit(Operation *op, State &state) {
    if (reported.contains(op))
      return;
    const Group *left = !state.open.slots.empty() ? &state.open : nullptr;
    for (const Group &group : state.pending)
      if (!left && !group.slots.empty())
        left = &group;
    if (!left)
      return;
    InFlightDiagnostic diag = report(op, /*error=*/false);
    diag << "returns while cp.async copies may still be in flight; wait for "
            "them (tile.async_wait_group 0) before exit (T-PROTO-3)";
    if (left->firstCopy)
      diag.attachNote(left->firstCopy->getLoc()) << "copy issued here";
  }

  /// A wait emptied the FIFO: later counts name the same groups again.
  static void emptied(State &state) {
    state.divergentCommits.clear();
    state.committedSinceEmpty = 0;
  }

  void visitIf(scf::IfOp ifOp, State &state) {
    State thenState = state, elseState = state;
    visitRegion(ifOp.getThenRegion(), thenState);
    visitRegion(ifOp.getElseRegion(), elseState);
    int64_t thenCount = thenState.committedSinceEmpty;
    int64_t elseCount = elseState.committedSinceEmpty;
    join(thenState, elseState);
    state = thenState;
    // A condition the simulation knows (a loop's first iterations) takes
    // one path only.
    if (thenCount != elseCount && !evaluate(ifOp.getCondition())) {
      divergentCounts[ifOp] = {thenCount, elseCount};
      // One pass of a while body: a wait at its top is not seen after it.
      if (ifOp->getParentOfType<scf::WhileOp>())
        reportDivergentCommits(ifOp, nullptr);
      else
        state.divergentCommits.insert(ifOp);
    }
    bindIfResults(ifOp);
  }

  /// T-PROTO-2: `ifOp`'s branches committed different numbers of groups
  /// and `wait` (if known) counts them.
  void reportDivergentCommits(Operation *ifOp, Operation *wait) {
    if (reported.contains(ifOp))
      return;
    auto [thenCount, elseCount] = divergentCounts.lookup(ifOp);
    InFlightDiagnostic diag = report(ifOp, /*error=*/false);
    diag << "leaves " << thenCount
         << " cp.async group(s) committed since the last full wait on one "
            "branch and "
         << elseCount
         << " on the other: later wait_group counts name different groups "
            "on the two paths; commit unconditionally (an empty group is "
            "legal) (T-PROTO-2)";
    if (auto counted = dyn_cast_or_null<AsyncWaitGroupOp>(wait))
      diag.attachNote(counted.getLoc())
          << "this wait leaves " << counted.getPending()
          << " group(s) pending of the " << thenCount << " or " << elseCount
          << " committed";
  }

  /// The results of `ifOp`: the taken branch's when the condition is known,
  /// else the value both branches agree on.
  void bindIfResults(scf::IfOp ifOp) {
    if (ifOp.getNumResults() == 0)
      return;
    std::optional<int64_t> condition = evaluate(ifOp.getCondition());
    auto yielded = [&](Region &region, unsigned i) -> std::optional<int64_t> {
      if (region.empty())
        return std::nullopt;
      return evaluate(region.front().getTerminator()->getOperand(i));
    };
    for (auto [i, result] : llvm::enumerate(ifOp.getResults())) {
      std::optional<int64_t> thenValue = yielded(ifOp.getThenRegion(), i);
      std::optional<int64_t> elseValue = yielded(ifOp.getElseRegion(), i);
      std::optional<int64_t> value;
      if (condition)
        value = *condition ? thenValue : elseValue;
      else if (thenValue == elseValue)
        value = thenValue;
      bind(result, value);
    }
  }

  void bind(Value value, std::optional<int64_t> known) {
    if (known)
      values[value] = *known;
    else
      values.erase(value);
  }

  /// Sets the iter_args of `forOp` from `inputs` (the inits or the previous
  /// iteration's yields).
  void bindIterArgs(scf::ForOp forOp, ArrayRef<std::optional<int64_t>> inputs) {
    for (auto [arg, value] : llvm::zip(forOp.getRegionIterArgs(), inputs))
      bind(arg, value);
  }

  SmallVector<std::optional<int64_t>> evaluateAll(ValueRange range) {
    return llvm::map_to_vector(range, [&](Value v) { return evaluate(v); });
  }

  void forgetLoopValues(scf::ForOp forOp) {
    for (Value arg : forOp.getRegionIterArgs())
      values.erase(arg);
    for (Value result : forOp.getResults())
      values.erase(result);
  }

  void visitFor(scf::ForOp forOp, State &state) {
    std::optional<int64_t> lb = evaluate(forOp.getLowerBound());
    std::optional<int64_t> ub = evaluate(forOp.getUpperBound());
    std::optional<int64_t> step = evaluate(forOp.getStep());
    Value iv = forOp.getInductionVar();
    State before = state;
    if (lb && step && *step > 0) {
      // Simulate with concrete induction values. With an unknown or long
      // trip count the loop may stop after any simulated iteration: the exit
      // state joins them all (and the entry state for zero iterations).
      bool exact = ub.has_value();
      State exit = state;
      bool first = true;
      int64_t simulated = 0;
      SmallVector<std::optional<int64_t>> carried =
          evaluateAll(forOp.getInitArgs());
      for (int64_t i = *lb; (!ub || i < *ub) && simulated < kMaxSimulated;
           i += *step, ++simulated) {
        values[iv] = i;
        bindIterArgs(forOp, carried);
        visitRegion(forOp.getRegion(), state);
        carried = evaluateAll(forOp.getBody()->getTerminator()->getOperands());
        if (!exact) {
          if (first)
            exit = state;
          else
            join(exit, state);
          first = false;
        }
      }
      values.erase(iv);
      forgetLoopValues(forOp);
      if (exact && *lb + simulated * *step >= *ub) {
        // Fully simulated: the results are the last iteration's yields (the
        // inits for zero iterations).
        if (simulated == 0)
          carried = evaluateAll(forOp.getInitArgs());
        for (auto [result, value] : llvm::zip(forOp.getResults(), carried))
          bind(result, value);
        return;
      }
      if (!exact) {
        join(exit, before);
        state = exit;
        return;
      }
    }
    // Unknown bounds: iterate with an unknown induction variable until the
    // state is stable (zero iterations are possible: join with the entry).
    forgetLoopValues(forOp);
    State entry = state;
    State current = state;
    for (int round = 0; round < kMaxFixpointRounds; ++round) {
      State next = current;
      visitRegion(forOp.getRegion(), next);
      join(next, entry);
      if (next == current)
        break;
      current = next;
    }
    state = current;
  }

  /// cp.async.mbarrier.arrive hands all of the thread's copies so far to a
  /// barrier; a wait on that barrier completes them.
  void trackCopies(Operation *op, State &state) {
    if (auto arrive = dyn_cast<AsyncCopyMBarrierArriveOp>(op)) {
      std::set<Slot> &tracked =
          state.trackedBy[arrive.getBarriers().getAsOpaquePointer()];
      tracked.insert(state.open.slots.begin(), state.open.slots.end());
      for (const Group &group : state.pending)
        tracked.insert(group.slots.begin(), group.slots.end());
      return;
    }
    auto wait = dyn_cast<BarrierOpInterface>(op);
    if (!wait || !wait.isWait())
      return;
    void *group = wait.getBarrierGroup().getAsOpaquePointer();
    state.barrierCopies.erase(group);
    auto it = state.trackedBy.find(group);
    if (it == state.trackedBy.end())
      return;
    auto complete = [&](Group &group) {
      for (const Slot &slot : it->second)
        group.slots.erase(slot);
      if (group.slots.empty())
        group.firstCopy = nullptr;
    };
    complete(state.open);
    for (Group &group : state.pending)
      complete(group);
    state.trackedBy.erase(it);
  }

  /// mbarrier initialization rules (T-PROTO-4..6).
  void visitMBarrier(Operation *op, State &state) {
    trackCopies(op, state);
    if (isa<FenceMBarrierInitOp>(op)) {
      state.unfencedClusterInits.clear();
      return;
    }
    if (isa<ClusterArriveOp, MBarrierArriveRemoteOp>(op) &&
        !state.unfencedClusterInits.empty() && !reported.contains(op)) {
      InFlightDiagnostic diag = report(op, /*error=*/false);
      diag << "makes a cluster-scope mbarrier visible to other CTAs before "
              "tile.fence_mbarrier_init orders its initialization (T-PROTO-6)";
      diag.attachNote(state.unfencedClusterInits.front()->getLoc())
          << "barrier initialized here";
    }
    auto barrierOp = dyn_cast<BarrierOpInterface>(op);
    if (!barrierOp)
      return;
    Value barriers = barrierOp.getBarrierGroup();
    Value index = barrierOp.getBarrierIndex();
    std::optional<int64_t> slot = evaluate(index);
    std::pair<void *, int64_t> key{barriers.getAsOpaquePointer(),
                                   slot.value_or(-1)};
    bool anyInit = llvm::any_of(state.initialized, [&](const auto &entry) {
      return entry.first.first == key.first;
    });
    if (auto init = dyn_cast<MBarrierInitOp>(op)) {
      auto it = state.initialized.find(key);
      if (slot && it != state.initialized.end() && !reported.contains(op)) {
        InFlightDiagnostic diag = report(op, /*error=*/true);
        diag << "initializes barrier " << *slot
             << " again without tile.mbarrier_inval (T-PROTO-5)";
        diag.attachNote(it->second->getLoc()) << "first initialized here";
      }
      state.initialized[key] = op;
      if (init.getBarriers().getType().getScope() == MBarrierScope::cluster)
        state.unfencedClusterInits.push_back(op);
      return;
    }
    if (isa<MBarrierInvalOp>(op)) {
      state.initialized.erase(key);
      state.waitsDone.erase(key);
      return;
    }
    if (auto wait = dyn_cast<MBarrierWaitParityOp>(op); wait && checkParity)
      checkPhase(wait, key, slot.has_value(), state);
    // Any other barrier op needs an init of the group first (T-PROTO-4).
    // Inits under conditions (one thread) count: `anyInit` looks at the
    // group, and joins keep inits made on every path.
    if (!anyInit && !reported.contains(op) && !hasInitBefore(barriers, op)) {
      InFlightDiagnostic diag = report(op, /*error=*/true);
      diag << "uses an mbarrier before it is initialized with "
              "tile.mbarrier_init (T-PROTO-4)";
    }
  }

  /// Whether `op` runs in a role: under a condition on the thread id (a
  /// producer warp, a consumer warpgroup) or in tile.warp_specialize.
  static bool inRole(Operation *op) {
    for (Operation *parent = op->getParentOp(); parent;
         parent = parent->getParentOp()) {
      if (isa<WarpSpecializeOp>(parent))
        return true;
      auto ifOp = dyn_cast<scf::IfOp>(parent);
      Operation *condition =
          ifOp ? ifOp.getCondition().getDefiningOp() : nullptr;
      if (condition && dependsOnThreadId(condition))
        return true;
    }
    return false;
  }

  /// T-PROTO-7 (thread model): the n-th blocking wait of a thread on a
  /// barrier waits for phase n, i.e. parity n mod 2 (the phase bit flips
  /// each time a ring wraps). Checked where the index and the parity are
  /// known, for waits all threads make: a role (a producer) may start at
  /// parity 1, which only the role protocol follows.
  void checkPhase(MBarrierWaitParityOp wait, std::pair<void *, int64_t> key,
                  bool staticIndex, State &state) {
    std::optional<int64_t> parity = evaluate(wait.getPhase());
    auto it = state.waitsDone.find(key);
    if (!staticIndex || !parity || inRole(wait)) {
      if (it != state.waitsDone.end())
        state.waitsDone.erase(it);
      return;
    }
    int64_t done = it == state.waitsDone.end() ? 0 : it->second;
    int64_t expected = done % 2, got = *parity & 1;
    if (got != expected && !reported.contains(wait)) {
      InFlightDiagnostic diag = report(wait, /*error=*/false);
      diag << "waits for phase parity " << got << " of barrier " << key.second
           << ", but this is wait " << done + 1
           << " on it, which completes with parity " << expected
           << ": the phase bit must flip each time the ring returns to this "
              "barrier (T-PROTO-7)";
    }
    state.waitsDone[key] = done + 1;
  }

  /// True when some init of `barriers` precedes `op` in its function (e.g.
  /// by one thread inside scf.if, which the path-wise state drops).
  static bool hasInitBefore(Value barriers, Operation *op) {
    for (Operation *init : barriers.getUsers()) {
      if (!isa<MBarrierInitOp>(init))
        continue;
      // Compare the two ops' ancestors that share a block.
      for (Operation *a = op; a; a = a->getParentOp())
        for (Operation *b = init; b; b = b->getParentOp())
          if (a->getBlock() == b->getBlock() && a != b && b->isBeforeInBlock(a))
            return true;
    }
    return false;
  }
};
} // namespace

LogicalResult tile::checkThreadProtocol(FunctionOpInterface function,
                                        bool checkParity) {
  return ThreadChecker(checkParity).run(function.getFunctionBody());
}
