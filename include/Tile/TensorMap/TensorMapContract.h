//===- TensorMapContract.h - The CUDA tensor-map contract, once -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Everything tile knows about CUDA tensor maps (CUtensorMap, cuda.h and the
// CUDA Driver API reference of cuTensorMapEncodeTiled/Im2col), written once
// and used by the `!tile.tma_desc` verifier, the lowering, the runtime, the
// kernel manifest (and through it Python) and the unit tests:
//  - the map's size and alignment and how kernels take it (by value),
//  - the driver's enum values and limits,
//  - the element-type table,
//  - the checks of every encoding precondition (T-TMA-n of
//    docs/Rationale/RationaleTile.md), with messages naming rule and values,
//  - the signature of the runtime's encoders that lowered host code calls.
// Needs neither CUDA nor MLIR.
//===----------------------------------------------------------------------===//

#ifndef TILE_TENSORMAP_TENSORMAPCONTRACT_H
#define TILE_TENSORMAP_TENSORMAPCONTRACT_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tile_tma {

//===----------------------------------------------------------------------===//
// The map object and its kernel-parameter ABI
//===----------------------------------------------------------------------===//

/// sizeof(CUtensorMap): CU_TENSOR_MAP_NUM_QWORDS (16) 64-bit words.
inline constexpr unsigned kTensorMapBytes = 128;
/// alignof(CUtensorMap) in CUDA 13's cuda.h. Kernels take a map as a
/// grid-constant `.param .align 128 .b8 [128]` (T-TMA-22); lowered host code
/// encodes into 128-byte aligned memory.
inline constexpr unsigned kTensorMapAlignment = 128;
/// The alignment the driver checks of a map it encodes: 64 bytes before the
/// CUDA 13 driver, 128 from it on (T-TMA-14).
inline constexpr unsigned kLegacyTensorMapAlignment = 64;
inline constexpr int kDriverVersionWith128ByteMaps = 13000;

//===----------------------------------------------------------------------===//
// Enums: the values of cuda.h's CUtensorMap* enums
//===----------------------------------------------------------------------===//

enum class DataType : int {
  u8 = 0,
  u16 = 1,
  u32 = 2,
  i32 = 3,
  u64 = 4,
  i64 = 5,
  f16 = 6,
  f32 = 7,
  f64 = 8,
  bf16 = 9,
  f32_ftz = 10,
  tf32 = 11,
  tf32_ftz = 12,
};
inline constexpr int kMaxDataType = 12;
enum class Interleave : int { none = 0, b16 = 1, b32 = 2 };
enum class Swizzle : int { none = 0, b32 = 1, b64 = 2, b128 = 3 };
enum class L2Promotion : int { none = 0, b64 = 1, b128 = 2, b256 = 3 };
enum class OobFill : int { zero = 0, nan = 1 };

//===----------------------------------------------------------------------===//
// Limits (cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col)
//===----------------------------------------------------------------------===//

/// tensorRank in [1, 5] (T-TMA-1); [3, 5] with interleave or im2col.
inline constexpr int64_t kMaxRank = 5;
inline constexpr int64_t kMinInterleavedRank = 3;
/// boxDim[i] in [1, 256] (T-TMA-3).
inline constexpr int64_t kMaxBoxDim = 256;
/// boxDim[0] * element size a multiple of 16 bytes without interleave
/// (T-TMA-5).
inline constexpr int64_t kInnerBoxBytesMultiple = 16;
/// globalStrides[i] a multiple of 16 bytes (32 with 32B interleave) and less
/// than 2^40; globalDim[i] in [1, 2^32] (T-TMA-9).
inline constexpr int64_t kGlobalStrideMultiple = 16;
inline constexpr int64_t kMaxGlobalStride = int64_t(1) << 40;
inline constexpr int64_t kMaxGlobalDim = int64_t(1) << 32;
/// The global address: 16-byte aligned, 32 with 32B interleave (T-TMA-10).
inline constexpr int64_t kGlobalAddressAlignment = 16;
/// elementStrides[i] in [1, 8] (T-TMA-11).
inline constexpr int64_t kMaxElementStride = 8;
/// im2col: pixels per column in [1, 1024], channels per pixel in [1, 256]
/// (T-TMA-13).
inline constexpr int64_t kMaxIm2colPixels = 1024;
inline constexpr int64_t kMaxIm2colChannels = 256;

/// The bytes a swizzle mode permutes within (its span): 32, 64, 128; 0 for
/// none.
constexpr int64_t getSwizzleSpanBytes(Swizzle swizzle) {
  return swizzle == Swizzle::none ? 0 : int64_t(16) << int(swizzle);
}

/// T-TMA-12: im2col corners are signed numbers of 16 bits for rank 3, 8 for
/// rank 4, 5 for rank 5. Returns the inclusive range for `rank`.
constexpr std::pair<int, int> getIm2colCornerRange(int64_t rank) {
  int bits = rank == 3 ? 16 : rank == 4 ? 8 : 5;
  return {-(1 << (bits - 1)), (1 << (bits - 1)) - 1};
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// An element type of tile IR that a tensor map can describe: its MLIR
/// spelling, the driver's data type and the bytes of one element.
struct ElementType {
  std::string_view name;
  DataType dataType;
  unsigned bytes;
};
/// Every such type. MLIR's integers are signless, so i8 and i16 map to the
/// unsigned types of their width (the bits are the same); the driver has no
/// 8-bit float type, so e4m3/e5m2 move as u8 (a map copies bits; zero fill
/// is +0.0 in both formats). The kernel manifest lists this table, so
/// launchers in other languages (Python) check theirs against it.
inline constexpr ElementType kElementTypes[] = {
    {"i8", DataType::u8, 1},        {"i16", DataType::u16, 2},
    {"i32", DataType::i32, 4},      {"i64", DataType::i64, 8},
    {"f16", DataType::f16, 2},      {"bf16", DataType::bf16, 2},
    {"f32", DataType::f32, 4},      {"f64", DataType::f64, 8},
    {"f8E4M3FN", DataType::u8, 1}, {"f8E5M2", DataType::u8, 1}};

/// The data type of a tensor whose elements MLIR spells `name` (a name of
/// kElementTypes), or nullopt when a tensor map cannot describe it.
std::optional<DataType> lookupDataType(std::string_view name);
/// Bytes of one element of `dataType` (0..12), 0 for an unknown value.
unsigned getElementBytes(int dataType);
/// "u8", ..., "bf16", ...; "unknown" for other values.
const char *getDataTypeName(int dataType);
/// True for the floating-point types (the ones NaN fill allows, T-TMA-8).
bool isFloatDataType(int dataType);

//===----------------------------------------------------------------------===//
// The rules, one value at a time
//===----------------------------------------------------------------------===//
//
// Each rule check returns std::nullopt when the values satisfy the rule, else
// one line naming the rule (T-TMA-n) and the values. The compile-time
// verifier of !tile.tma_desc calls them on what a type fixes, the request
// checks below on every value at encoding time, so both say the same thing.
// Dimensions are numbered as in the memref (and a PyTorch tensor): 0 is the
// outermost, rank - 1 the innermost. (The driver's arrays are the other way
// round; the request checks translate.)

using RuleViolation = std::optional<std::string>;

/// T-TMA-1: the tensor rank, in [1, 5]; [3, 5] with interleave or im2col.
RuleViolation checkRank(int64_t rank, bool interleaved, bool im2col);
/// T-TMA-3: box extent `extent` of dimension `dim` in [1, 256].
RuleViolation checkBoxDim(int64_t dim, int64_t extent);
/// T-TMA-5/6: without interleave the inner box spans a multiple of 16 bytes,
/// and with a swizzle at most the swizzle's span (narrower is legal).
RuleViolation checkInnerBoxBytes(int64_t bytes, Interleave interleave,
                                 Swizzle swizzle);
/// T-TMA-8: NaN fill only for floating-point data; `element` names the
/// element type for the message.
RuleViolation checkOobFill(OobFill fill, bool floatData,
                           std::string_view element);
/// T-TMA-9: the extent of dimension `dim` in [1, 2^32].
RuleViolation checkGlobalDim(int64_t dim, int64_t size);
/// T-TMA-9: the innermost stride (in elements) is 1: TMA has no element
/// stride in global memory (elementStrides only subsample the box).
RuleViolation checkInnermostStride(int64_t stride);
/// T-TMA-9: the stride of dimension `dim` (not the innermost) in bytes, a
/// multiple of 16 (32 with 32B interleave) and less than 2^40.
RuleViolation checkGlobalStride(int64_t dim, int64_t strideBytes,
                                Interleave interleave);
/// T-TMA-12: an im2col corner within the signed range of the tensor's rank.
RuleViolation checkIm2colCorner(int64_t corner, int64_t rank);
/// T-TMA-13: an im2col box of [pixels, channels]: 1..1024 pixels per column
/// and 1..256 channels per pixel.
RuleViolation checkIm2colBox(int64_t pixels, int64_t channels);

//===----------------------------------------------------------------------===//
// Encoding requests and their checks
//===----------------------------------------------------------------------===//

/// The arguments of cuTensorMapEncodeTiled, in the driver's order: dimension
/// 0 innermost.
struct TiledTensorMapRequest {
  int dataType = 0;  ///< DataType
  unsigned rank = 0; ///< tensorRank
  uint64_t globalAddress = 0;
  uint64_t globalDim[5] = {};     ///< elements, innermost first
  uint64_t globalStrides[4] = {}; ///< bytes of dims 1..rank-1
  uint32_t boxDim[5] = {};
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  int interleave = 0; ///< Interleave
  int swizzle = 0;    ///< Swizzle
  int l2Promotion = 0;
  int oobFill = 0;
};

/// The extra arguments of cuTensorMapEncodeIm2col (rank 3..5): the pixel
/// bounding box corners of the rank-2 spatial dimensions (innermost first),
/// and the box of `pixelsPerColumn` x `channelsPerPixel` elements one copy
/// brings.
struct Im2colTensorMapRequest {
  TiledTensorMapRequest tensor; ///< boxDim is unused
  int pixelBoxLowerCorner[3] = {};
  int pixelBoxUpperCorner[3] = {};
  uint32_t channelsPerPixel = 0;
  uint32_t pixelsPerColumn = 0;
};

/// Returns std::nullopt when `request` satisfies every rule, else one line
/// naming the first broken rule (T-TMA-n) and the values involved, followed
/// by the request's description.
std::optional<std::string>
checkTiledTensorMap(const TiledTensorMapRequest &request);

/// As checkTiledTensorMap, for cuTensorMapEncodeIm2col.
std::optional<std::string>
checkIm2colTensorMap(const Im2colTensorMapRequest &request);

/// One-line description of `request` for error messages: type, dims,
/// strides, box and swizzle, outermost dimension first as in the memref.
std::string describeTiledTensorMap(const TiledTensorMapRequest &request);

//===----------------------------------------------------------------------===//
// The encoders that lowered host code calls (the runtime defines them)
//===----------------------------------------------------------------------===//

/// `tile.tma_create_descriptor` of a tiled descriptor calls
///   void tileRtTensorMapEncodeTiledMemref(void *map, int64_t rank,
///       void *memref, int64_t dataType, int64_t interleave, int64_t swizzle,
///       int64_t l2Promotion, int64_t oobFill, const int64_t *box)
/// which checks the request and encodes the map into the 128 bytes at `map`
/// (host memory, kTensorMapAlignment aligned). `memref` points at the
/// ranked memref descriptor (allocated, aligned, offset, sizes, strides),
/// `box` at `rank` extents, outermost first like the memref.
inline constexpr const char *kEncodeTiledSymbol =
    "tileRtTensorMapEncodeTiledMemref";
using EncodeTiledFn = void (*)(void *, int64_t, void *, int64_t, int64_t,
                               int64_t, int64_t, int64_t, const int64_t *);

/// The same for im2col descriptors, with the corners (rank - 2 entries,
/// outermost first) and the box's channels and pixels:
///   void tileRtTensorMapEncodeIm2colMemref(void *map, int64_t rank,
///       void *memref, int64_t dataType, int64_t interleave, int64_t swizzle,
///       int64_t l2Promotion, int64_t oobFill, const int64_t *lower,
///       const int64_t *upper, int64_t channelsPerPixel,
///       int64_t pixelsPerColumn)
inline constexpr const char *kEncodeIm2colSymbol =
    "tileRtTensorMapEncodeIm2colMemref";
using EncodeIm2colFn = void (*)(void *, int64_t, void *, int64_t, int64_t,
                                int64_t, int64_t, int64_t, const int64_t *,
                                const int64_t *, int64_t, int64_t);

/// How an encoder parameter is passed at the machine level, for the
/// lowering that declares the encoders: a pointer or a 64-bit integer.
enum class AbiKind { pointer, i64 };

/// The parameter kinds of a C function type, derived from the type itself so
/// that the lowering cannot disagree with the runtime's definition.
template <typename Fn> struct AbiOf;
template <typename... Args> struct AbiOf<void (*)(Args...)> {
  static_assert(((std::is_pointer_v<Args> ||
                  std::is_same_v<Args, int64_t>)&&...),
                "encoder parameters are pointers or int64_t");
  static constexpr std::array<AbiKind, sizeof...(Args)> kinds = {
      (std::is_pointer_v<Args> ? AbiKind::pointer : AbiKind::i64)...};
};

} // namespace tile_tma

#endif // TILE_TENSORMAP_TENSORMAPCONTRACT_H
