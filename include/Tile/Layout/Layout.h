//===- Layout.h - CuTe layout algebra ---------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A layout is a function from a (hierarchical) coordinate space to integers,
// given by a shape and a congruent stride (CuTe docs, "CuTe Layout Algebra"):
// L(x) = sum_i x_i * d_i where (x_i) is the colexicographic coordinate of x
// in the shape. The operations follow CuTe (cute/layout.hpp): coalesce,
// concatenation, complement, composition, right inverse, the divides and
// products, and composition with a swizzle. Operations whose divisibility
// conditions fail (e.g. logical_divide((5,4):(1,30), 4:1)) return an
// llvm::Error naming the condition and the values instead of a wrong layout.
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_LAYOUT_H
#define TILE_LAYOUT_LAYOUT_H

#include "Tile/Layout/IntTuple.h"
#include "llvm/Support/Error.h"

namespace mlir::tile {

/// A shape:stride pair of congruent IntTuples.
class Layout {
public:
  /// `shape:stride`; the tuples must be congruent (checked with assert; use
  /// `get` for unchecked input).
  Layout(IntTuple shape, IntTuple stride);
  /// The compact column-major ("layout left") layout of `shape`.
  explicit Layout(IntTuple shape);
  /// `shape:stride`, or an error when they are not congruent or a shape is
  /// below 1.
  static llvm::Expected<Layout> get(IntTuple shape, IntTuple stride);
  /// The layout whose modes are `modes` (CuTe's make_layout of layouts).
  static Layout concat(llvm::ArrayRef<Layout> modes);

  const IntTuple &getShape() const { return shape; }
  const IntTuple &getStride() const { return stride; }
  /// Number of top-level modes.
  size_t rank() const { return shape.rank(); }
  /// Mode `i` as a layout.
  Layout operator[](size_t i) const;
  /// The modes of the layout.
  std::vector<Layout> getModes() const;

  /// Size of the domain: the product of the shape.
  int64_t size() const { return shape.product(); }
  /// Size of the codomain: L(size - 1) + 1 for non-negative strides.
  int64_t cosize() const;
  /// L(index) for a linear (colexicographic) index into the domain.
  int64_t operator()(int64_t index) const;

  bool operator==(const Layout &other) const {
    return shape == other.shape && stride == other.stride;
  }
  bool operator!=(const Layout &other) const { return !(*this == other); }

  /// `(2,3):(1,2)`, as CuTe prints.
  std::string str() const;

private:
  IntTuple shape, stride;
};

/// Merges modes that are contiguous in the codomain and drops size-1 modes;
/// the result is flat (a single integer mode when possible).
Layout coalesce(const Layout &layout);

/// The layout that, concatenated with `layout`, covers [0, cotarget): its
/// modes fill the holes of `layout` and repeat it (CuTe's complement).
Layout complement(const Layout &layout, int64_t cotarget);

/// A ∘ B: the layout with B's domain whose values are A(B(x)). Fails when a
/// stride of B does not divide into A's modes (or vice versa).
llvm::Expected<Layout> composition(const Layout &a, const Layout &b);

/// By-mode composition with a tiler: mode i of A composed with tiler[i];
/// modes beyond the tiler stay.
llvm::Expected<Layout> composition(const Layout &a,
                                   llvm::ArrayRef<Layout> tiler);

/// The layout R with L(R(i)) = i on the largest prefix of L's codomain it
/// can cover (CuTe's right_inverse).
Layout rightInverse(const Layout &layout);

/// A composed with the compact layout of `shape` (CuTe's with_shape).
llvm::Expected<Layout> withShape(const Layout &layout, const IntTuple &shape);

/// A ∘ (B, complement(B, size(A))): B's tiles of A, then the rest.
llvm::Expected<Layout> logicalDivide(const Layout &a, const Layout &b);
/// By mode: ((TileM,RestM), (TileN,RestN), L, ...).
llvm::Expected<Layout> logicalDivide(const Layout &a,
                                     llvm::ArrayRef<Layout> tiler);
/// ((TileM,TileN), (RestM,RestN,L,...)).
llvm::Expected<Layout> zippedDivide(const Layout &a,
                                    llvm::ArrayRef<Layout> tiler);
/// ((TileM,TileN), RestM, RestN, L, ...).
llvm::Expected<Layout> tiledDivide(const Layout &a,
                                   llvm::ArrayRef<Layout> tiler);

/// (A, complement(A, size(A) * cosize(B)) ∘ B): A repeated as B says.
llvm::Expected<Layout> logicalProduct(const Layout &a, const Layout &b);
/// ((x,z),(y,w)) of rank-equalized A = (x,y), B = (z,w): blocks of A.
llvm::Expected<Layout> blockedProduct(const Layout &a, const Layout &b);
/// ((z,x),(w,y)): A's elements interleaved (raked) over B.
llvm::Expected<Layout> rakedProduct(const Layout &a, const Layout &b);

/// CuTe's Swizzle<B, M, S> applied after a layout: the function
/// x -> swz(L(x)) with swz(o) = o ^ ((o & ((2^B - 1) << (M + max(S, 0)))) >>
/// S).
class SwizzledLayout {
public:
  SwizzledLayout(int32_t bits, int32_t base, int32_t shift, Layout layout)
      : bits(bits), base(base), shift(shift), layout(std::move(layout)) {}
  /// The swizzle of an offset.
  int64_t swizzle(int64_t offset) const;
  /// swz(L(index)).
  int64_t operator()(int64_t index) const { return swizzle(layout(index)); }
  const Layout &getLayout() const { return layout; }
  /// The swizzle composed with layout ∘ B (CuTe keeps the swizzle outside).
  llvm::Expected<SwizzledLayout> compose(const Layout &b) const;
  /// `Sw<3,3,3> o (8,64):(64,1)`.
  std::string str() const;

private:
  int32_t bits, base, shift;
  Layout layout;
};

} // namespace mlir::tile

#endif // TILE_LAYOUT_LAYOUT_H
