//===- ArrivalCounts.cpp - Arrivals and transaction bytes per phase -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Per barrier of a kernel of known block size: the arrivals one phase can get
// (each arrive counted over the threads that execute it) against the init
// count (T-PROTO-8), and the transaction bytes expected against those
// delivered (T-PROTO-9).
//===----------------------------------------------------------------------===//

#include "ProtocolAnalyses.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;

namespace {
/// How many threads of a block of shape `block` execute `op`: under
/// `scf.if (thread_id x == c)` one per (y, z), under `scf.if (elect_sync)`
/// one per warp, else all of them. std::nullopt for other conditions and
/// for ops inside loops.
std::optional<int64_t> getExecutingThreads(Operation *op, Operation *function,
                                           std::array<int64_t, 3> block) {
  int64_t threads = block[0] * block[1] * block[2];
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
        count = std::min(count, block[1] * block[2]);
        continue;
      }
    }
    return std::nullopt;
  }
  return count;
}

} // namespace

/// T-PROTO-8: in a kernel of known block size, a barrier whose waits can
/// never complete because all the arrivals a phase can get (counted over
/// the threads that execute each arrive) stay below its init count.
/// Skipped for barriers with arrivals in loops, under other conditions, or
/// from other CTAs.
LogicalResult tile::checkArrivalCounts(gpu::GPUFuncOp kernel) {
  std::optional<std::array<int64_t, 3>> block = getBlockShape(kernel);
  if (!block)
    return success();
  int64_t threads = (*block)[0] * (*block)[1] * (*block)[2];
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
      auto op = dyn_cast<BarrierOpInterface>(user);
      if (!op)
        continue;
      std::optional<int64_t> index = getConstantIntValue(op.getBarrierIndex());
      if (!index) {
        groupKnown = false;
        continue;
      }
      Barrier &barrier = barriers[*index];
      std::optional<int64_t> executing =
          getExecutingThreads(user, kernel, *block);
      // One elected thread acts for all that execute the op (tile.tma_copy).
      if (executing && op.isIssuedOnce())
        executing = 1;
      if (Value count = op.getInitCount()) {
        std::optional<int64_t> value = getConstantIntValue(count);
        if (barrier.init || !value) {
          barrier.known = false;
        } else {
          barrier.expected = *value;
          barrier.init = user;
        }
        continue;
      }
      if (op.isWait()) {
        if (!barrier.wait)
          barrier.wait = user;
        continue;
      }
      std::optional<int64_t> arrivals =
          getConstantIntValue(op.getArrivalCount());
      std::optional<int64_t> expected =
          getConstantIntValue(op.getExpectedTxBytes());
      std::optional<int64_t> completed =
          getConstantIntValue(op.getCompletedTxBytes());
      // Ops signalling other CTAs' barriers (multicast, shared::cluster,
      // remote arrives) mean that other CTAs' do the same here: unknown
      // totals.
      if (op.signalsRemoteBarriers()) {
        barrier.bytesKnown = false;
        if (arrivals != 0)
          barrier.known = false;
        continue;
      }
      // Transaction bytes (T-PROTO-9).
      for (auto [bytes, delivers] :
           {std::pair(expected, false), std::pair(completed, true)}) {
        if (bytes == 0)
          continue;
        if (!executing || !bytes) {
          barrier.bytesKnown = false;
          continue;
        }
        (delivers ? barrier.deliveredBytes : barrier.expectBytes) +=
            *bytes * *executing;
        (delivers ? barrier.deliverOp : barrier.expectOp) = user;
      }
      // Arrivals (T-PROTO-8).
      if (arrivals == 0)
        continue;
      if (!executing || !arrivals)
        barrier.known = false;
      else
        barrier.arrivals += *arrivals * *executing;
    }
    if (!groupKnown)
      return;
    for (auto &[index, barrier] : barriers) {
      if (barrier.bytesKnown && (barrier.expectOp || barrier.deliverOp) &&
          barrier.expectBytes != barrier.deliveredBytes) {
        Operation *at = barrier.expectOp ? barrier.expectOp : barrier.deliverOp;
        InFlightDiagnostic diag =
            emitConciseError(at)
            << "barrier " << index << " expects " << barrier.expectBytes
            << " transaction bytes per phase, but the copies "
               "and complete_tx that signal it deliver "
            << barrier.deliveredBytes
            << (barrier.expectBytes > barrier.deliveredBytes
                    ? ": the phase never completes"
                    : ": the transaction count underflows")
            << " (T-PROTO-9)";
        if (barrier.deliverOp && barrier.deliverOp != at)
          diag.attachNote(barrier.deliverOp->getLoc())
              << "bytes delivered here";
        failed = true;
      }
      if (!barrier.known || !barrier.init || !barrier.wait ||
          barrier.arrivals >= barrier.expected)
        continue;
      InFlightDiagnostic diag =
          emitConciseError(barrier.wait)
          << "waits on barrier " << index << ", which expects "
          << barrier.expected << " arrivals per phase, but the " << threads
          << " threads of a block arrive at most " << barrier.arrivals
          << " times: the phase never completes "
             "(T-PROTO-8)";
      diag.attachNote(barrier.init->getLoc()) << "initialized here";
      failed = true;
    }
  });
  return failure(failed);
}
