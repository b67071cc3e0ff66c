//===- ArrivalCounts.cpp - Arrivals and transaction bytes per phase -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Per barrier of a kernel of known block size: the arrivals one phase can get
// (each arrive counted over the threads that execute it) against the init
// count (T-PROTO-8), and the transaction bytes expected against those
// delivered (T-PROTO-9).
//===----------------------------------------------------------------------===//

#include "ProtocolAnalyses.h"
#include "ThreadPredicates.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {
/// How many threads of a block of `threads` execute `op`: one under
/// `scf.if (thread_id x == c)` or `scf.if (elect_sync)`, else all of them.
/// std::nullopt for other conditions and for ops inside loops.
std::optional<int64_t> getExecutingThreads(Operation *op, Operation *function,
                                           int64_t threads) {
  int64_t count = threads;
  for (Operation *parent = op->getParentOp(); parent && parent != function;
       parent = parent->getParentOp()) {
    if (isa<LoopLikeOpInterface>(parent))
      return std::nullopt;
    auto ifOp = dyn_cast<scf::IfOp>(parent);
    if (!ifOp)
      continue;
    if (!ifOp.getThenRegion().isAncestor(op->getParentRegion()))
      return std::nullopt; // else branches: many threads, unknown count
    Value condition = ifOp.getCondition();
    if (condition.getDefiningOp<ElectSyncOp>()) {
      count = std::min<int64_t>(count, (threads + 31) / 32);
      continue;
    }
    auto cmp = condition.getDefiningOp<arith::CmpIOp>();
    APInt constant;
    if (cmp && cmp.getPredicate() == arith::CmpIPredicate::eq &&
        matchPattern(cmp.getRhs(), m_ConstantInt(&constant))) {
      if (auto tid = cmp.getLhs().getDefiningOp<gpu::ThreadIdOp>();
          tid && tid.getDimension() == gpu::Dimension::x) {
        count = 1;
        continue;
      }
    }
    return std::nullopt;
  }
  return count;
}

/// T-PROTO-8: in a kernel of known block size, a barrier whose waits can
/// never complete because all the arrivals a phase can get (counted over
/// the threads that execute each arrive) stay below its init count.
/// Skipped for barriers with arrivals in loops, under other conditions, or
/// from other CTAs.
} // namespace

LogicalResult tile::checkArrivalCounts(gpu::GPUFuncOp kernel) {
  std::optional<int64_t> threads = getBlockThreads(kernel);
  if (!threads)
    return success();
  bool failed = false;
  kernel.walk([&](MBarrierAllocOp alloc) {
    // (index) -> (init count, init op), arrivals, first wait, analyzable.
    struct Barrier {
      int64_t expected = -1;
      Operation *init = nullptr;
      int64_t arrivals = 0;
      Operation *wait = nullptr;
      bool known = true;
      // Transaction bytes per phase: expected (expect_tx) and delivered
      // (bulk copies, complete_tx); T-PROTO-9.
      int64_t expectBytes = 0, deliveredBytes = 0;
      Operation *expectOp = nullptr, *deliverOp = nullptr;
      bool bytesKnown = true;
    };
    std::map<int64_t, Barrier> barriers;
    bool groupKnown = true;
    for (Operation *user : alloc.getBarriers().getUsers()) {
      APInt index;
      Value indexValue;
      if (auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(user))
        indexValue = bulk.getBarrierIndex();
      else if (auto bulk = dyn_cast<BulkCopySharedToClusterOp>(user))
        indexValue = bulk.getBarrierIndex();
      else if (auto tma = dyn_cast<TmaLoadOp>(user))
        indexValue = tma.getBarrierIndex();
      else if (user->getNumOperands() >= 2)
        indexValue = user->getOperand(1);
      if (!indexValue || !matchPattern(indexValue, m_ConstantInt(&index))) {
        groupKnown = false;
        continue;
      }
      Barrier &barrier = barriers[index.getSExtValue()];
      std::optional<int64_t> executing =
          getExecutingThreads(user, kernel, *threads);
      if (auto init = dyn_cast<MBarrierInitOp>(user)) {
        APInt count;
        if (barrier.init || !matchPattern(init.getCount(), m_ConstantInt(&count)))
          barrier.known = false;
        else {
          barrier.expected = count.getSExtValue();
          barrier.init = init;
        }
        continue;
      }
      // Transaction bytes (T-PROTO-9).
      Value txBytes;
      bool delivers = false;
      if (auto op = dyn_cast<MBarrierArriveExpectTxOp>(user))
        txBytes = op.getBytes();
      else if (auto op = dyn_cast<MBarrierExpectTxOp>(user))
        txBytes = op.getBytes();
      else if (auto op = dyn_cast<MBarrierCompleteTxOp>(user))
        txBytes = op.getBytes(), delivers = true;
      else if (auto op = dyn_cast<BulkCopyGlobalToSharedOp>(user))
        txBytes = op.getBytes(), delivers = true;
      // Copies into other CTAs (multicast, shared::cluster) signal their
      // barriers, and other CTAs' copies signal this one: unknown totals.
      auto bulk = dyn_cast<BulkCopyGlobalToSharedOp>(user);
      if ((bulk && bulk.getMulticastMask()) ||
          isa<BulkCopySharedToClusterOp>(user)) {
        barrier.bytesKnown = false;
        continue;
      }
      if (auto tma = dyn_cast<TmaLoadOp>(user)) {
        // A box delivers its bytes; multicast loads of other CTAs deliver
        // to this barrier too, so their total is not known here.
        if (!executing || tma.getMulticastMask()) {
          barrier.bytesKnown = false;
        } else {
          barrier.deliveredBytes +=
              tma.getDescriptor().getType().getBoxBytes() * *executing;
          barrier.deliverOp = user;
        }
        continue;
      }
      if (txBytes) {
        APInt value;
        if (!executing || !matchPattern(txBytes, m_ConstantInt(&value))) {
          barrier.bytesKnown = false;
        } else {
          int64_t total = value.getSExtValue() * *executing;
          (delivers ? barrier.deliveredBytes : barrier.expectBytes) += total;
          (delivers ? barrier.deliverOp : barrier.expectOp) = user;
        }
        if (delivers)
          continue;
      }
      int64_t perThread = 0;
      if (auto arrive = dyn_cast<MBarrierArriveOp>(user)) {
        APInt count;
        perThread = 1;
        if (arrive.getCount()) {
          if (matchPattern(arrive.getCount(), m_ConstantInt(&count)))
            perThread = count.getSExtValue();
          else
            barrier.known = false;
        }
      } else if (isa<MBarrierArriveExpectTxOp, MBarrierArriveDropOp>(user)) {
        perThread = 1;
      } else if (auto copyArrive = dyn_cast<AsyncCopyMBarrierArriveOp>(user)) {
        perThread = copyArrive.getNoinc() ? 1 : 0;
      } else if (isa<MBarrierArriveRemoteOp>(user)) {
        barrier.known = false; // other CTAs arrive too
      } else if (isa<MBarrierWaitParityOp, MBarrierTryWaitOp,
                     MBarrierTryWaitParityOp, MBarrierTestWaitOp>(user)) {
        if (!barrier.wait)
          barrier.wait = user;
        continue;
      } else {
        continue;
      }
      if (!executing)
        barrier.known = false;
      else
        barrier.arrivals += perThread * *executing;
    }
    if (!groupKnown)
      return;
    for (auto &[index, barrier] : barriers) {
      if (barrier.bytesKnown && (barrier.expectOp || barrier.deliverOp) &&
          barrier.expectBytes != barrier.deliveredBytes) {
        Operation *at = barrier.expectOp ? barrier.expectOp : barrier.deliverOp;
        InFlightDiagnostic diag =
            at->emitError() << "barrier " << index << " expects "
                            << barrier.expectBytes
                            << " transaction bytes per phase, but the copies "
                               "and complete_tx that signal it deliver "
                            << barrier.deliveredBytes
                            << (barrier.expectBytes > barrier.deliveredBytes
                                    ? ": the phase never completes"
                                    : ": the transaction count underflows")
                            << " (T-PROTO-9)";
        if (barrier.deliverOp && barrier.deliverOp != at)
          diag.attachNote(barrier.deliverOp->getLoc()) << "bytes delivered here";
        failed = true;
      }
      if (!barrier.known || !barrier.init || !barrier.wait ||
          barrier.arrivals >= barrier.expected)
        continue;
      InFlightDiagnostic diag = barrier.wait->emitError()
                                << "waits on barrier " << index
                                << ", which expects " << barrier.expected
                                << " arrivals per phase, but the " << *threads
                                << " threads of a block arrive at most "
                                << barrier.arrivals
                                << " times: the phase never completes "
                                   "(T-PROTO-8)";
      diag.attachNote(barrier.init->getLoc()) << "initialized here";
      failed = true;
    }
  });
  return failure(failed);
}

