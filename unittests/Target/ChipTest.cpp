//===- ChipTest.cpp - Tests of the chip and PTX version table -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Target/Chip.h"
#include "gtest/gtest.h"

using namespace mlir::tile;

namespace {

TEST(ChipTest, LookUp) {
  std::optional<ChipInfo> hopper = lookupChip("sm_90a");
  ASSERT_TRUE(hopper);
  EXPECT_EQ(hopper->smVersion, 90u);
  EXPECT_TRUE(hopper->archSpecific);
  EXPECT_EQ(hopper->minPtxVersion, 80u);
  EXPECT_FALSE(lookupChip("sm_91"));
  EXPECT_FALSE(lookupChip(""));
}

/// Every chip's default PTX is one LLVM knows and the chip accepts.
TEST(ChipTest, DefaultFeaturesAreValid) {
  for (const ChipInfo &chip : getKnownChips()) {
    std::string error;
    std::optional<unsigned> ptx =
        parsePtxFeature(getDefaultPtxFeature(chip), error);
    ASSERT_TRUE(ptx) << chip.name.str() << ": " << error;
    EXPECT_GE(*ptx, chip.minPtxVersion) << chip.name.str();
    EXPECT_LE(*ptx, kMaxPtxVersion) << chip.name.str();
  }
  EXPECT_EQ(getDefaultPtxFeature(*lookupChip("sm_80")), "+ptx80");
  EXPECT_EQ(getDefaultPtxFeature(*lookupChip("sm_120a")), "+ptx87");
}

TEST(ChipTest, ParsePtxFeature) {
  std::string error;
  EXPECT_EQ(parsePtxFeature("+ptx80", error), 80u);
  EXPECT_EQ(parsePtxFeature(" +ptx90 ", error), 90u);
  EXPECT_FALSE(parsePtxFeature("+ptx89", error)); // not an LLVM 22 feature
  EXPECT_NE(error.find("+ptx88, +ptx90"), std::string::npos);
  EXPECT_FALSE(parsePtxFeature("ptx80", error));
  EXPECT_FALSE(parsePtxFeature("+ptx8x", error));
}

} // namespace
