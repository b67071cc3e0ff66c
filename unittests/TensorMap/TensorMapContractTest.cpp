//===- TensorMapContractTest.cpp - Tests of the tensor-map contract -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/TensorMap/TensorMapContract.h"
#include "gtest/gtest.h"

using namespace tile_tma;

namespace {

constexpr int kF16 = 6, kI32 = 3;

/// A valid map: a 1024x4096 f16 row-major matrix, 64x64 boxes, 128B swizzle.
TiledTensorMapRequest validRequest() {
  TiledTensorMapRequest r;
  r.dataType = kF16;
  r.rank = 2;
  r.globalAddress = 0x7f0000000000;
  r.globalDim[0] = 4096;
  r.globalDim[1] = 1024;
  r.globalStrides[0] = 4096 * 2;
  r.boxDim[0] = 64;
  r.boxDim[1] = 64;
  r.swizzle = 3;
  return r;
}

/// Expects `r` to fail with a message containing every string in `parts`.
void expectBroken(const TiledTensorMapRequest &r,
                  std::initializer_list<const char *> parts) {
  std::optional<std::string> message = checkTiledTensorMap(r);
  ASSERT_TRUE(message) << "expected a broken rule";
  for (const char *part : parts)
    EXPECT_NE(message->find(part), std::string::npos)
        << "'" << part << "' not in: " << *message;
}

TEST(TensorMapContractTest, ValidMapPasses) {
  EXPECT_EQ(checkTiledTensorMap(validRequest()), std::nullopt);
  TiledTensorMapRequest narrow = validRequest();
  narrow.boxDim[0] = 32; // 64 bytes under a 128-byte swizzle is legal
  EXPECT_EQ(checkTiledTensorMap(narrow), std::nullopt);
}

TEST(TensorMapContractTest, Rank) {
  TiledTensorMapRequest r = validRequest();
  r.rank = 6;
  expectBroken(r, {"rank 6 is not in [1, 5]", "(T-TMA-1)"});
  r = validRequest();
  r.interleave = 1;
  expectBroken(r, {"rank 2 is not in [3, 5] with interleave", "(T-TMA-1)"});
}

TEST(TensorMapContractTest, AddressAlignment) {
  TiledTensorMapRequest r = validRequest();
  r.globalAddress += 8;
  expectBroken(r, {"is not 16-byte aligned", "(T-TMA-10)"});
}

TEST(TensorMapContractTest, DimsAndBox) {
  TiledTensorMapRequest r = validRequest();
  r.globalDim[1] = 0;
  expectBroken(r, {"tensor dimension 0 is 0", "(T-TMA-9)"});
  r = validRequest();
  r.boxDim[1] = 300;
  expectBroken(r, {"box dimension 0 is 300, not in [1, 256]", "(T-TMA-3)",
                   "box [300, 64]"});
  r = validRequest();
  r.elementStrides[0] = 9;
  expectBroken(r, {"element stride of dimension 1 is 9, not in [1, 8]",
                   "(T-TMA-11)"});
}

TEST(TensorMapContractTest, Strides) {
  TiledTensorMapRequest r = validRequest();
  r.globalStrides[0] = 200;
  expectBroken(r, {"the stride of dimension 0 is 200 bytes", "multiple of 16",
                   "(T-TMA-9)", "dims [1024, 4096], strides [200] bytes",
                   "(outermost dimension first)"});
  r = validRequest();
  r.globalStrides[0] = uint64_t(1) << 40;
  expectBroken(r, {"less than 2^40", "(T-TMA-9)"});
}

TEST(TensorMapContractTest, InnerBoxBytes) {
  TiledTensorMapRequest r = validRequest();
  r.swizzle = 0;
  r.boxDim[0] = 6; // 12 bytes
  expectBroken(r, {"the inner box dimension spans 12 bytes, not a multiple of 16",
                   "(T-TMA-5)"});
  r = validRequest();
  r.boxDim[0] = 128; // 256 bytes under 128B swizzle
  expectBroken(r, {"spans 256 bytes, more than the 128-byte span of swizzle 128B",
                   "(T-TMA-6)"});
  r = validRequest();
  r.swizzle = 1;    // 32B
  r.boxDim[0] = 32; // 64 bytes
  expectBroken(r, {"more than the 32-byte span of swizzle 32B", "(T-TMA-6)"});
}

TEST(TensorMapContractTest, TypesAndEnums) {
  TiledTensorMapRequest r = validRequest();
  r.dataType = 13;
  expectBroken(r, {"data type 13", "(T-TMA-4)"});
  r = validRequest();
  r.dataType = kI32;
  r.boxDim[0] = 32;
  r.oobFill = 1;
  expectBroken(r, {"oob fill NaN needs a floating-point element type, got i32",
                   "(T-TMA-8)"});
  r = validRequest();
  r.swizzle = 7;
  expectBroken(r, {"swizzle 7", "(T-TMA-7)"});
}

/// A valid NHWC im2col map: 8x32x32x64 f16, 64 channels, 128 pixels.
Im2colTensorMapRequest validIm2col() {
  Im2colTensorMapRequest r;
  r.tensor.dataType = kF16;
  r.tensor.rank = 4;
  r.tensor.globalAddress = 0x7f0000000000;
  uint64_t dims[] = {64, 32, 32, 8};
  for (int i = 0; i < 4; ++i)
    r.tensor.globalDim[i] = dims[i];
  r.tensor.globalStrides[0] = 64 * 2;
  r.tensor.globalStrides[1] = 64 * 32 * 2;
  r.tensor.globalStrides[2] = 64 * 32 * 32 * 2;
  r.tensor.swizzle = 3;
  r.pixelBoxLowerCorner[0] = r.pixelBoxLowerCorner[1] = -1;
  r.pixelBoxUpperCorner[0] = r.pixelBoxUpperCorner[1] = -1;
  r.channelsPerPixel = 64;
  r.pixelsPerColumn = 128;
  return r;
}

TEST(TensorMapContractTest, Im2col) {
  EXPECT_EQ(checkIm2colTensorMap(validIm2col()), std::nullopt);
  Im2colTensorMapRequest r = validIm2col();
  r.tensor.rank = 2;
  std::optional<std::string> message = checkIm2colTensorMap(r);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("rank 2 is not in [3, 5] in im2col mode (T-TMA-1)"),
            std::string::npos);
  r = validIm2col();
  r.pixelBoxLowerCorner[1] = -129; // rank 4: 8-bit corners
  message = checkIm2colTensorMap(r);
  ASSERT_TRUE(message);
  EXPECT_NE(
      message->find(
          "im2col corner -129 is outside [-128, 127] for a rank-4 tensor "
          "(T-TMA-12)"),
      std::string::npos);
  r = validIm2col();
  r.pixelsPerColumn = 2048;
  message = checkIm2colTensorMap(r);
  ASSERT_TRUE(message);
  EXPECT_NE(
      message->find(
          "im2col box [2048, 64] needs 1..1024 pixels and 1..256 channels "
          "(T-TMA-13)"),
      std::string::npos);
  r = validIm2col();
  r.channelsPerPixel = 128; // 256 bytes under the 128-byte swizzle
  message = checkIm2colTensorMap(r);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("(T-TMA-6)"), std::string::npos);
}

TEST(TensorMapContractTest, ElementBytes) {
  EXPECT_EQ(getElementBytes(0), 1u);  // u8
  EXPECT_EQ(getElementBytes(6), 2u);  // f16
  EXPECT_EQ(getElementBytes(8), 8u);  // f64
  EXPECT_EQ(getElementBytes(9), 2u);  // bf16
  EXPECT_EQ(getElementBytes(11), 4u); // tf32
  EXPECT_EQ(getElementBytes(42), 0u);
}

TEST(TensorMapContractTest, ElementTypeTable) {
  EXPECT_EQ(lookupDataType("f16"), DataType::f16);
  EXPECT_EQ(lookupDataType("bf16"), DataType::bf16);
  EXPECT_EQ(lookupDataType("i8"), DataType::u8);
  EXPECT_EQ(lookupDataType("i64"), DataType::i64);
  // 8-bit floats move as u8 (no driver type of their own); others none.
  EXPECT_EQ(lookupDataType("f8E4M3FN"), DataType::u8);
  EXPECT_EQ(lookupDataType("f8E5M2"), DataType::u8);
  EXPECT_EQ(lookupDataType("f8E4M3FNUZ"), std::nullopt);
  EXPECT_EQ(lookupDataType("tf32"), std::nullopt);
  EXPECT_STREQ(getDataTypeName(int(DataType::bf16)), "bf16");
  EXPECT_TRUE(isFloatDataType(int(DataType::f32)));
  EXPECT_FALSE(isFloatDataType(int(DataType::i32)));
}

/// The rule checks that the verifier of !tile.tma_desc shares, in the
/// memref's numbering.
TEST(TensorMapContractTest, RuleChecks) {
  EXPECT_EQ(checkRank(2, false, false), std::nullopt);
  EXPECT_EQ(*checkRank(2, true, false),
            "tensor rank 2 is not in [3, 5] with interleave (T-TMA-1)");
  EXPECT_EQ(*checkBoxDim(1, 257),
            "box dimension 1 is 257, not in [1, 256] (T-TMA-3)");
  EXPECT_EQ(checkInnerBoxBytes(64, Interleave::none, Swizzle::b128),
            std::nullopt);
  EXPECT_EQ(checkInnerBoxBytes(12, Interleave::b16, Swizzle::none),
            std::nullopt); // interleaved boxes have no 16-byte rule
  EXPECT_EQ(*checkOobFill(OobFill::nan, false, "f8E4M3FN"),
            "oob fill NaN needs a floating-point element type, got f8E4M3FN "
            "(T-TMA-8)");
  EXPECT_EQ(checkInnermostStride(1), std::nullopt);
  EXPECT_EQ(*checkInnermostStride(2),
            "the innermost stride is 2 elements; TMA needs 1 (T-TMA-9)");
  EXPECT_EQ(checkGlobalStride(0, 64, Interleave::none), std::nullopt);
  EXPECT_TRUE(checkGlobalStride(0, 48, Interleave::b32)); // 32B interleave
  EXPECT_EQ(checkGlobalDim(0, int64_t(1) << 32), std::nullopt);
  EXPECT_TRUE(checkGlobalDim(0, (int64_t(1) << 32) + 1));
  EXPECT_EQ(checkIm2colCorner(-32768, 3), std::nullopt);
  EXPECT_TRUE(checkIm2colCorner(-17, 5));
}

TEST(TensorMapContractTest, EncoderAbiFollowsTheFunctionType) {
  using Tiled = AbiOf<EncodeTiledFn>;
  ASSERT_EQ(Tiled::kinds.size(), 9u);
  EXPECT_EQ(Tiled::kinds[0], AbiKind::pointer); // the map
  EXPECT_EQ(Tiled::kinds[1], AbiKind::i64);     // rank
  EXPECT_EQ(Tiled::kinds[2], AbiKind::pointer); // the memref descriptor
  EXPECT_EQ(Tiled::kinds[8], AbiKind::pointer); // the box
  EXPECT_EQ(AbiOf<EncodeIm2colFn>::kinds.size(), 12u);
  EXPECT_EQ(getSwizzleSpanBytes(Swizzle::b64), 64);
  EXPECT_EQ(getIm2colCornerRange(4), std::make_pair(-128, 127));
}

} // namespace
