//===- AsyncProtocol.h - The cp.async and mbarrier checker ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The static checker behind tile-verify-async-protocol (the T-PROTO rules of
// docs/Rationale/RationaleTile.md).
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_ASYNCPROTOCOL_H
#define TILE_ANALYSIS_ASYNCPROTOCOL_H

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"

namespace mlir::tile {

/// Checks the cp.async and mbarrier protocols of `function` (T-PROTO-1..13);
/// fails when an error (not a warning) was reported. With `explain`, a
/// remark on each kernel says what the role protocol simulated.
LogicalResult verifyAsyncProtocol(FunctionOpInterface function,
                                  bool explain = false);

} // namespace mlir::tile

#endif // TILE_ANALYSIS_ASYNCPROTOCOL_H
