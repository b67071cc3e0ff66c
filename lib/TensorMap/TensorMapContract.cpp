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

constexpr int kInterleaveMax = int(Interleave::b32);
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

} // namespace

std::optional<DataType> tile_tma::lookupDataType(std::string_view name) {
  for (const ElementType &type : kElementTypes)
    if (type.name == name)
      return type.dataType;
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

//===----------------------------------------------------------------------===//
// The rules
//===----------------------------------------------------------------------===//

namespace {
const char *swizzleName(int swizzle) {
  static const char *names[] = {"none", "32B", "64B", "128B"};
  return swizzle >= 0 && swizzle <= kSwizzleMax ? names[swizzle] : "?";
}

RuleViolation violation(Message &os) { return os.str(); }
} // namespace

RuleViolation tile_tma::checkRank(int64_t rank, bool interleaved,
                                  bool im2col) {
  int64_t minRank = interleaved || im2col ? kMinInterleavedRank : 1;
  if (rank >= minRank && rank <= kMaxRank)
    return std::nullopt;
  Message os;
  os << "tensor rank " << rank << " is not in [" << minRank << ", "
     << kMaxRank << "]"
     << (interleaved ? " with interleave" : im2col ? " in im2col mode" : "")
     << " (T-TMA-1)";
  return violation(os);
}

RuleViolation tile_tma::checkBoxDim(int64_t dim, int64_t extent) {
  if (extent >= 1 && extent <= kMaxBoxDim)
    return std::nullopt;
  Message os;
  os << "box dimension " << dim << " is " << extent << ", not in [1, "
     << kMaxBoxDim << "] (T-TMA-3)";
  return violation(os);
}

RuleViolation tile_tma::checkInnerBoxBytes(int64_t bytes, Interleave interleave,
                                           Swizzle swizzle) {
  if (interleave != Interleave::none)
    return std::nullopt;
  Message os;
  if (bytes % kInnerBoxBytesMultiple) {
    os << "the inner box dimension spans " << bytes
       << " bytes, not a multiple of " << kInnerBoxBytesMultiple
       << " (T-TMA-5)";
    return violation(os);
  }
  int64_t span = getSwizzleSpanBytes(swizzle);
  if (swizzle != Swizzle::none && bytes > span) {
    os << "the inner box dimension spans " << bytes << " bytes, more than the "
       << span << "-byte span of swizzle " << swizzleName(int(swizzle))
       << " (T-TMA-6)";
    return violation(os);
  }
  return std::nullopt;
}

RuleViolation tile_tma::checkOobFill(OobFill fill, bool floatData,
                                     std::string_view element) {
  if (fill != OobFill::nan || floatData)
    return std::nullopt;
  Message os;
  os << "oob fill NaN needs a floating-point element type, got "
     << std::string(element) << " (T-TMA-8)";
  return violation(os);
}

RuleViolation tile_tma::checkGlobalDim(int64_t dim, int64_t size) {
  if (size >= 1 && size <= kMaxGlobalDim)
    return std::nullopt;
  Message os;
  os << "tensor dimension " << dim << " is " << size
     << ", not in [1, 2^32] (T-TMA-9)";
  return violation(os);
}

RuleViolation tile_tma::checkInnermostStride(int64_t stride) {
  if (stride == 1)
    return std::nullopt;
  Message os;
  os << "the innermost stride is " << stride
     << " elements; TMA needs 1 (T-TMA-9)";
  return violation(os);
}

RuleViolation tile_tma::checkGlobalStride(int64_t dim, int64_t strideBytes,
                                          Interleave interleave) {
  int64_t multiple = interleave == Interleave::b32 ? 2 * kGlobalStrideMultiple
                                                   : kGlobalStrideMultiple;
  if (strideBytes >= 0 && strideBytes % multiple == 0 &&
      strideBytes < kMaxGlobalStride)
    return std::nullopt;
  Message os;
  os << "the stride of dimension " << dim << " is " << strideBytes
     << " bytes; it must be a multiple of " << multiple
     << " and less than 2^40 (T-TMA-9)";
  return violation(os);
}

RuleViolation tile_tma::checkIm2colCorner(int64_t corner, int64_t rank) {
  auto [low, high] = getIm2colCornerRange(rank);
  if (corner >= low && corner <= high)
    return std::nullopt;
  Message os;
  os << "im2col corner " << corner << " is outside [" << low << ", " << high
     << "] for a rank-" << rank << " tensor (T-TMA-12)";
  return violation(os);
}

RuleViolation tile_tma::checkIm2colBox(int64_t pixels, int64_t channels) {
  if (pixels >= 1 && pixels <= kMaxIm2colPixels && channels >= 1 &&
      channels <= kMaxIm2colChannels)
    return std::nullopt;
  Message os;
  os << "im2col box [" << pixels << ", " << channels << "] needs 1.."
     << kMaxIm2colPixels << " pixels and 1.." << kMaxIm2colChannels
     << " channels (T-TMA-13)";
  return violation(os);
}

//===----------------------------------------------------------------------===//
// Requests
//===----------------------------------------------------------------------===//

std::string tile_tma::describeTiledTensorMap(const TiledTensorMapRequest &r) {
  Message os;
  unsigned rank = r.rank <= 5 ? r.rank : 5;
  // The memref's order: the driver's arrays reversed.
  auto list = [&](auto values, unsigned count) {
    os << '[';
    for (unsigned i = 0; i < count; ++i)
      os << (i ? ", " : "") << values[count - 1 - i];
    os << ']';
  };
  os << "rank " << r.rank << ", " << getDataTypeName(r.dataType) << ", dims ";
  list(r.globalDim, rank);
  os << ", strides ";
  list(r.globalStrides, rank ? rank - 1 : 0);
  os << " bytes, box ";
  list(r.boxDim, rank);
  os << ", swizzle " << swizzleName(r.swizzle)
     << " (outermost dimension first)";
  return os.str();
}

namespace {
/// Checks what tiled and im2col maps share: data type, enums, rank, address,
/// sizes, element strides and global strides. Returns the first broken rule.
RuleViolation checkTensor(const TiledTensorMapRequest &r, bool im2col) {
  Message os;
  // T-TMA-4: a data type the driver knows.
  if (!getElementBytes(r.dataType)) {
    os << "data type " << r.dataType << " is not a CUtensorMapDataType in [0, "
       << kMaxDataType << "] (T-TMA-4)";
    return violation(os);
  }
  if (r.interleave < 0 || r.interleave > kInterleaveMax || r.swizzle < 0 ||
      r.swizzle > kSwizzleMax || r.l2Promotion < 0 ||
      r.l2Promotion > kL2PromotionMax || r.oobFill < 0 || r.oobFill > kOobNan) {
    os << "interleave " << r.interleave << ", swizzle " << r.swizzle
       << ", l2 promotion " << r.l2Promotion << " or oob fill " << r.oobFill
       << " is out of range (T-TMA-7)";
    return violation(os);
  }
  auto interleave = Interleave(r.interleave);
  bool interleaved = interleave != Interleave::none;
  if (RuleViolation rank = checkRank(r.rank, interleaved, im2col))
    return rank;
  // T-TMA-10: the global base address alignment.
  uint64_t alignment = interleave == Interleave::b32
                           ? 2 * kGlobalAddressAlignment
                           : kGlobalAddressAlignment;
  if (r.globalAddress % alignment) {
    os << "global address " << hex(r.globalAddress) << " is not " << alignment
       << "-byte aligned (T-TMA-10)";
    return violation(os);
  }
  // Driver dimension i is memref dimension rank - 1 - i.
  for (unsigned i = 0; i < r.rank; ++i) {
    int64_t dim = r.rank - 1 - i;
    if (RuleViolation size = checkGlobalDim(dim, int64_t(r.globalDim[i])))
      return size;
    // T-TMA-11: element strides (traversal strides).
    if (r.elementStrides[i] < 1 ||
        r.elementStrides[i] > uint32_t(kMaxElementStride)) {
      os << "element stride of dimension " << dim << " is "
         << r.elementStrides[i] << ", not in [1, " << kMaxElementStride
         << "] (T-TMA-11)";
      return violation(os);
    }
  }
  // The stride of driver dimension i + 1 (dimension 0's is the element size).
  for (unsigned i = 0; i + 1 < r.rank; ++i) {
    uint64_t stride = r.globalStrides[i];
    int64_t bytes = stride >= uint64_t(kMaxGlobalStride) ? kMaxGlobalStride
                                                          : int64_t(stride);
    if (RuleViolation broken =
            checkGlobalStride(r.rank - 2 - i, bytes, interleave))
      return broken;
  }
  return checkOobFill(OobFill(r.oobFill), isFloatDataType(r.dataType),
                      getDataTypeName(r.dataType));
}

std::optional<std::string> withDescription(RuleViolation broken,
                                           const TiledTensorMapRequest &r,
                                           const char *mode) {
  if (!broken)
    return std::nullopt;
  return *broken + "; " + mode + describeTiledTensorMap(r);
}
} // namespace

std::optional<std::string>
tile_tma::checkTiledTensorMap(const TiledTensorMapRequest &r) {
  RuleViolation broken = checkTensor(r, /*im2col=*/false);
  for (unsigned i = 0; !broken && i < r.rank; ++i)
    broken = checkBoxDim(r.rank - 1 - i, r.boxDim[i]);
  if (!broken)
    broken = checkInnerBoxBytes(
        int64_t(r.boxDim[0]) * getElementBytes(r.dataType),
        Interleave(r.interleave), Swizzle(r.swizzle));
  return withDescription(broken, r, "");
}

std::optional<std::string>
tile_tma::checkIm2colTensorMap(const Im2colTensorMapRequest &r) {
  RuleViolation broken = checkTensor(r.tensor, /*im2col=*/true);
  unsigned spatial = broken ? 0 : r.tensor.rank - 2;
  for (unsigned i = 0; !broken && i < spatial; ++i)
    for (int corner : {r.pixelBoxLowerCorner[i], r.pixelBoxUpperCorner[i]})
      if (!broken)
        broken = checkIm2colCorner(corner, r.tensor.rank);
  if (!broken)
    broken = checkIm2colBox(r.pixelsPerColumn, r.channelsPerPixel);
  if (!broken)
    broken = checkInnerBoxBytes(int64_t(r.channelsPerPixel) *
                                    getElementBytes(r.tensor.dataType),
                                Interleave(r.tensor.interleave),
                                Swizzle(r.tensor.swizzle));
  return withDescription(broken, r.tensor, "im2col, ");
}
