//===- IndexEvaluation.h - Concrete values of index arithmetic --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Shared by the analyses that simulate a kernel on concrete values
// (tile-verify-async-protocol, tile-analyze-bank-conflicts).
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_ANALYSIS_INDEXEVALUATION_H
#define TILE_LIB_ANALYSIS_INDEXEVALUATION_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::tile {

/// Supplies values the evaluator cannot compute itself (loop induction
/// variables, thread ids); std::nullopt for unknown.
using IndexLeaf = llvm::function_ref<std::optional<int64_t>(Value)>;

/// Evaluates `value`: first `leaf`, then integer constants, integer casts,
/// arith add/sub/mul/div/ceildiv/rem/min/max/and/or/xor/shl/shr, cmpi and
/// select, and the persistent schedule's ops (isScheduleOp), of evaluable
/// operands. i1 values are 0 or 1.
std::optional<int64_t> evaluateIndex(Value value, IndexLeaf leaf);

/// tile.tile_coord, tile.work_count and tile.work_unit: index arithmetic
/// that evaluateIndex computes like arith's (a leaf function should leave
/// their results to it).
bool isScheduleOp(Operation *op);

} // namespace mlir::tile

#endif // TILE_LIB_ANALYSIS_INDEXEVALUATION_H
