//===- RoleProtocol.cpp - The roles of a kernel over shared mbarriers -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The threads of a block of known size, grouped into roles
// (RoleDiscovery.cpp), each interpreted into a trace of barrier events
// (RoleInterpreter.cpp), run concurrently against a model of the mbarrier
// hardware (RoleSimulation.cpp). Unknown values take one sample value, the
// same in every role; the kernel is simulated once per sample (kSamples), on
// a grid of one cluster, or, where a loop then runs past the interpreter's
// bound (a persistent kernel's loop over its units), of `sample` clusters,
// block 0 taking its share of the work.
// Each sample runs four schedules: the roles in thread order and reversed,
// each with a fixed order (the first roles run as far ahead as they can: a
// producer fills the whole ring before a consumer starts) and with a role
// woken by a phase completion moved to the front (a consumer reads, a
// producer refills, as soon as it may).
//
// Reported (the first finding ends the analysis of the kernel):
//  - T-PROTO-11: every role is blocked or done while some wait for a phase
//    that no role can complete any more: a deadlock (a hang on the GPU).
//  - T-PROTO-7: a wait returns on a phase its role already saw on that
//    barrier: the parity did not flip when the ring came back to it (or
//    flipped twice), so the wait waits for nothing; or on a phase two or
//    more past the one it saw before: the role fell behind the ring (threads
//    that only wait on it) and its parity matched a later phase.
//  - T-PROTO-12: a role reads a stage of a buffer filled by copies that
//    complete on barriers (TMA and bulk copies; cp.async copies whose thread
//    then arrives by cp.async.mbarrier.arrive) when the copy that last wrote
//    the stage is not complete, or belongs to a phase of its barrier the role
//    has not waited for (a wait that returned too early, a stage refilled
//    before its readers released it); or a copy overwrites a stage that a wgmma
//    of another role may still read.
//  - T-PROTO-14: a role writes a tile of a shared buffer (a generic store,
//    stmatrix) that a bulk store of some role (TMA store or reduce, bulk
//    copy to global memory) may still read: its bulk group was not retired
//    by a bulk wait_group before the write (an epilogue's staging buffer
//    reused too early).
// Kernels with constructs the model does not follow (barrier indices or loop
// bounds it cannot evaluate, scf.while, try/test waits, traces over
// kMaxEvents) are left to the other analyses.
//===----------------------------------------------------------------------===//

#include "RoleProtocol.h"
#include "ProtocolAnalyses.h"
#include "Tile/Analysis/ThreadPredicates.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::role_protocol;

/// Sample values of what a kernel cannot know statically: small, medium and
/// ragged problem sizes.
static constexpr int64_t kSamples[] = {1, 200, 520};

RoleVerdict tile::checkRoleProtocol(gpu::GPUFuncOp kernel, bool explain) {
  auto skip = [&](const Twine &reason) {
    if (explain)
      mlir::emitRemark(kernel.getLoc())
          << "role protocol not modeled: " << reason;
    return RoleVerdict::notModeled;
  };
  bool waits = false;
  kernel.walk([&](MBarrierWaitParityOp wait) { waits = true; });
  if (!waits)
    return skip("no mbarrier_wait_parity");
  std::optional<std::array<int64_t, 3>> dims = getBlockShape(kernel);
  if (!dims || (*dims)[0] * (*dims)[1] * (*dims)[2] > 1024)
    return skip("no known block size");

  KernelFacts facts{kernel,
                    *dims,
                    getClusterSize(kernel),
                    llvm::DenseMap<void *, unsigned>(),
                    llvm::DenseMap<void *, unsigned>(),
                    llvm::DenseMap<void *, unsigned>()};
  collectFilledBuffers(facts);
  collectStoredBuffers(facts);
  collectExchangedBuffers(facts);

  std::vector<Role> roles = findRoles(facts);
  SmallVector<std::pair<int64_t, int64_t>> modeledSamples;
  std::string reason;
  for (int64_t sample : kSamples) {
    std::vector<Role> sampled;
    bool complete = false;
    for (int64_t clusters : {int64_t(1), sample}) {
      facts.gridBlocks = clusters * facts.clusterSize;
      sampled = roles;
      complete = llvm::all_of(sampled, [&](Role &role) {
        return interpretRole(facts, sample, role, reason);
      });
      if (complete || clusters == sample)
        break;
    }
    if (!complete)
      continue;
    SmallVector<unsigned> order;
    for (unsigned r = 0; r < sampled.size(); ++r)
      order.push_back(r);
    bool clean = true;
    for (auto [reversed, promote] : {std::pair(false, true),
                                     {true, true},
                                     {false, false},
                                     {true, false}}) {
      SmallVector<unsigned> ordered = order;
      if (reversed)
        std::reverse(ordered.begin(), ordered.end());
      std::optional<Finding> finding = simulateRoles(sampled, promote, ordered);
      if (!finding)
        continue;
      clean = false;
      if (!finding->op) {
        reason = finding->message;
        break;
      }
      InFlightDiagnostic diag = emitConciseError(finding->op)
                                << finding->message;
      for (auto &[op, note] : finding->notes)
        diag.attachNote(op->getLoc()) << note;
      return RoleVerdict::failed;
    }
    if (clean)
      modeledSamples.push_back({sample, facts.gridBlocks});
  }
  if (modeledSamples.empty())
    return skip(reason);
  if (explain) {
    InFlightDiagnostic remark = mlir::emitRemark(kernel.getLoc())
                                << "role protocol: " << roles.size()
                                << " roles (";
    llvm::interleaveComma(roles, remark, [&](const Role &role) {
      remark << role.threads << " from thread " << role.firstThread;
    });
    remark << ") simulated with sample values ";
    llvm::interleaveComma(modeledSamples, remark, [&](auto modeled) {
      remark << modeled.first;
      if (modeled.second != facts.clusterSize)
        remark << " (on " << modeled.second << " CTAs)";
    });
    remark << ": nothing to report";
  }
  return RoleVerdict::clean;
}
