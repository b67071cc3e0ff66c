//===- AsyncProtocol.cpp - The cp.async and mbarrier protocol checker -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the protocol analyses of ProtocolAnalyses.h on a function: on kernels
// the uniformity of aligned instructions and the arrival counts, then (when
// those hold) the role protocol; then the thread protocol, whose parity model
// is left to the role protocol where that simulated the kernel.
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/AsyncProtocol.h"
#include "ProtocolAnalyses.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult tile::verifyAsyncProtocol(FunctionOpInterface function,
                                        bool explain) {
  bool failed = false;
  bool rolesModeled = false;
  if (auto kernel = dyn_cast<gpu::GPUFuncOp>(function.getOperation());
      kernel && kernel.isKernel()) {
    // Counts that cannot complete a phase also deadlock the roles: report
    // the cause once.
    failed = mlir::failed(checkAlignedUniformity(kernel)) ||
             mlir::failed(checkArrivalCounts(kernel));
    if (!failed) {
      RoleVerdict verdict = checkRoleProtocol(kernel, explain);
      failed = verdict == RoleVerdict::failed;
      rolesModeled = verdict != RoleVerdict::notModeled;
    }
  }
  failed |= mlir::failed(checkThreadProtocol(function, !rolesModeled));
  return failure(failed);
}
