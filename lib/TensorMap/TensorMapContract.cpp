//===- TensorMapContract.cpp - The CUDA tensor-map contract --------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Rules from the CUDA Driver API reference of cuTensorMapEncodeTiled and
// cuTensorMapEncodeIm2col; the T-TMA numbers are those of
// docs/Rationale/RationaleTile.md, shared with the compile-time verifier of
// !tile.tma_desc where a rule is the same.
//===----------------------------------------------------------------------===//

#include "Tile/TensorMap/TensorMapContract.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>

using namespace tile_tma;

namespace {
/// Builds a message. Numbers go through std::to_string (the C library), not
/// iostreams: in a host process that also loaded another C++ runtime (a
/// Python process with PyTorch) an ostringstream's numeric output failed
/// and cut the message at the first number.
class Message {
public:
  template <typename T> Message &operator<<(const T &value) {
    if constexpr (std::is_same_v<T, char>)
      text += value;
    else if constexpr (std::is_arithmetic_v<T>)
      text += std::to_string(value);
    else
      text += value;
    return *this;
  }
  const std::string &str() const { return text; }

private:
  std::string text;
};

/// 0x-prefixed hexadecimal.
std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(buffer, sizeof(buffer), "0x%llx", (unsigned long long)value);
  return buffer;
}

constexpr int kInterleaveNone = int(Interleave::none);
constexpr int kInterleave32B = int(Interleave::b32);
constexpr int kInterleaveMax = int(Interleave::b32);
constexpr int kSwizzleNone = int(Swizzle::none);
constexpr int kSwizzleMax = int(Swizzle::b128);
constexpr int kL2PromotionMax = int(L2Promotion::b256);
constexpr int kOobNan = int(OobFill::nan);

/// One row per CUtensorMapDataType value: name, bytes, floating point.
struct DataTypeInfo {
  const char *name;
  unsigned bytes;
  bool isFloat;
};
constexpr DataTypeInfo kDataTypes[kMaxDataType + 1] = {
    {"u8", 1, false},     {"u16", 2, false},    {"u32", 4, false},
    {"i32", 4, false},    {"u64", 8, false},    {"i64", 8, false},
    {"f16", 2, true},     {"f32", 4, true},     {"f64", 8, true},
    {"bf16", 2, true},    {"f32_ftz", 4, true}, {"tf32", 4, true},
    {"tf32_ftz", 4, true}};

const DataTypeInfo *findDataType(int dataType) {
  return dataType >= 0 && dataType <= kMaxDataType ? &kDataTypes[dataType]
                                                   : nullptr;
}

template <typename T>
void printList(Message &os, const T *values, unsigned count) {
  os << '[';
  for (unsigned i = 0; i < count; ++i)
    os << (i ? ", " : "") << values[i];
  os << ']';
}
} // namespace

std::optional<DataType> tile_tma::lookupDataType(std::string_view name) {
  // Tile IR's element types: MLIR's integers are signless, so i8 and i16
  // map to the unsigned types of their width (the bits are the same); the
  // driver has no 8-bit float type, so e4m3/e5m2 move as u8 (a map copies
  // bits; zero fill is +0.0 in both formats).
  static constexpr std::pair<std::string_view, DataType> kMlirTypes[] = {
      {"i8", DataType::u8},       {"i16", DataType::u16},
      {"i32", DataType::i32},     {"i64", DataType::i64},
      {"f16", DataType::f16},     {"bf16", DataType::bf16},
      {"f32", DataType::f32},     {"f64", DataType::f64},
      {"f8E4M3FN", DataType::u8}, {"f8E5M2", DataType::u8}};
  for (auto [mlirName, dataType] : kMlirTypes)
    if (mlirName == name)
      return dataType;
  return std::nullopt;
}

unsigned tile_tma::getElementBytes(int dataType) {
  const DataTypeInfo *info = findDataType(dataType);
  return info ? info->bytes : 0;
}

const char *tile_tma::getDataTypeName(int dataType) {
  const DataTypeInfo *info = findDataType(dataType);
  return info ? info->name : "unknown";
}

bool tile_tma::isFloatDataType(int dataType) {
  const DataTypeInfo *info = findDataType(dataType);
  return info && info->isFloat;
}

std::string tile_tma::describeTiledTensorMap(const TiledTensorMapRequest &r) {
  Message os;
  unsigned rank = r.rank <= 5 ? r.rank : 5;
  os << "rank " << r.rank << ", " << getDataTypeName(r.dataType) << ", dims ";
  printList(os, r.globalDim, rank);
  os << ", strides ";
  printList(os, r.globalStrides, rank ? rank - 1 : 0);
  os << " bytes, box ";
  printList(os, r.boxDim, rank);
  static const char *swizzles[] = {"none", "32B", "64B", "128B"};
  os << ", swizzle "
     << (r.swizzle >= 0 && r.swizzle <= kSwizzleMax ? swizzles[r.swizzle] : "?")
     << " (dimension 0 is innermost)";
  return os.str();
}

namespace {
/// Checks what tiled and im2col maps share: data type, enums, rank, address,
/// sizes, element strides and global strides. `minRank` is 3 for im2col.
/// Appends the first broken rule to `os` and returns false.
bool checkTensor(const TiledTensorMapRequest &r, unsigned minRank,
                 Message &os) {
  // T-TMA-4: a data type the driver knows.
  if (!getElementBytes(r.dataType))
    return os << "data type " << r.dataType
              << " is not a CUtensorMapDataType in [0, " << kMaxDataType
              << "] (T-TMA-4)",
           false;
  if (r.interleave < 0 || r.interleave > kInterleaveMax || r.swizzle < 0 ||
      r.swizzle > kSwizzleMax || r.l2Promotion < 0 ||
      r.l2Promotion > kL2PromotionMax || r.oobFill < 0 || r.oobFill > kOobNan)
    return os << "interleave " << r.interleave << ", swizzle " << r.swizzle
              << ", l2 promotion " << r.l2Promotion << " or oob fill "
              << r.oobFill << " is out of range (T-TMA-7)",
           false;
  bool interleaved = r.interleave != kInterleaveNone;
  // T-TMA-1: rank.
  minRank = std::max<unsigned>(minRank, interleaved ? kMinInterleavedRank : 1);
  if (r.rank < minRank || r.rank > kMaxRank)
    return os << "rank " << r.rank << " is not in [" << minRank << ", "
              << kMaxRank << "]" << (interleaved ? " with interleave" : "")
              << " (T-TMA-1)",
           false;
  // T-TMA-10: the global base address alignment.
  uint64_t alignment = r.interleave == kInterleave32B
                           ? 2 * kGlobalAddressAlignment
                           : kGlobalAddressAlignment;
  if (r.globalAddress % alignment)
    return os << "global address " << hex(r.globalAddress) << " is not "
              << alignment << "-byte aligned (T-TMA-10)",
           false;
  for (unsigned i = 0; i < r.rank; ++i) {
    // T-TMA-9: sizes.
    if (r.globalDim[i] < 1 || r.globalDim[i] > uint64_t(kMaxGlobalDim))
      return os << "global dimension " << i << " is " << r.globalDim[i]
                << ", not in [1, 2^32] (T-TMA-9)",
             false;
    // T-TMA-11: element strides (traversal strides).
    if (r.elementStrides[i] < 1 ||
        r.elementStrides[i] > uint32_t(kMaxElementStride))
      return os << "element stride " << i << " is " << r.elementStrides[i]
                << ", not in [1, 8] (T-TMA-11)",
             false;
  }
  // T-TMA-9: strides (dimension 0's stride is the element size).
  uint64_t strideMultiple = r.interleave == kInterleave32B
                                ? 2 * kGlobalStrideMultiple
                                : kGlobalStrideMultiple;
  for (unsigned i = 0; i + 1 < r.rank; ++i) {
    uint64_t stride = r.globalStrides[i];
    if (stride % strideMultiple || stride >= uint64_t(kMaxGlobalStride))
      return os << "global stride of dimension " << i + 1 << " is " << stride
                << " bytes; it must be a multiple of " << strideMultiple
                << " and less than 2^40 (T-TMA-9)",
             false;
  }
  // T-TMA-8: NaN fill only for floating-point data.
  if (r.oobFill == kOobNan && !isFloatDataType(r.dataType))
    return os << "oob fill NaN needs a floating-point data type, got "
              << getDataTypeName(r.dataType) << " (T-TMA-8)",
           false;
  return true;
}

/// T-TMA-5/6: the bytes of one box row against 16 B and the swizzle span.
bool checkInnerBoxBytes(const TiledTensorMapRequest &r, uint64_t innerBoxBytes,
                        Message &os) {
  if (r.interleave != kInterleaveNone)
    return true;
  if (innerBoxBytes % kInnerBoxBytesMultiple)
    return os << "inner box dimension spans " << innerBoxBytes
              << " bytes, not a multiple of 16 (T-TMA-5)",
           false;
  if (r.swizzle != kSwizzleNone) {
    uint64_t span = getSwizzleSpanBytes(Swizzle(r.swizzle));
    if (innerBoxBytes > span)
      return os << "inner box dimension spans " << innerBoxBytes
                << " bytes, more than the " << span
                << "-byte swizzle span (T-TMA-6)",
             false;
  }
  return true;
}
} // namespace

std::optional<std::string>
tile_tma::checkTiledTensorMap(const TiledTensorMapRequest &r) {
  Message os;
  bool ok = checkTensor(r, 1, os);
  // T-TMA-3: box extents.
  for (unsigned i = 0; ok && i < r.rank; ++i)
    if (r.boxDim[i] < 1 || r.boxDim[i] > uint32_t(kMaxBoxDim)) {
      os << "box dimension " << i << " is " << r.boxDim[i]
         << ", not in [1, 256] (T-TMA-3)";
      ok = false;
    }
  if (ok)
    ok = checkInnerBoxBytes(
        r, uint64_t(r.boxDim[0]) * getElementBytes(r.dataType), os);
  if (ok)
    return std::nullopt;
  os << "; " << describeTiledTensorMap(r);
  return os.str();
}

std::optional<std::string>
tile_tma::checkIm2colTensorMap(const Im2colTensorMapRequest &r) {
  Message os;
  bool ok = checkTensor(r.tensor, kMinInterleavedRank, os);
  unsigned spatial = ok ? r.tensor.rank - 2 : 0;
  // T-TMA-12: the pixel box corners fit the signed range of their rank:
  // 16 bits for rank 3, 8 for rank 4, 5 for rank 5.
  auto [low, high] = getIm2colCornerRange(r.tensor.rank);
  for (unsigned i = 0; ok && i < spatial; ++i)
    for (int corner : {r.pixelBoxLowerCorner[i], r.pixelBoxUpperCorner[i]})
      if (corner < low || corner > high) {
        os << "pixel box corner " << corner << " of spatial dimension " << i
           << " is not in [" << low << ", " << high << "] for rank "
           << r.tensor.rank << " (T-TMA-12)";
        ok = false;
        break;
      }
  // T-TMA-13: channels per pixel in [1, 256], pixels per column in [1, 1024].
  if (ok &&
      (r.channelsPerPixel < 1 || r.channelsPerPixel > kMaxIm2colChannels)) {
    os << "channelsPerPixel is " << r.channelsPerPixel
       << ", not in [1, 256] (T-TMA-13)";
    ok = false;
  }
  if (ok && (r.pixelsPerColumn < 1 || r.pixelsPerColumn > kMaxIm2colPixels)) {
    os << "pixelsPerColumn is " << r.pixelsPerColumn
       << ", not in [1, 1024] (T-TMA-13)";
    ok = false;
  }
  if (ok)
    ok = checkInnerBoxBytes(
        r.tensor,
        uint64_t(r.channelsPerPixel) * getElementBytes(r.tensor.dataType), os);
  if (ok)
    return std::nullopt;
  os << "; im2col, " << describeTiledTensorMap(r.tensor);
  return os.str();
}
