//===- TmaDescTest.cpp - Tests of !tile.tma_desc helpers ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

TEST(TmaDescTest, BoxBytesAndSharedTile) {
  MLIRContext context;
  context.loadDialect<TileDialect>();
  Type f16 = Float16Type::get(&context);
  auto tensor = MemRefType::get({ShapedType::kDynamic, 4096}, f16);
  auto desc = TmaDescType::get(&context, tensor, {128, 64},
                               SwizzleAttr::get(&context, TmaSwizzleMode::b128),
                               TmaL2Promotion::b128, TmaOobFill::zero,
                               TmaInterleave::none,
                               /*im2colLower=*/{}, /*im2colUpper=*/{});
  EXPECT_EQ(desc.getBoxBytes(), 128 * 64 * 2);
  MemRefType tile = desc.getSharedTileType();
  EXPECT_EQ(tile.getShape(), ArrayRef<int64_t>({128, 64}));
  EXPECT_EQ(tile.getElementType(), f16);
  EXPECT_EQ(cast<IntegerAttr>(tile.getMemorySpace()).getInt(), 3);
}

TEST(MBarrierTest, DefaultsAndSize) {
  MLIRContext context;
  context.loadDialect<TileDialect>();
  auto single = MBarrierType::get(&context);
  EXPECT_EQ(single.getCount(), 1u);
  EXPECT_EQ(single.getScope(), MBarrierScope::cta);
  EXPECT_EQ(
      MBarrierType::get(&context, 6, MBarrierScope::cluster).getSizeInBytes(),
      48);
}

} // namespace
