//===- IntTuple.h - Hierarchical integer tuples (CuTe) ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// An IntTuple is an integer or a tuple of IntTuples: the shapes and strides
// of CuTe layouts, e.g. (2,(3,4)). CuTe docs, "CuTe Layouts".
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_INTTUPLE_H
#define TILE_LAYOUT_INTTUPLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace mlir::tile {

/// An integer or a (possibly empty) tuple of IntTuples.
class IntTuple {
public:
  /// An integer leaf.
  IntTuple(int64_t value) : value(value), leaf(true) {}
  /// A tuple of the given elements: `IntTuple({2, {3, 4}})` is (2,(3,4)).
  IntTuple(std::initializer_list<IntTuple> elements)
      : elements(elements), leaf(false) {}
  /// A tuple of `elements`.
  static IntTuple tuple(llvm::ArrayRef<IntTuple> elements);

  bool isInt() const { return leaf; }
  /// The integer of a leaf.
  int64_t getInt() const;
  /// The elements of a tuple; a leaf is its own single element.
  llvm::ArrayRef<IntTuple> getElements() const;
  /// Number of top-level elements (1 for an integer, as in CuTe).
  size_t rank() const { return leaf ? 1 : elements.size(); }
  /// Element `i` of a tuple; element 0 of an integer is itself.
  const IntTuple &operator[](size_t i) const;

  /// Product of all leaves (1 for the empty tuple).
  int64_t product() const;
  /// The leaves in order.
  llvm::SmallVector<int64_t> flatten() const;
  /// True when `other` has the same nesting structure.
  bool isCongruent(const IntTuple &other) const;

  bool operator==(const IntTuple &other) const;
  bool operator!=(const IntTuple &other) const { return !(*this == other); }

  /// CuTe's notation: `4`, `(2,3)`, `((2,2),3)`.
  std::string str() const;

private:
  /// The empty tuple.
  IntTuple() : leaf(false) {}

  std::vector<IntTuple> elements;
  int64_t value = 0;
  bool leaf;
};

} // namespace mlir::tile

#endif // TILE_LAYOUT_INTTUPLE_H
