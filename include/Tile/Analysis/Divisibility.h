//===- Divisibility.h - Power-of-two factors of index values ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Which power of two an integer or index value is provably a multiple of, for
// every thread and iteration: the facts behind the alignment of vector
// accesses (tile-align-shared-vector-accesses). Upstream's integer range and
// value-bound analyses give bounds, not congruences; AffineExpr's
// getLargestKnownDivisor covers affine maps only.
//===----------------------------------------------------------------------===//

#ifndef TILE_ANALYSIS_DIVISIBILITY_H
#define TILE_ANALYSIS_DIVISIBILITY_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tile {

/// Known trailing zero bits of index values, memoized per instance.
class Divisibility {
public:
  /// The cap on the bits reported; zero is a multiple of everything and
  /// reports the cap.
  static constexpr int64_t kMaxBits = 62;

  /// The largest k such that `value` is a multiple of 2^k on every execution:
  /// constants; arith add/sub (the smaller), mul (the sum), shl by a
  /// constant, and (the larger), or/xor/min/max/select (the smaller),
  /// rem by a constant (the smaller), div and shr by a constant power of two,
  /// integer casts; affine.apply; scf.for induction variables (lower bound
  /// and step). Anything else (thread ids, arguments, loads, loop-carried
  /// values) is 0.
  int64_t getKnownTrailingZeros(Value value);

private:
  int64_t compute(Value value);
  llvm::DenseMap<Value, int64_t> known;
};

} // namespace mlir::tile

#endif // TILE_ANALYSIS_DIVISIBILITY_H
