//===- TensorMaps.cpp - Checked, cached tensor-map encoding ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Every encoder checks the whole request against the tensor-map contract
// (Tile/TensorMap/TensorMapContract.h) before the driver sees it, so a
// broken rule is a message naming the rule and the values instead of the
// driver's CUDA_ERROR_INVALID_VALUE. Tiled maps are cached by request.
//
// Entry points: the contract's memref encoders (what the lowering of
// tile.tma_create_descriptor calls and Python calls too), the driver-style
// encoders of Runtime.h, and upstream's mgpuTensorMapEncodeTiledMemref
// (nvgpu's ABI: a device copy of the map).
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "MemRefDescriptor.h"
#include "MgpuAbi.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "tile/Runtime.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

using namespace tile_rt;
using namespace tile_tma;

namespace {

/// Encoded tiled maps by request (every encoder argument: the map depends on
/// nothing else, so a freed and reused address with the same geometry gets
/// the same, correct map). Bounded: emptied when full.
class TensorMapCache {
public:
  bool lookup(const TiledTensorMapRequest &request, void *map) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = maps.find(key(request));
    if (it == maps.end())
      return false;
    std::memcpy(map, it->second.data(), kTensorMapBytes);
    return true;
  }
  void insert(const TiledTensorMapRequest &request, const void *map) {
    std::lock_guard<std::mutex> lock(mutex);
    if (maps.size() >= kCapacity)
      maps.clear();
    std::memcpy(maps[key(request)].data(), map, kTensorMapBytes);
  }

private:
  static constexpr size_t kCapacity = 4096;
  static std::string key(const TiledTensorMapRequest &request) {
    static_assert(
        std::has_unique_object_representations_v<TiledTensorMapRequest>,
        "the key is the request's bytes: no padding");
    return std::string(reinterpret_cast<const char *>(&request),
                       sizeof(request));
  }
  std::mutex mutex;
  std::unordered_map<std::string, std::array<uint64_t, kTensorMapBytes / 8>>
      maps;
};
TensorMapCache tensorMapCache;

/// Fills `request` from the driver-style arguments (dimension 0 innermost).
void fillTensor(TiledTensorMapRequest &request, int dataType, unsigned rank,
                void *globalAddress, const uint64_t *globalDim,
                const uint64_t *globalStrides, const uint32_t *elementStrides,
                int interleave, int swizzle, int l2Promotion, int oobFill) {
  request.dataType = dataType;
  request.rank = rank;
  request.globalAddress = reinterpret_cast<uint64_t>(globalAddress);
  for (unsigned i = 0; i < rank && i < 5; ++i) {
    request.globalDim[i] = globalDim[i];
    request.elementStrides[i] = elementStrides ? elementStrides[i] : 1;
    if (i + 1 < rank)
      request.globalStrides[i] = globalStrides[i];
  }
  request.interleave = interleave;
  request.swizzle = swizzle;
  request.l2Promotion = l2Promotion;
  request.oobFill = oobFill;
}

/// Fills the tensor part of a request from the memref `descriptor`
/// (outermost dimension first, as MLIR orders it; the driver wants innermost
/// first), box dimensions from `boxDims` when given. Reports a memref that
/// no request describes (T-TMA-9: the innermost stride is 1) and returns
/// false.
bool fillFromMemRef(TiledTensorMapRequest &request, int64_t rank,
                    const MemRefDescriptor *descriptor, int64_t dataType,
                    int64_t interleave, int64_t swizzle, int64_t l2Promotion,
                    int64_t oobFill, const int64_t *boxDims) {
  request.dataType = int(dataType);
  request.rank = unsigned(rank);
  request.interleave = int(interleave);
  request.swizzle = int(swizzle);
  request.l2Promotion = int(l2Promotion);
  request.oobFill = int(oobFill);
  unsigned elementBytes = getElementBytes(request.dataType);
  if (rank < 1 || rank > kMaxRank || !elementBytes)
    return true; // checkTiledTensorMap names the broken rule
  request.globalAddress = reinterpret_cast<uint64_t>(
      descriptor->aligned + descriptor->offset * int64_t(elementBytes));
  for (int64_t i = 0; i < rank; ++i) {
    int64_t memrefDim = rank - 1 - i;
    request.globalDim[i] = uint64_t(descriptor->sizesAndStrides[memrefDim]);
    if (boxDims)
      request.boxDim[i] = uint32_t(boxDims[memrefDim]);
    if (i > 0)
      request.globalStrides[i - 1] =
          uint64_t(descriptor->sizesAndStrides[rank + memrefDim]) *
          elementBytes;
  }
  if (RuleViolation broken =
          checkInnermostStride(descriptor->sizesAndStrides[2 * rank - 1])) {
    reportError("cannot encode tensor map: %s; %s", broken->c_str(),
                describeTiledTensorMap(request).c_str());
    return false;
  }
  return true;
}

/// T-TMA-14: the CUtensorMap object's alignment, 64 bytes (128 bytes from the
/// CUDA 13 driver on). Empty when fine.
std::string checkTensorMapObject(const Driver &d, const void *tensorMap) {
  uintptr_t alignment = d.version >= kDriverVersionWith128ByteMaps
                            ? kTensorMapAlignment
                            : kLegacyTensorMapAlignment;
  if (reinterpret_cast<uintptr_t>(tensorMap) % alignment == 0)
    return "";
  char text[160];
  std::snprintf(text, sizeof(text),
                "the CUtensorMap at %p is not %zu-byte aligned (driver %d) "
                "(T-TMA-14)",
                tensorMap, size_t(alignment), d.version);
  return text;
}

/// Writes `text` into the caller's message buffer and returns 1.
int failWith(const std::string &text, char *message, size_t size) {
  if (message && size)
    std::snprintf(message, size, "%s", text.c_str());
  return 1;
}

/// What both encoders check once the request is valid: a usable driver and
/// a tensor-map object it accepts (T-TMA-14). Returns 1 with `message` set.
int checkEncodePreconditions(void *tensorMap, char *message,
                             size_t messageSize) {
  if (tileRtProbe(message, messageSize))
    return 1;
  std::string object = checkTensorMapObject(loadDriver(), tensorMap);
  if (!object.empty())
    return failWith("cannot encode tensor map: " + object, message,
                    messageSize);
  return 0;
}

/// The checked, cached encoding of a tiled request into `map`; reports a
/// broken rule or a driver error through the error handler.
void encodeTiledOrReport(const TiledTensorMapRequest &request, void *map) {
  char message[1024];
  if (tileRtTensorMapEncodeTiled(
          map, request.dataType, request.rank,
          reinterpret_cast<void *>(request.globalAddress), request.globalDim,
          request.globalStrides, request.boxDim, request.elementStrides,
          request.interleave, request.swizzle, request.l2Promotion,
          request.oobFill, message, sizeof(message)))
    reportError("%s", message);
}

/// Device copies of tensor maps for kernels that take a map's global address
/// (upstream's nvgpu ABI, mgpuTensorMapEncodeTiledMemref): one per context
/// and distinct map, so launches that re-encode the same map allocate
/// nothing; freed at exit.
std::mutex tensorMapCopiesMutex;
std::map<std::pair<CUcontext, std::array<uint64_t, kTensorMapBytes / 8>>,
         CUdeviceptr>
    tensorMapCopies;

void freeTensorMapCopies() {
  Driver &d = loadDriver();
  std::lock_guard<std::mutex> lock(tensorMapCopiesMutex);
  for (auto &[key, copy] : tensorMapCopies) {
    ScopedContext inItsContext(key.first);
    d.cuMemFree(copy);
  }
  tensorMapCopies.clear();
}

/// Copies an encoded map to device memory of the current context; a map
/// copied before is not copied again.
void *copyTensorMapToDevice(const CUtensorMap &map) {
  Driver &d = driver();
  CUcontext context = nullptr;
  d.cuCtxGetCurrent(&context);
  std::array<uint64_t, kTensorMapBytes / 8> bytes;
  std::memcpy(bytes.data(), &map, kTensorMapBytes);
  std::lock_guard<std::mutex> lock(tensorMapCopiesMutex);
  auto [it, fresh] = tensorMapCopies.try_emplace({context, bytes}, 0);
  if (!fresh)
    return reinterpret_cast<void *>(it->second);
  CUresult result = d.cuMemAlloc(&it->second, sizeof(map));
  if (result == CUDA_SUCCESS)
    result = d.cuMemcpy(it->second, reinterpret_cast<CUdeviceptr>(&map),
                        sizeof(map));
  if (result != CUDA_SUCCESS) {
    if (it->second)
      d.cuMemFree(it->second);
    tensorMapCopies.erase(it); // a handler that returns must not cache it
    check(result, "cuMemAlloc/cuMemcpy (tensor map)");
    return nullptr;
  }
  if (tensorMapCopies.size() == 1)
    std::atexit(freeTensorMapCopies);
  return reinterpret_cast<void *>(it->second);
}

} // namespace

extern "C" {

/// tile.tma_create_descriptor (the contract's EncodeTiledFn): encodes into
/// the caller's 128 bytes, which the launch passes by value.
void tileRtTensorMapEncodeTiledMemref(void *map, int64_t rank, void *descriptor,
                                      int64_t dataType, int64_t interleave,
                                      int64_t swizzle, int64_t l2Promotion,
                                      int64_t oobFill, const int64_t *boxDims) {
  TiledTensorMapRequest request;
  if (fillFromMemRef(request, rank, static_cast<MemRefDescriptor *>(descriptor),
                     dataType, interleave, swizzle, l2Promotion, oobFill,
                     boxDims))
    encodeTiledOrReport(request, map);
}
static_assert(
    std::is_same_v<decltype(&tileRtTensorMapEncodeTiledMemref), EncodeTiledFn>,
    "the encoder's signature is the contract's");

/// The same in im2col mode (the contract's EncodeIm2colFn): `lowerCorner`/
/// `upperCorner` hold rank - 2 spatial offsets, outermost first like the
/// memref.
void tileRtTensorMapEncodeIm2colMemref(
    void *map, int64_t rank, void *descriptor, int64_t dataType,
    int64_t interleave, int64_t swizzle, int64_t l2Promotion, int64_t oobFill,
    const int64_t *lowerCorner, const int64_t *upperCorner,
    int64_t channelsPerPixel, int64_t pixelsPerColumn) {
  TiledTensorMapRequest request;
  if (!fillFromMemRef(request, rank,
                      static_cast<MemRefDescriptor *>(descriptor), dataType,
                      interleave, swizzle, l2Promotion, oobFill, nullptr))
    return;
  int lower[3] = {}, upper[3] = {};
  for (int64_t i = 0; rank >= 3 && i < rank - 2 && i < 3; ++i) {
    lower[i] = int(lowerCorner[rank - 3 - i]);
    upper[i] = int(upperCorner[rank - 3 - i]);
  }
  char message[1024];
  if (tileRtTensorMapEncodeIm2col(
          map, request.dataType, request.rank,
          reinterpret_cast<void *>(request.globalAddress), request.globalDim,
          request.globalStrides, lower, upper, unsigned(channelsPerPixel),
          unsigned(pixelsPerColumn), request.elementStrides, request.interleave,
          request.swizzle, request.l2Promotion, request.oobFill, message,
          sizeof(message)))
    reportError("%s", message);
}
static_assert(std::is_same_v<decltype(&tileRtTensorMapEncodeIm2colMemref),
                             EncodeIm2colFn>,
              "the encoder's signature is the contract's");

/// Upstream's ABI (nvgpu.tma.create.descriptor): encodes a tiled map for the
/// memref `descriptor` and returns a device copy of it.
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  TiledTensorMapRequest request;
  alignas(kTensorMapAlignment) CUtensorMap map;
  if (!fillFromMemRef(request, rank,
                      static_cast<MemRefDescriptor *>(descriptor), dataType,
                      interleave, swizzle, l2Promotion, oobFill, boxDims))
    return nullptr;
  encodeTiledOrReport(request, &map);
  return copyTensorMapToDevice(map);
}

int tileRtTensorMapEncodeTiled(void *tensorMap, int dataType, unsigned rank,
                               void *globalAddress, const uint64_t *globalDim,
                               const uint64_t *globalStrides,
                               const uint32_t *boxDim,
                               const uint32_t *elementStrides, int interleave,
                               int swizzle, int l2Promotion, int oobFill,
                               char *message, size_t messageSize) {
  TiledTensorMapRequest request;
  fillTensor(request, dataType, rank, globalAddress, globalDim, globalStrides,
             elementStrides, interleave, swizzle, l2Promotion, oobFill);
  for (unsigned i = 0; i < rank && i < 5; ++i)
    request.boxDim[i] = boxDim[i];
  if (std::optional<std::string> broken = checkTiledTensorMap(request))
    return failWith("cannot encode tensor map: " + *broken, message,
                    messageSize);
  if (checkEncodePreconditions(tensorMap, message, messageSize))
    return 1;
  if (tensorMapCache.lookup(request, tensorMap))
    return 0;
  Driver &d = loadDriver();
  if (d.unavailable.empty())
    adoptDefaultContext(d); // the encoder fails without a current context
  CUresult result = d.cuTensorMapEncodeTiled(
      static_cast<CUtensorMap *>(tensorMap), CUtensorMapDataType(dataType),
      rank, globalAddress, request.globalDim, request.globalStrides,
      request.boxDim, request.elementStrides, CUtensorMapInterleave(interleave),
      CUtensorMapSwizzle(swizzle), CUtensorMapL2promotion(l2Promotion),
      CUtensorMapFloatOOBfill(oobFill));
  if (result != CUDA_SUCCESS)
    return failWith(describeFailure(result, "cuTensorMapEncodeTiled") + "; " +
                        describeTiledTensorMap(request),
                    message, messageSize);
  tensorMapCache.insert(request, tensorMap);
  return 0;
}

int tileRtTensorMapEncodeIm2col(
    void *tensorMap, int dataType, unsigned rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
    unsigned channelsPerPixel, unsigned pixelsPerColumn,
    const uint32_t *elementStrides, int interleave, int swizzle,
    int l2Promotion, int oobFill, char *message, size_t messageSize) {
  Im2colTensorMapRequest request;
  fillTensor(request.tensor, dataType, rank, globalAddress, globalDim,
             globalStrides, elementStrides, interleave, swizzle, l2Promotion,
             oobFill);
  for (unsigned i = 0; rank >= 3 && i < rank - 2 && i < 3; ++i) {
    request.pixelBoxLowerCorner[i] = pixelBoxLowerCorner[i];
    request.pixelBoxUpperCorner[i] = pixelBoxUpperCorner[i];
  }
  request.channelsPerPixel = channelsPerPixel;
  request.pixelsPerColumn = pixelsPerColumn;
  if (std::optional<std::string> broken = checkIm2colTensorMap(request))
    return failWith("cannot encode tensor map: " + *broken, message,
                    messageSize);
  if (checkEncodePreconditions(tensorMap, message, messageSize))
    return 1;
  Driver &d = loadDriver();
  if (d.unavailable.empty())
    adoptDefaultContext(d); // the encoder fails without a current context
  CUresult result = d.cuTensorMapEncodeIm2col(
      static_cast<CUtensorMap *>(tensorMap), CUtensorMapDataType(dataType),
      rank, globalAddress, request.tensor.globalDim,
      request.tensor.globalStrides, request.pixelBoxLowerCorner,
      request.pixelBoxUpperCorner, channelsPerPixel, pixelsPerColumn,
      request.tensor.elementStrides, CUtensorMapInterleave(interleave),
      CUtensorMapSwizzle(swizzle), CUtensorMapL2promotion(l2Promotion),
      CUtensorMapFloatOOBfill(oobFill));
  if (result != CUDA_SUCCESS)
    return failWith(describeFailure(result, "cuTensorMapEncodeIm2col") +
                        "; im2col, " + describeTiledTensorMap(request.tensor),
                    message, messageSize);
  return 0;
}

} // extern "C"
