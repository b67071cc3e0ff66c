//===- BankConflicts.h - Shared-memory bank conflicts of a warp -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_BANKCONFLICTS_H
#define TILE_ANALYSIS_BANKCONFLICTS_H

#include "Tile/IR/TileAttrs.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::tile {

/// The n-way bank conflict of a warp's shared-memory access, and the
/// swizzle proposed to remove it.
struct BankConflict {
  /// n > 1: the most 4-byte words one bank delivers in a 128-byte phase.
  int64_t degree;
  /// The lanes the hardware serves in one phase (32 for 4-byte accesses,
  /// 16 for 8-byte, 8 for 16-byte).
  int64_t lanesPerPhase;
  /// The swizzle of the buffer the addresses were measured through, or null.
  SwizzleAttr bufferSwizzle;
  /// On byte offsets: M = log2(access bytes), S = log2(max(128, row bytes) /
  /// 2^M), B = log2(128 / 2^M); null where B + M + S exceeds the 31 bits of
  /// a shared-memory offset (T-SWZ-2).
  SwizzleAttr proposal;
  /// The conflict degree left on the addresses swizzled by the proposal.
  int64_t degreeWithProposal = 0;
};

/// The lanes of a warp that `op` accesses shared memory for together: 32
/// for memref and vector loads and stores, 8 per matrix for ldmatrix and
/// stmatrix (lanes 8i .. 8i + 7 address matrix i); std::nullopt for other
/// ops (cp.async writes land asynchronously and are not modeled).
std::optional<int64_t> getWarpAccessLanes(Operation *op);

/// The conflict of `memref[indices]`, accessed with `accessBytes` per lane
/// by the first `lanes` lanes of warp 0, whose byte addresses are evaluated
/// with thread_id x the lane (other dimensions 0) and loop induction
/// variables at their first value; on the swizzled addresses where the
/// buffer is swizzled. std::nullopt without a conflict, for memory other
/// than shared, and where an address is not static.
std::optional<BankConflict> analyzeBankConflict(Value memref,
                                                ValueRange indices,
                                                int64_t accessBytes,
                                                int64_t lanes);

} // namespace mlir::tile

#endif // TILE_ANALYSIS_BANKCONFLICTS_H
