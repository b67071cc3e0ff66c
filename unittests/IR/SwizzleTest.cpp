//===- SwizzleTest.cpp - Tests of #tile.swizzle math ----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileDialect.h"
#include "Tile/IR/TileOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

class SwizzleTest : public ::testing::Test {
protected:
  SwizzleTest() { context.loadDialect<TileDialect>(); }
  SwizzleAttr get(int32_t b, int32_t m, int32_t s) {
    return SwizzleAttr::get(&context, b, m, s);
  }
  MLIRContext context;
};

/// The 128B TMA swizzle: in each 1024-byte atom, the 16-byte chunk c of
/// row r (rows of 128 bytes) lands in chunk c ^ r.
TEST_F(SwizzleTest, Tma128BTable) {
  SwizzleAttr swizzle = SwizzleAttr::get(&context, TmaSwizzleMode::b128);
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t chunk = 0; chunk < 8; ++chunk)
      for (int64_t byte = 0; byte < 16; ++byte) {
        int64_t offset = row * 128 + chunk * 16 + byte;
        EXPECT_EQ(swizzle.apply(offset), row * 128 + (chunk ^ row) * 16 + byte)
            << "row " << row << " chunk " << chunk;
      }
}

/// 64B and 32B: a row of R bytes holds R/16 chunks, and 128/R consecutive
/// rows share one XOR key, so chunk c of row r goes to c ^ (r / (128/R)).
TEST_F(SwizzleTest, Tma64BAnd32BTables) {
  for (auto [mode, rowBytes] : {std::pair(TmaSwizzleMode::b64, 64),
                                std::pair(TmaSwizzleMode::b32, 32)}) {
    SwizzleAttr swizzle = SwizzleAttr::get(&context, mode);
    int64_t chunks = rowBytes / 16, rowsPerKey = 128 / rowBytes;
    for (int64_t row = 0; row < 8 * rowsPerKey; ++row)
      for (int64_t chunk = 0; chunk < chunks; ++chunk) {
        int64_t key = (row / rowsPerKey) % chunks;
        EXPECT_EQ(swizzle.apply(row * rowBytes + chunk * 16),
                  row * rowBytes + (chunk ^ key) * 16)
            << rowBytes << "B row " << row << " chunk " << chunk;
      }
  }
}

/// Every swizzle is a bijection on each period of 2^(B+M+|S|) bytes.
TEST_F(SwizzleTest, BijectionOnPeriod) {
  for (SwizzleAttr swizzle : {get(1, 4, 3), get(2, 4, 3), get(3, 4, 3),
                              get(3, 3, 3), get(2, 3, 3), get(2, 0, -4)}) {
    int64_t period = swizzle.getRepeatBytes();
    std::set<int64_t> images;
    for (int64_t offset = 0; offset < period; ++offset) {
      int64_t image = swizzle.apply(offset);
      EXPECT_GE(image, 0);
      EXPECT_LT(image, period);
      images.insert(image);
    }
    EXPECT_EQ(int64_t(images.size()), period);
  }
}

/// CuTe's Swizzle<3, 3, 3> on f16 element offsets is the 128B TMA
/// swizzle on byte offsets.
TEST_F(SwizzleTest, ElementSwizzleEqualsByteSwizzle) {
  SwizzleAttr onElements = get(3, 3, 3);
  SwizzleAttr onBytes = SwizzleAttr::get(&context, TmaSwizzleMode::b128);
  for (int64_t element = 0; element < 4096; ++element)
    EXPECT_EQ(onElements.apply(element) * 2, onBytes.apply(element * 2));
}

TEST_F(SwizzleTest, NegativeShiftMovesBitsUp) {
  // Swizzle<1, 4, -4>: bit 4 is XOR-ed into bit 8.
  SwizzleAttr swizzle = get(1, 4, -4);
  EXPECT_EQ(swizzle.apply(0x10), 0x110);
  EXPECT_EQ(swizzle.apply(0x100), 0x100);
}

TEST_F(SwizzleTest, TmaModesSpansAndAlignment) {
  struct Row {
    TmaSwizzleMode mode;
    int64_t span, repeat;
  };
  for (Row row :
       {Row{TmaSwizzleMode::b32, 32, 256}, Row{TmaSwizzleMode::b64, 64, 512},
        Row{TmaSwizzleMode::b128, 128, 1024}}) {
    SwizzleAttr swizzle = SwizzleAttr::get(&context, row.mode);
    EXPECT_EQ(swizzle.getTmaMode(), row.mode);
    EXPECT_EQ(swizzle.getSpanBytes(), row.span);
    EXPECT_EQ(swizzle.getRepeatBytes(), row.repeat);
  }
  EXPECT_EQ(get(0, 4, 3).getTmaMode(), TmaSwizzleMode::none);
  EXPECT_TRUE(get(0, 7, 2).isIdentity());
  EXPECT_EQ(get(0, 7, 2).apply(12345), 12345);
  EXPECT_EQ(get(3, 3, 3).getTmaMode(), std::nullopt);
}

/// T-SWZ-1/2 through the checked getter.
TEST_F(SwizzleTest, InvalidParametersAreRejected) {
  auto noDiag = [&] { return emitError(UnknownLoc::get(&context)); };
  context.getDiagEngine().registerHandler(
      [](Diagnostic &) { return success(); });
  EXPECT_FALSE(SwizzleAttr::getChecked(noDiag, &context, 3, 4, 2));
  EXPECT_FALSE(SwizzleAttr::getChecked(noDiag, &context, -1, 4, 3));
  EXPECT_FALSE(SwizzleAttr::getChecked(noDiag, &context, 8, 16, 8));
  EXPECT_TRUE(SwizzleAttr::getChecked(noDiag, &context, 3, 4, 3));
}

} // namespace
