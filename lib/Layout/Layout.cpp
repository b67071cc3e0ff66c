//===- Layout.cpp - CuTe layout algebra -----------------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The algorithms follow CuTe's definitions (cute/layout.hpp; "A note on the
// algebra of CuTe Layouts", Colfax): complement folds over the modes sorted
// by stride; composition walks B's strides through A's coalesced modes.
//===----------------------------------------------------------------------===//

#include "Tile/Layout/Layout.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <tuple>

using namespace mlir::tile;

namespace {

llvm::Error fail(const std::string &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The compact column-major strides of `shape`, starting at `*next`.
IntTuple compactStrides(const IntTuple &shape, int64_t &next) {
  if (shape.isInt()) {
    int64_t stride = next;
    next *= shape.getInt();
    return IntTuple(stride);
  }
  llvm::SmallVector<IntTuple> strides;
  for (const IntTuple &element : shape.getElements())
    strides.push_back(compactStrides(element, next));
  return IntTuple::tuple(strides);
}

bool hasPositiveShapes(const IntTuple &shape) {
  return llvm::all_of(shape.flatten(), [](int64_t s) { return s >= 1; });
}

/// The layout of flat modes, a single integer mode when there is one.
Layout fromFlatModes(llvm::ArrayRef<int64_t> shapes,
                     llvm::ArrayRef<int64_t> strides) {
  if (shapes.size() == 1)
    return Layout(shapes[0], strides[0]);
  llvm::SmallVector<IntTuple> shapeTuple(shapes.begin(), shapes.end());
  llvm::SmallVector<IntTuple> strideTuple(strides.begin(), strides.end());
  return Layout(IntTuple::tuple(shapeTuple), IntTuple::tuple(strideTuple));
}

/// L(index) on one (possibly nested) mode.
int64_t evaluate(const IntTuple &shape, const IntTuple &stride, int64_t index) {
  if (shape.isInt())
    return index * stride.getInt();
  int64_t result = 0;
  size_t last = shape.rank() - 1;
  for (size_t i = 0; i <= last; ++i) {
    int64_t extent = shape[i].product();
    int64_t coordinate = i == last ? index : index % extent;
    result += evaluate(shape[i], stride[i], coordinate);
    index /= extent;
  }
  return result;
}

/// Pads `layout` to `rank` modes with 1:0 (CuTe's append<R>).
Layout appendModes(const Layout &layout, size_t rank) {
  std::vector<Layout> modes = layout.getModes();
  while (modes.size() < rank)
    modes.push_back(Layout(IntTuple(1), IntTuple(0)));
  return Layout::concat(modes);
}

/// Composition of A with a B of integer shape.
llvm::Expected<Layout> composeWithMode(const Layout &a, int64_t bShape,
                                       int64_t bStride) {
  if (bShape < 1 || bStride < 0)
    return fail("mode " + std::to_string(bShape) + ":" +
                std::to_string(bStride) +
                " of the right operand has no positive extent or a negative "
                "stride (composition is not admissible)");
  if (bStride == 0 || bShape == 1)
    return Layout(bShape, 0);
  Layout flatA = coalesce(a);
  llvm::SmallVector<int64_t> aShapes = flatA.getShape().flatten();
  llvm::SmallVector<int64_t> aStrides = flatA.getStride().flatten();
  llvm::SmallVector<int64_t> shapes, strides;
  int64_t restShape = bShape, restStride = bStride;
  for (size_t i = 0; i + 1 < aShapes.size(); ++i) {
    int64_t currShape = aShapes[i], currStride = aStrides[i];
    if (currShape < 1)
      return fail("extent " + std::to_string(currShape) + " of " + a.str() +
                  " is not positive (composition is not admissible)");
    if (currShape % restStride != 0 && restStride % currShape != 0)
      return fail("stride " + std::to_string(restStride) +
                  " of the right operand neither divides nor is divided by "
                  "extent " +
                  std::to_string(currShape) + " of " + a.str() +
                  " (composition is not admissible)");
    int64_t newShape =
        std::min(std::max<int64_t>(1, currShape / restStride), restShape);
    if (newShape != 1) {
      if (restShape % newShape != 0)
        return fail("extent " + std::to_string(restShape) +
                    " of the right operand is not a multiple of " +
                    std::to_string(newShape) + ", the part of mode " +
                    std::to_string(currShape) + ":" +
                    std::to_string(currStride) + " of " + a.str() +
                    " it covers (composition is not admissible)");
      shapes.push_back(newShape);
      strides.push_back(restStride * currStride);
    }
    restShape /= newShape;
    restStride = (restStride + currShape - 1) / currShape;
  }
  if (restShape != 1 || shapes.empty()) {
    shapes.push_back(restShape);
    strides.push_back(restShape == 1 ? 0 : restStride * aStrides.back());
  }
  return fromFlatModes(shapes, strides);
}

} // namespace

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Layout::Layout(IntTuple shape, IntTuple stride)
    : shape(std::move(shape)), stride(std::move(stride)) {
  assert(this->shape.isCongruent(this->stride) && "incongruent layout");
}

Layout::Layout(IntTuple shape) : shape(shape), stride(0) {
  int64_t next = 1;
  stride = compactStrides(this->shape, next);
}

llvm::Expected<Layout> Layout::get(IntTuple shape, IntTuple stride) {
  if (!shape.isCongruent(stride))
    return fail("shape " + shape.str() + " and stride " + stride.str() +
                " are not congruent");
  if (!hasPositiveShapes(shape))
    return fail("shape " + shape.str() + " has an extent below 1");
  // Bounds that keep every size, cosize and product of the algebra within
  // 64 bits (a layout of a tile never comes near them).
  constexpr int64_t kMaxExtent = int64_t(1) << 31;
  int64_t size = 1;
  for (int64_t extent : shape.flatten()) {
    size *= extent;
    if (extent > kMaxExtent || size > kMaxExtent)
      return fail("shape " + shape.str() + " has more than 2^31 elements");
  }
  for (int64_t s : stride.flatten())
    if (s < -kMaxExtent || s > kMaxExtent)
      return fail("stride " + stride.str() + " is not in [-2^31, 2^31]");
  return Layout(std::move(shape), std::move(stride));
}

Layout Layout::concat(llvm::ArrayRef<Layout> modes) {
  llvm::SmallVector<IntTuple> shapes, strides;
  for (const Layout &mode : modes) {
    shapes.push_back(mode.shape);
    strides.push_back(mode.stride);
  }
  return Layout(IntTuple::tuple(shapes), IntTuple::tuple(strides));
}

Layout Layout::operator[](size_t i) const {
  return Layout(shape[i], stride[i]);
}

std::vector<Layout> Layout::getModes() const {
  std::vector<Layout> modes;
  for (size_t i = 0; i < rank(); ++i)
    modes.push_back((*this)[i]);
  return modes;
}

int64_t Layout::cosize() const { return (*this)(size() - 1) + 1; }

int64_t Layout::operator()(int64_t index) const {
  return evaluate(shape, stride, index);
}

std::string Layout::str() const { return shape.str() + ":" + stride.str(); }

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

Layout mlir::tile::coalesce(const Layout &layout) {
  llvm::SmallVector<int64_t> shapes = {1}, strides = {0};
  for (auto [shape, stride] : llvm::zip_equal(layout.getShape().flatten(),
                                              layout.getStride().flatten())) {
    if (shape == 1)
      continue;
    if (shapes.back() == 1) {
      shapes.back() = shape;
      strides.back() = stride;
    } else if (shapes.back() * strides.back() == stride) {
      shapes.back() *= shape;
    } else {
      shapes.push_back(shape);
      strides.push_back(stride);
    }
  }
  return fromFlatModes(shapes, strides);
}

Layout mlir::tile::complement(const Layout &layout, int64_t cotarget) {
  llvm::SmallVector<std::pair<int64_t, int64_t>> modes; // (stride, shape)
  for (auto [shape, stride] : llvm::zip_equal(layout.getShape().flatten(),
                                              layout.getStride().flatten()))
    if (stride != 0 && shape != 1)
      modes.emplace_back(stride, shape);
  llvm::sort(modes);
  llvm::SmallVector<int64_t> shapes, strides;
  int64_t current = 1;
  for (auto [stride, shape] : modes) {
    // Integer division as in CuTe: a layout with holes (e.g. (4,3):(4,1))
    // gets the complement of its image's hull.
    shapes.push_back(stride / current);
    strides.push_back(current);
    current = shape * stride;
  }
  shapes.push_back((cotarget + current - 1) / current);
  strides.push_back(current);
  return coalesce(fromFlatModes(shapes, strides));
}

llvm::Expected<Layout> mlir::tile::composition(const Layout &a,
                                               const Layout &b) {
  if (b.getShape().isInt())
    return composeWithMode(a, b.getShape().getInt(), b.getStride().getInt());
  llvm::SmallVector<Layout> modes;
  for (const Layout &mode : b.getModes()) {
    llvm::Expected<Layout> composed = composition(a, mode);
    if (!composed)
      return composed.takeError();
    modes.push_back(*composed);
  }
  return Layout::concat(modes);
}

/// Applies `apply` to mode i of A and tiler[i]; modes beyond the tiler stay.
static llvm::Expected<Layout> byMode(
    const Layout &a, llvm::ArrayRef<Layout> tiler,
    llvm::function_ref<llvm::Expected<Layout>(const Layout &, const Layout &)>
        apply) {
  if (tiler.size() > a.rank())
    return fail("a tiler of rank " + std::to_string(tiler.size()) +
                " does not fit " + a.str() + " of rank " +
                std::to_string(a.rank()));
  std::vector<Layout> modes = a.getModes();
  for (auto [i, tile] : llvm::enumerate(tiler)) {
    llvm::Expected<Layout> result = apply(modes[i], tile);
    if (!result)
      return result.takeError();
    modes[i] = *result;
  }
  return Layout::concat(modes);
}

llvm::Expected<Layout> mlir::tile::composition(const Layout &a,
                                               llvm::ArrayRef<Layout> tiler) {
  return byMode(a, tiler, [](const Layout &mode, const Layout &tile) {
    return composition(mode, tile);
  });
}

Layout mlir::tile::rightInverse(const Layout &layout) {
  llvm::SmallVector<int64_t> shapes = layout.getShape().flatten();
  llvm::SmallVector<int64_t> strides = layout.getStride().flatten();
  // (stride, shape, the mode's stride in the domain)
  llvm::SmallVector<std::tuple<int64_t, int64_t, int64_t>> modes;
  int64_t domainStride = 1;
  for (auto [shape, stride] : llvm::zip_equal(shapes, strides)) {
    modes.emplace_back(stride, shape, domainStride);
    domainStride *= shape;
  }
  llvm::sort(modes);
  llvm::SmallVector<int64_t> resultShapes, resultStrides;
  int64_t current = 1;
  for (auto [stride, shape, rstride] : modes) {
    if (shape == 1)
      continue;
    if (stride != current)
      break;
    resultShapes.push_back(shape);
    resultStrides.push_back(rstride);
    current = shape * stride;
  }
  if (resultShapes.empty())
    return Layout(1, 0);
  return coalesce(fromFlatModes(resultShapes, resultStrides));
}

llvm::Expected<Layout> mlir::tile::withShape(const Layout &layout,
                                             const IntTuple &shape) {
  return composition(layout, Layout(shape));
}

llvm::Expected<Layout> mlir::tile::logicalDivide(const Layout &a,
                                                 const Layout &b) {
  return composition(a, Layout::concat({b, complement(b, a.size())}));
}

llvm::Expected<Layout> mlir::tile::logicalDivide(const Layout &a,
                                                 llvm::ArrayRef<Layout> tiler) {
  return byMode(a, tiler, [](const Layout &mode, const Layout &tile) {
    return logicalDivide(mode, tile);
  });
}

/// The tile and rest modes of a by-mode logical divide.
static llvm::Expected<
    std::pair<llvm::SmallVector<Layout>, llvm::SmallVector<Layout>>>
splitDivide(const Layout &a, llvm::ArrayRef<Layout> tiler) {
  llvm::Expected<Layout> divided = logicalDivide(a, tiler);
  if (!divided)
    return divided.takeError();
  llvm::SmallVector<Layout> tiles, rests;
  for (size_t i = 0; i < divided->rank(); ++i) {
    if (i < tiler.size()) {
      tiles.push_back((*divided)[i][0]);
      rests.push_back((*divided)[i][1]);
    } else {
      rests.push_back((*divided)[i]);
    }
  }
  return std::make_pair(tiles, rests);
}

llvm::Expected<Layout> mlir::tile::zippedDivide(const Layout &a,
                                                llvm::ArrayRef<Layout> tiler) {
  auto split = splitDivide(a, tiler);
  if (!split)
    return split.takeError();
  return Layout::concat(
      {Layout::concat(split->first), Layout::concat(split->second)});
}

llvm::Expected<Layout> mlir::tile::tiledDivide(const Layout &a,
                                               llvm::ArrayRef<Layout> tiler) {
  auto split = splitDivide(a, tiler);
  if (!split)
    return split.takeError();
  llvm::SmallVector<Layout> modes = {Layout::concat(split->first)};
  llvm::append_range(modes, split->second);
  return Layout::concat(modes);
}

llvm::Expected<Layout> mlir::tile::logicalProduct(const Layout &a,
                                                  const Layout &b) {
  llvm::Expected<Layout> repeated =
      composition(complement(a, a.size() * b.cosize()), b);
  if (!repeated)
    return repeated.takeError();
  return Layout::concat({a, *repeated});
}

/// Blocked (block first) or raked (tiler first) zip of a rank-equalized
/// logical product.
static llvm::Expected<Layout> zipProduct(const Layout &a, const Layout &b,
                                         bool blockFirst) {
  size_t rank = std::max(a.rank(), b.rank());
  llvm::Expected<Layout> product =
      logicalProduct(appendModes(a, rank), appendModes(b, rank));
  if (!product)
    return product.takeError();
  Layout block = (*product)[0], tiles = (*product)[1];
  llvm::SmallVector<Layout> modes;
  for (size_t i = 0; i < rank; ++i)
    modes.push_back(blockFirst ? Layout::concat({block[i], tiles[i]})
                               : Layout::concat({tiles[i], block[i]}));
  return Layout::concat(modes);
}

llvm::Expected<Layout> mlir::tile::blockedProduct(const Layout &a,
                                                  const Layout &b) {
  return zipProduct(a, b, /*blockFirst=*/true);
}

llvm::Expected<Layout> mlir::tile::rakedProduct(const Layout &a,
                                                const Layout &b) {
  return zipProduct(a, b, /*blockFirst=*/false);
}

//===----------------------------------------------------------------------===//
// SwizzledLayout
//===----------------------------------------------------------------------===//

int64_t SwizzledLayout::swizzle(int64_t offset) const {
  int64_t mask = ((int64_t(1) << bits) - 1) << (base + std::max(0, shift));
  int64_t moved =
      shift >= 0 ? (offset & mask) >> shift : (offset & mask) << -shift;
  return offset ^ moved;
}

llvm::Expected<SwizzledLayout> SwizzledLayout::compose(const Layout &b) const {
  llvm::Expected<Layout> inner = composition(layout, b);
  if (!inner)
    return inner.takeError();
  return SwizzledLayout(bits, base, shift, *inner);
}

std::string SwizzledLayout::str() const {
  return "Sw<" + std::to_string(bits) + "," + std::to_string(base) + "," +
         std::to_string(shift) + "> o " + layout.str();
}
