//===- IntTuple.cpp - Hierarchical integer tuples (CuTe) ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Layout/IntTuple.h"
#include "llvm/ADT/STLExtras.h"

#include <cassert>

using namespace mlir::tile;

IntTuple IntTuple::tuple(llvm::ArrayRef<IntTuple> elements) {
  IntTuple result;
  result.elements.assign(elements.begin(), elements.end());
  return result;
}

int64_t IntTuple::getInt() const {
  assert(leaf && "not an integer");
  return value;
}

llvm::ArrayRef<IntTuple> IntTuple::getElements() const {
  if (leaf)
    return llvm::ArrayRef<IntTuple>(*this);
  return elements;
}

const IntTuple &IntTuple::operator[](size_t i) const {
  assert(i < rank() && "element out of range");
  return leaf ? *this : elements[i];
}

int64_t IntTuple::product() const {
  if (leaf)
    return value;
  int64_t result = 1;
  for (const IntTuple &element : elements)
    result *= element.product();
  return result;
}

llvm::SmallVector<int64_t> IntTuple::flatten() const {
  if (leaf)
    return {value};
  llvm::SmallVector<int64_t> result;
  for (const IntTuple &element : elements)
    llvm::append_range(result, element.flatten());
  return result;
}

bool IntTuple::isCongruent(const IntTuple &other) const {
  if (leaf || other.leaf)
    return leaf == other.leaf;
  if (elements.size() != other.elements.size())
    return false;
  return llvm::all_of(llvm::zip_equal(elements, other.elements), [](auto pair) {
    return std::get<0>(pair).isCongruent(std::get<1>(pair));
  });
}

bool IntTuple::operator==(const IntTuple &other) const {
  if (leaf || other.leaf)
    return leaf == other.leaf && value == other.value;
  return elements == other.elements;
}

std::string IntTuple::str() const {
  if (leaf)
    return std::to_string(value);
  std::string result = "(";
  for (auto [i, element] : llvm::enumerate(elements))
    result += (i ? "," : "") + element.str();
  return result + ")";
}
