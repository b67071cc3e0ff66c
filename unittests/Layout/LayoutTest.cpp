//===- LayoutTest.cpp - The CuTe layout algebra on worked examples --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Worked examples of the layout algebra and of TiledCopy with CuTe's exact
// result, in CuTe's printed form without the static "_" marks.
//===----------------------------------------------------------------------===//

#include "Tile/Layout/Layout.h"
#include "gtest/gtest.h"

using namespace mlir::tile;

namespace {

/// The value of an Expected layout, failing the test on an error.
Layout valueOf(llvm::Expected<Layout> layout) {
  if (!layout) {
    ADD_FAILURE() << llvm::toString(layout.takeError());
    return Layout(1, 0);
  }
  return *layout;
}

/// The error text of an Expected that must fail.
std::string errorOf(llvm::Expected<Layout> layout) {
  if (layout) {
    ADD_FAILURE() << "expected an error, got " << layout->str();
    return "";
  }
  return llvm::toString(layout.takeError());
}

TEST(LayoutTest, ShapesStridesAndEvaluation) {
  // The natural (column-major) layout of (2,3) is (2,3):(1,2);
  // row-major is (2,3):(3,1).
  Layout left(IntTuple({2, 3}));
  EXPECT_EQ(left.str(), "(2,3):(1,2)");
  Layout right({2, 3}, {3, 1});
  EXPECT_EQ(right(1), 3); // coordinate (1,0)
  EXPECT_EQ(right(2), 1); // coordinate (0,1)
  EXPECT_EQ(right.size(), 6);
  EXPECT_EQ(right.cosize(), 6);
  Layout nested(IntTuple({2, {3, 4}}));
  EXPECT_EQ(nested.str(), "(2,(3,4)):(1,(2,6))");
  EXPECT_EQ(nested.rank(), 2u);
  EXPECT_EQ(nested[1].str(), "(3,4):(2,6)");
  EXPECT_FALSE(static_cast<bool>(Layout::get({2, 3}, {1})));
  llvm::Expected<Layout> bad = Layout::get({2, 0}, {1, 2});
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "shape (2,0) has an extent below 1");
}

TEST(LayoutTest, CoalesceAndConcat) {
  // coalesce((2,3):(1,2)) = 6:1; concat with 4:10 = (2,3,4):(1,2,10).
  Layout a({2, 3}, {1, 2});
  EXPECT_EQ(coalesce(a).str(), "6:1");
  Layout concatenated = Layout::concat({a[0], a[1], Layout(4, 10)});
  EXPECT_EQ(concatenated.str(), "(2,3,4):(1,2,10)");
  EXPECT_EQ(coalesce(Layout({2, {1, 6}}, {1, {7, 2}})).str(), "12:1");
}

TEST(LayoutTest, Complement) {
  // complement(4:2, 8) = 2:1, and concat(A, B) = (4,2):(2,1).
  Layout a(4, 2);
  Layout b = complement(a, 8);
  EXPECT_EQ(b.str(), "2:1");
  EXPECT_EQ(Layout::concat({a, b}).str(), "(4,2):(2,1)");
  // complement((2,3):(2,4), 24) = (2,2):(1,12).
  EXPECT_EQ(complement(Layout({2, 3}, {2, 4}), 24).str(), "(2,2):(1,12)");
  // The complement a divide by 4:1 uses: complement(4:1, 20) = 5:4.
  EXPECT_EQ(complement(Layout(4, 1), 20).str(), "5:4");
}

TEST(LayoutTest, CompositionTV2Memory) {
  // TV2Memory = MN2Memory o TV2MN = ((2,2),2,2):((8,1),4,2), and
  // thread 0's four values live at memory 0, 4, 2, 6.
  Layout tv2mn({4, 2, 2}, {2, 1, 8});
  Layout mn2memory({4, 4}, {4, 1});
  Layout tv2memory = valueOf(composition(mn2memory, tv2mn));
  EXPECT_EQ(tv2memory.str(), "((2,2),2,2):((8,1),4,2)");
  for (int64_t i = 0; i < tv2mn.size(); ++i)
    EXPECT_EQ(tv2memory(i), mn2memory(tv2mn(i))) << i;
  EXPECT_EQ(tv2memory(0), 0);
  EXPECT_EQ(tv2memory(4), 4);  // value (1,0) of thread 0
  EXPECT_EQ(tv2memory(8), 2);  // value (0,1)
  EXPECT_EQ(tv2memory(12), 6); // value (1,1)
}

TEST(LayoutTest, RightInverse) {
  // (2,3):(3,1) maps 0..5 to 0,3,1,4,2,5; its
  // inverse maps them back: (3,2):(2,1).
  Layout l({2, 3}, {3, 1});
  Layout inverse = rightInverse(l);
  EXPECT_EQ(inverse.str(), "(3,2):(2,1)");
  for (int64_t i = 0; i < l.size(); ++i)
    EXPECT_EQ(l(inverse(i)), i);
}

TEST(LayoutTest, LogicalDivide) {
  // Dividing (5,4):(1,30) by 4:1 is not admissible: the tiler and its
  // complement (4,5):(1,4) do not compose with A.
  Layout a({5, 4}, {1, 30});
  std::string error = errorOf(logicalDivide(a, Layout(4, 1)));
  EXPECT_NE(error.find("not admissible"), std::string::npos) << error;
  // The usual case: 16:1 divided by 4:1 is (4,4):(1,4).
  EXPECT_EQ(valueOf(logicalDivide(Layout(16, 1), Layout(4, 1))).str(),
            "(4,4):(1,4)");
}

TEST(LayoutTest, ZippedAndTiledDivide) {
  // (M,N) = (8,6) column-major, tiler <4:1, 3:1>:
  // logical ((4,2),(3,2)), zipped ((4,3),(2,2)), tiled ((4,3),2,2).
  Layout mn(IntTuple({8, 6}));
  llvm::SmallVector<Layout> tiler = {Layout(4, 1), Layout(3, 1)};
  EXPECT_EQ(valueOf(logicalDivide(mn, tiler)).str(),
            "((4,2),(3,2)):((1,4),(8,24))");
  EXPECT_EQ(valueOf(zippedDivide(mn, tiler)).str(),
            "((4,3),(2,2)):((1,8),(4,24))");
  EXPECT_EQ(valueOf(tiledDivide(mn, tiler)).str(), "((4,3),2,2):((1,8),4,24)");
}

TEST(LayoutTest, ProductsOfTiledCopyLayouts) {
  // TiledCopy: logical and raked products of (32,4):(4,1) with
  // (2,8):(8,1).
  Layout l({32, 4}, {4, 1});
  Layout tiler({2, 8}, {8, 1});
  EXPECT_EQ(valueOf(logicalProduct(l, tiler)).str(),
            "((32,4),(2,8)):((4,1),(1024,128))");
  EXPECT_EQ(valueOf(rakedProduct(l, tiler)).str(),
            "((2,32),(8,4)):((1024,4),(128,1))");
}

TEST(LayoutTest, BlockedProductOrder) {
  // Product order: growing (4,3):(4,1) in mode 1 then
  // mode 0 differs from growing both at once.
  Layout base({4, 3}, {4, 1});
  Layout x2 = valueOf(blockedProduct(base, Layout(IntTuple({1, 2}))));
  EXPECT_EQ(x2.str(), "((4,1),(3,2)):((4,0),(1,16))");
  Layout x2x2 = valueOf(blockedProduct(x2, Layout(IntTuple({2, 1}))));
  EXPECT_EQ(x2x2.str(), "(((4,1),2),((3,2),1)):(((4,0),32),((1,16),0))");
  Layout x4 = valueOf(blockedProduct(base, Layout(IntTuple({2, 2}))));
  EXPECT_EQ(x4.str(), "((4,2),(3,2)):((4,16),(1,32))");
}

TEST(LayoutTest, ProductNotAdmissible) {
  // logical_product((4,5):(30,1), (2,4)) is not admissible.
  std::string error = errorOf(
      logicalProduct(Layout({4, 5}, {30, 1}), Layout(IntTuple({2, 4}))));
  EXPECT_NE(error.find("not admissible"), std::string::npos) << error;
}

TEST(LayoutTest, TiledCopyThreadValueLayout) {
  // make_tiled_copy: thr (32,4):(4,1) and val (1,8) give
  // (m,n) -> (t,v) by a raked product; its right inverse with shape
  // (128,8) is the (t,v) -> (m,n) layout: thread t's 8 values are row
  // t / 4, columns 8 * (t % 4) .. + 7 of the 32x32 tile.
  Layout thr({32, 4}, {4, 1});
  Layout val(IntTuple({1, 8}));
  Layout mn = valueOf(rakedProduct(thr, val));
  Layout tv = valueOf(withShape(rightInverse(mn), IntTuple({128, 8})));
  for (int64_t t = 0; t < 128; ++t)
    for (int64_t v = 0; v < 8; ++v) {
      int64_t m = t / 4, n = 8 * (t % 4) + v;
      EXPECT_EQ(tv(t + 128 * v), m + 32 * n) << "t=" << t << " v=" << v;
    }
}

TEST(LayoutTest, SwizzleComposition) {
  // The hgemm's smem layout: Swizzle<3,3,3> o (8,64):(64,1) on f16
  // elements; rows 0..7 of column 0 land in distinct 16-byte units.
  SwizzledLayout smem(3, 3, 3, Layout({8, 64}, {64, 1}));
  EXPECT_EQ(smem.str(), "Sw<3,3,3> o (8,64):(64,1)");
  for (int64_t row = 0; row < 8; ++row)
    EXPECT_EQ(smem(row) / 8 % 8, row) << row; // (row, 0): unit row ^ 0
  EXPECT_EQ(smem(1 + 8 * 8), 64 + (8 ^ 8));   // (1, 8): unit 1 ^ 1 = 0
  SwizzledLayout sub = llvm::cantFail(smem.compose(Layout(8, 1)));
  EXPECT_EQ(sub.str(), "Sw<3,3,3> o 8:64");
}

} // namespace
