//===- TensorMapChecks.h - cuTensorMapEncodeTiled preconditions -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Checks every documented precondition of cuTensorMapEncodeTiled before the
// driver sees the call, so that a bad map is an error naming the rule and the
// values instead of a bare CUDA_ERROR_INVALID_VALUE. Needs no CUDA: the enum
// values are CUDA's (CUtensorMapDataType, ...Interleave, ...Swizzle, ...).
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_TENSORMAPCHECKS_H
#define TILE_RUNTIME_TENSORMAPCHECKS_H

#include <cstdint>
#include <optional>
#include <string>

namespace tile::runtime {

/// The arguments of cuTensorMapEncodeTiled, dimension 0 innermost.
struct TiledTensorMapRequest {
  int dataType = 0;          ///< CUtensorMapDataType
  unsigned rank = 0;         ///< tensorRank
  uint64_t globalAddress = 0;
  uint64_t globalDim[5] = {};     ///< elements, innermost first
  uint64_t globalStrides[4] = {}; ///< bytes of dims 1..rank-1
  uint32_t boxDim[5] = {};
  uint32_t elementStrides[5] = {1, 1, 1, 1, 1};
  int interleave = 0; ///< CUtensorMapInterleave
  int swizzle = 0;    ///< CUtensorMapSwizzle
  int l2Promotion = 0;
  int oobFill = 0;
};

/// The extra arguments of cuTensorMapEncodeIm2col (rank 3..5): the pixel
/// bounding box corners of the rank-2 spatial dimensions, and the box of
/// `pixelsPerColumn` x `channelsPerPixel` elements one copy brings.
struct Im2colTensorMapRequest {
  TiledTensorMapRequest tensor; ///< boxDim is unused
  int pixelBoxLowerCorner[3] = {};
  int pixelBoxUpperCorner[3] = {};
  uint32_t channelsPerPixel = 0;
  uint32_t pixelsPerColumn = 0;
};

/// Bytes of one element of CUtensorMapDataType `dataType` (0..12), or 0 for
/// a type this check does not know.
unsigned getTensorMapElementBytes(int dataType);

/// Returns std::nullopt when `request` satisfies every rule, else one line
/// naming the first broken rule (T-TMA-n) and the values involved.
std::optional<std::string> checkTiledTensorMap(const TiledTensorMapRequest &request);

/// As checkTiledTensorMap, for cuTensorMapEncodeIm2col.
std::optional<std::string> checkIm2colTensorMap(const Im2colTensorMapRequest &request);

/// One-line description of `request` (dims, strides, box, type, swizzle) for
/// error messages.
std::string describeTiledTensorMap(const TiledTensorMapRequest &request);

} // namespace tile::runtime

#endif // TILE_RUNTIME_TENSORMAPCHECKS_H
