//===- ProtocolAnalyses.h - The analyses of the async protocol --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// verifyAsyncProtocol (AsyncProtocol.cpp) runs three analyses
// (docs/Rationale, T-PROTO):
//  - the thread protocol: one thread's cp.async group FIFO, mbarrier
//    initialization and proxy fences, in program order (ThreadProtocol.cpp);
//  - arrival counts: per barrier of a kernel of known block size, the
//    arrivals and transaction bytes one phase can get (ArrivalCounts.cpp);
//  - the role protocol: the threads of a block grouped into roles that run
//    concurrently against a model of the mbarrier hardware, for deadlocks,
//    stale parities and reads of stages not filled yet (RoleProtocol.cpp),
//    after the uniformity of aligned instructions (AlignedUniformity.cpp).
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_ANALYSIS_ASYNCPROTOCOL_PROTOCOLANALYSES_H
#define TILE_LIB_ANALYSIS_ASYNCPROTOCOL_PROTOCOLANALYSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"

namespace mlir::tile {

/// The buffer a shared memref view comes from (through view-like ops and
/// memref.cast).
Value getRootBuffer(Value memref);

/// A copy into this CTA's shared memory that completes on an mbarrier:
/// tile.tma_load, tile.tma_copy, a bulk global-to-shared copy.
struct SharedCopy {
  Value dst;
  /// The indices of `dst` that name what the copy writes: a TMA copy's
  /// leading (stage) indices, without the row of a row-range box.
  ValueRange dstIndices;
  /// Whether it fills one whole stage of a ring named by its indices: a
  /// TMA box that is the destination without its leading indexed
  /// dimensions, or one row range of it (the copies into its rows fill the
  /// stage together), a bulk copy of at most one row of the first
  /// dimension at [stage, 0, ...] (the row is the stage: a read of its
  /// bytes past the copy is ordered as a read of the stage; whether anything
  /// wrote them is not checked).
  bool fillsRingStage;
};
std::optional<SharedCopy> getSharedCopy(Operation *op);

/// Interprets `function` as one thread (T-PROTO-1..7, 10). The thread model
/// of parities (the n-th wait waits for parity n mod 2) is skipped with
/// `checkParity` false, where the role protocol checked the kernel instead.
LogicalResult checkThreadProtocol(FunctionOpInterface function,
                                  bool checkParity);

/// Arrivals and transaction bytes per phase (T-PROTO-8, 9).
LogicalResult checkArrivalCounts(gpu::GPUFuncOp kernel);

/// What the role protocol could say about a kernel.
enum class RoleVerdict {
  /// Not simulated: unknown block size, a construct the model does not
  /// follow (e.g. a barrier index it cannot evaluate), or too long a run.
  notModeled,
  /// Simulated with nothing to report.
  clean,
  /// An error was reported.
  failed,
};

/// T-PROTO-13: no aligned instruction (wgmma, warpgroup MMAs, mma.sync,
/// ldmatrix, stmatrix, named barriers) of `kernel` sits under an scf.if
/// whose condition, or an and/or/xor part of it, differs between threads of
/// one warp (warpgroup for wgmma) by their thread ids.
LogicalResult checkAlignedUniformity(gpu::GPUFuncOp kernel);

/// Runs the roles of `kernel` against the mbarrier model (T-PROTO-7, 11, 12).
/// With `explain`, a remark on the kernel says what was simulated or why
/// nothing was.
RoleVerdict checkRoleProtocol(gpu::GPUFuncOp kernel, bool explain);

} // namespace mlir::tile

#endif // TILE_LIB_ANALYSIS_ASYNCPROTOCOL_PROTOCOLANALYSES_H
