//===- BarrierOpInterfaceTest.cpp - Tests of the mbarrier roles of ops ----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Ops built on the arguments of a block: two barrier groups, an index, an
/// i32, an i1, a token, a TMA descriptor, a shared tile and an i16.
class BarrierOpInterfaceTest : public testing::Test {
protected:
  BarrierOpInterfaceTest() {
    context.loadDialect<TileDialect>();
    Type f16 = Float16Type::get(&context);
    auto desc = TmaDescType::get(
        &context, MemRefType::get({256, 64}, f16), {128, 64},
        SwizzleAttr::get(&context, TmaSwizzleMode::b128), TmaL2Promotion::none,
        TmaOobFill::zero, TmaInterleave::none, {}, {});
    Type types[] = {MBarrierType::get(&context, 4),
                    MBarrierType::get(&context, 4),
                    builder.getIndexType(),
                    builder.getI32Type(),
                    builder.getI1Type(),
                    MBarrierTokenType::get(&context),
                    desc,
                    desc.getSharedTileType(),
                    builder.getI16Type()};
    for (Type type : types)
      block.addArgument(type, loc);
    builder.setInsertionPointToEnd(&block);
  }

  Value arg(unsigned i) { return block.getArgument(i); }
  Value bars() { return arg(0); }
  Value index() { return arg(2); }

  MLIRContext context;
  Block block;
  OpBuilder builder{&context};
  Location loc = UnknownLoc::get(&context);
};

/// A fixed count, or std::nullopt for one an operand gives.
std::optional<int64_t> fixed(OpFoldResult count) {
  return isa<Attribute>(count) ? getConstantIntValue(count) : std::nullopt;
}

TEST_F(BarrierOpInterfaceTest, InitArriveInval) {
  auto init = cast<BarrierOpInterface>(
      MBarrierInitOp::create(builder, loc, bars(), index(), arg(3), Value())
          .getOperation());
  EXPECT_EQ(init.getBarrierGroup(), bars());
  EXPECT_EQ(init.getBarrierIndex(), index());
  EXPECT_EQ(init.getBarrierIndexMutable().getOperandNumber(), 1u);
  EXPECT_EQ(init.getInitCount(), arg(3));
  EXPECT_EQ(fixed(init.getArrivalCount()), 0);

  Type token = MBarrierTokenType::get(&context);
  auto arrive = cast<BarrierOpInterface>(
      MBarrierArriveOp::create(builder, loc, token, bars(), index(), Value())
          .getOperation());
  EXPECT_FALSE(arrive.getInitCount());
  EXPECT_EQ(fixed(arrive.getArrivalCount()), 1);
  auto arriveN = cast<BarrierOpInterface>(
      MBarrierArriveOp::create(builder, loc, token, bars(), index(), arg(3))
          .getOperation());
  EXPECT_EQ(dyn_cast<Value>(arriveN.getArrivalCount()), arg(3));

  auto expectTx =
      cast<BarrierOpInterface>(MBarrierArriveExpectTxOp::create(
                                   builder, loc, token, bars(), index(), arg(3))
                                   .getOperation());
  EXPECT_EQ(fixed(expectTx.getArrivalCount()), 1);
  EXPECT_EQ(dyn_cast<Value>(expectTx.getExpectedTxBytes()), arg(3));
  EXPECT_EQ(fixed(expectTx.getCompletedTxBytes()), 0);

  auto copies =
      cast<BarrierOpInterface>(AsyncCopyMBarrierArriveOp::create(
                                   builder, loc, bars(), index(), UnitAttr())
                                   .getOperation());
  EXPECT_EQ(fixed(copies.getArrivalCount()), 0);

  auto inval = cast<BarrierOpInterface>(
      MBarrierInvalOp::create(builder, loc, bars(), index()).getOperation());
  EXPECT_TRUE(inval.isInval());
  EXPECT_FALSE(inval.isWait());
  EXPECT_TRUE(inval.namesSameBarrier(init));
  EXPECT_FALSE(inval.namesSameBarrier(cast<BarrierOpInterface>(
      MBarrierInvalOp::create(builder, loc, arg(1), index()).getOperation())));
}

TEST_F(BarrierOpInterfaceTest, Waits) {
  auto parity = cast<BarrierOpInterface>(
      MBarrierWaitParityOp::create(builder, loc, bars(), index(), arg(4))
          .getOperation());
  EXPECT_TRUE(parity.isWait());
  EXPECT_EQ(parity.getWaitParity(), arg(4));
  EXPECT_EQ(fixed(parity.getArrivalCount()), 0);
  auto token = cast<BarrierOpInterface>(
      MBarrierTryWaitOp::create(builder, loc, builder.getI1Type(), bars(),
                                index(), arg(5))
          .getOperation());
  EXPECT_TRUE(token.isWait());
  EXPECT_FALSE(token.getWaitParity());
}

TEST_F(BarrierOpInterfaceTest, Copies) {
  int64_t box = 128 * 64 * 2;
  auto load = cast<BarrierOpInterface>(
      TmaLoadOp::create(builder, loc, arg(6), ValueRange{index(), index()},
                        ValueRange(), arg(7), ValueRange(), bars(), index(),
                        arg(8), Value())
          .getOperation());
  EXPECT_EQ(load.getBarrierIndex(), index());
  EXPECT_EQ(fixed(load.getCompletedTxBytes()), box);
  EXPECT_EQ(fixed(load.getArrivalCount()), 0);
  EXPECT_TRUE(load.signalsRemoteBarriers()); // multicast
  EXPECT_FALSE(load.isIssuedOnce());

  auto copy = cast<BarrierOpInterface>(
      TmaCopyOp::create(builder, loc, arg(6), ValueRange{index(), index()},
                        arg(7), ValueRange(), bars(), index())
          .getOperation());
  EXPECT_EQ(copy.getBarrierGroupMutable().getOperandNumber(), 4u);
  EXPECT_EQ(fixed(copy.getArrivalCount()), 1);
  EXPECT_EQ(fixed(copy.getExpectedTxBytes()), box);
  EXPECT_EQ(fixed(copy.getCompletedTxBytes()), box);
  EXPECT_TRUE(copy.isIssuedOnce());
  EXPECT_FALSE(copy.signalsRemoteBarriers());
  EXPECT_TRUE(copy.namesSameBarrier(load));
}

} // namespace
