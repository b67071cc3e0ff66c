//===- Launch.cpp - Kernels, launches, timing and the watchdog ------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Launches are stream-ordered and never wait on the host; a kernel launches
// in the context (device) it was loaded into. With timing on, CUDA events
// bracket every launch. Waiting for a stream can be bounded (the watchdog).
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "MgpuAbi.h"
#include "Launch.h"
#include "tile/Runtime.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

using namespace tile_rt;

namespace {

/// A loaded kernel.
struct KernelInfo {
  std::string name;
  CUcontext context = nullptr;
  int device = 0; ///< the ordinal of `context`'s device
  /// Dynamic shared memory sizes up to which the kernel is known to launch
  /// (its MAX_DYNAMIC_SHARED_SIZE_BYTES attribute stays set).
  std::atomic<int32_t> sharedFitsUpTo{0};
};

std::mutex kernelMutex;
/// Node-based: a KernelInfo never moves once registered.
std::unordered_map<CUfunction, KernelInfo> kernels;
/// The kernel launched last on each device (for the errors and the watchdog
/// of waits there), and on any device.
constexpr int kMaxDevices = 64;
std::array<std::atomic<const KernelInfo *>, kMaxDevices> lastKernels{};
std::atomic<const KernelInfo *> lastKernel{nullptr};

void noteLaunch(const KernelInfo *kernel) {
  lastKernel = kernel;
  if (kernel && kernel->device >= 0 && kernel->device < kMaxDevices)
    lastKernels[kernel->device] = kernel;
}

/// The kernel launched last on the device of the current context (any
/// device when none is current).
const KernelInfo *lastKernelHere() {
  Driver &d = loadDriver();
  CUcontext context = nullptr;
  CUdevice device = 0;
  if (d.unavailable.empty() && d.cuCtxGetCurrent(&context) == CUDA_SUCCESS &&
      context && d.cuCtxGetDevice(&device) == CUDA_SUCCESS &&
      device < kMaxDevices)
    return lastKernels[device].load();
  return lastKernel.load();
}

const KernelInfo *findKernel(CUfunction function) {
  std::lock_guard<std::mutex> lock(kernelMutex);
  auto it = kernels.find(function);
  return it == kernels.end() ? nullptr : &it->second;
}

const char *nameOf(const KernelInfo *kernel) {
  return kernel ? kernel->name.c_str() : "<unknown kernel>";
}

/// Raises the kernel's dynamic shared memory limit when its static and
/// dynamic shared memory together exceed the 48 KB a launch gets by default,
/// checking the device's opt-in maximum. Runs in the kernel's context.
void prepareSharedMemory(Driver &d, CUfunction function, int32_t bytes,
                         const KernelInfo *kernel) {
  constexpr int32_t kDefaultSharedBytes = 48 * 1024;
  if (bytes <= 0 || (kernel && kernel->sharedFitsUpTo.load() >= bytes))
    return;
  int optIn = 0, staticBytes = 0;
  check(d.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                             function),
        "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  if (bytes + staticBytes > kDefaultSharedBytes) {
    check(d.cuDeviceGetAttribute(
              &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              currentDevice()),
          "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
    if (bytes + staticBytes > optIn)
      reportError("kernel '%s' asks for %d bytes of dynamic + %d bytes of "
                  "static shared memory; the device allows %d per block",
                  nameOf(kernel), bytes, staticBytes, optIn);
    check(d.cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
          std::string("kernel '") + nameOf(kernel) + "'");
  }
  if (kernel)
    const_cast<KernelInfo *>(kernel)->sharedFitsUpTo = bytes;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

struct TimedLaunch {
  std::string kernel;
  CUevent start, stop;
};
std::atomic<bool> timingEnabled{false};
std::mutex timingMutex;
std::vector<TimedLaunch> timedLaunches;

/// Starts timing a launch on `stream` when timing is on.
CUevent beginTimedLaunch(Driver &d, CUstream stream) {
  if (!timingEnabled)
    return nullptr;
  CUevent start;
  check(d.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(d.cuEventRecord(start, stream), "cuEventRecord");
  return start;
}

void endTimedLaunch(Driver &d, CUstream stream, CUevent start,
                    const KernelInfo *kernel) {
  if (!start)
    return;
  CUevent stop;
  check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  check(d.cuEventRecord(stop, stream), "cuEventRecord");
  std::lock_guard<std::mutex> lock(timingMutex);
  timedLaunches.push_back({nameOf(kernel), start, stop});
}

} // namespace

void tile_rt::registerKernel(CUfunction function, const char *name) {
  Driver &d = loadDriver();
  CUcontext context = nullptr;
  CUdevice device = 0;
  d.cuCtxGetCurrent(&context);
  d.cuCtxGetDevice(&device);
  std::lock_guard<std::mutex> lock(kernelMutex);
  KernelInfo &kernel = kernels[function];
  kernel.name = name;
  kernel.context = context;
  kernel.device = int(device);
}

std::string tile_rt::afterLastKernel() {
  const KernelInfo *kernel = lastKernelHere();
  return kernel ? "last kernel launched: '" + kernel->name + "'" : "";
}

/// Launches `function` with cuLaunchKernelEx (every launch of the runtime,
/// plain ones with no attribute) and the attributes that cuLaunchKernel has
/// no parameter for: a cluster shape (when `cluster` is given) and
/// programmatic stream serialization (`dependent`: the kernel may start
/// before the previous kernel of `stream` completes, and waits for it with
/// griddepcontrol.wait).
static void launchWithAttributes(CUfunction function, const intptr_t *cluster,
                                 bool dependent, intptr_t gridX, intptr_t gridY,
                                 intptr_t gridZ, intptr_t blockX,
                                 intptr_t blockY, intptr_t blockZ, int32_t smem,
                                 CUstream stream, void **params, void **extra) {
  // A known kernel runs in its own context (no other is made current); an
  // unknown one in the thread's.
  const KernelInfo *kernel = findKernel(function);
  Driver &d = kernel ? usableDriver() : driver();
  ScopedContext inKernelContext(kernel ? kernel->context : nullptr);
  if (cluster) {
    intptr_t clusterX = cluster[0], clusterY = cluster[1],
             clusterZ = cluster[2];
    if (clusterX < 1 || clusterY < 1 || clusterZ < 1 || gridX % clusterX ||
        gridY % clusterY || gridZ % clusterZ)
      reportError("kernel '%s': grid (%ld, %ld, %ld) is not a multiple of the "
                  "cluster shape (%ld, %ld, %ld)",
                  nameOf(kernel), long(gridX), long(gridY), long(gridZ),
                  long(clusterX), long(clusterY), long(clusterZ));
    constexpr intptr_t kPortableClusterSize = 8;
    if (clusterX * clusterY * clusterZ > kPortableClusterSize)
      check(d.cuFuncSetAttribute(
                function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                1),
            "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
            std::string("kernel '") + nameOf(kernel) + "'");
  }
  prepareSharedMemory(d, function, smem, kernel);

  CUlaunchAttribute attributes[2];
  std::memset(attributes, 0, sizeof(attributes));
  unsigned count = 0;
  if (cluster) {
    CUlaunchAttribute &attribute = attributes[count++];
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = cluster[0];
    attribute.value.clusterDim.y = cluster[1];
    attribute.value.clusterDim.z = cluster[2];
  }
  if (dependent) {
    CUlaunchAttribute &attribute = attributes[count++];
    attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attribute.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = gridX;
  config.gridDimY = gridY;
  config.gridDimZ = gridZ;
  config.blockDimX = blockX;
  config.blockDimY = blockY;
  config.blockDimZ = blockZ;
  config.sharedMemBytes = smem;
  config.hStream = stream;
  config.attrs = attributes;
  config.numAttrs = count;
  noteLaunch(kernel);
  CUevent start = beginTimedLaunch(d, stream);
  checkWith(d.cuLaunchKernelEx(&config, function, params, extra),
            "cuLaunchKernelEx", [&] {
              std::string what = std::string("kernel '") + nameOf(kernel) + "'";
              if (cluster)
                what += ", cluster (" + std::to_string(cluster[0]) + ", " +
                        std::to_string(cluster[1]) + ", " +
                        std::to_string(cluster[2]) + ")";
              if (dependent)
                what += ", programmatic dependent launch";
              return what + ", grid (" + std::to_string(gridX) + ", " +
                     std::to_string(gridY) + ", " + std::to_string(gridZ) +
                     "), block (" + std::to_string(blockX) + ", " +
                     std::to_string(blockY) + ", " + std::to_string(blockZ) +
                     "), " + std::to_string(smem) +
                     " bytes of dynamic shared memory";
            });
  endTimedLaunch(d, stream, start, kernel);
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

extern "C" {

const char *tileRtLastKernelName(void) {
  const KernelInfo *kernel = lastKernelHere();
  return kernel ? kernel->name.c_str() : "";
}

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  launchWithAttributes(function, /*cluster=*/nullptr, /*dependent=*/false,
                       gridX, gridY, gridZ, blockX, blockY, blockZ, smem,
                       stream, params, extra);
}

/// MLIR passes the total grid in blocks (gridX = number of blocks along x),
/// which must be a multiple of the cluster shape.
void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, CUstream stream, void **params,
                             void **extra, size_t /*paramsCount*/) {
  const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
  launchWithAttributes(function, cluster, /*dependent=*/false, gridX, gridY,
                       gridZ, blockX, blockY, blockZ, smem, stream, params,
                       extra);
}

void tileRtLaunch(const TileRtLaunchConfig *c) {
  auto function = static_cast<CUfunction>(c->function);
  auto stream = static_cast<CUstream>(c->stream);
  const intptr_t cluster[3] = {intptr_t(c->cluster[0]),
                               intptr_t(c->cluster[1]),
                               intptr_t(c->cluster[2])};
  launchWithAttributes(function, c->cluster[0] > 0 ? cluster : nullptr,
                       c->dependentLaunch != 0, c->grid[0], c->grid[1],
                       c->grid[2], c->block[0], c->block[1], c->block[2],
                       int32_t(c->sharedBytes), stream, c->params, nullptr);
}

size_t tileRtLaunchConfigBytes(void) { return sizeof(TileRtLaunchConfig); }

void tileRtEnableKernelTiming(int enable) { timingEnabled = enable != 0; }

void tileRtPrintKernelTimes(void) {
  std::lock_guard<std::mutex> lock(timingMutex);
  if (timedLaunches.empty())
    return;
  Driver &d = driver();
  std::map<std::string, std::vector<float>> times;
  // Per kernel, from its first launch's start to its last launch's stop:
  // for launches issued back to back (a loop of launches) the time per
  // launch without the gaps that timing each one alone adds to short ones.
  std::map<std::string, std::pair<CUevent, CUevent>> spans;
  for (TimedLaunch &launch : timedLaunches) {
    check(d.cuEventSynchronize(launch.stop), "cuEventSynchronize",
          afterLastKernel());
    float ms = 0;
    check(d.cuEventElapsedTime(&ms, launch.start, launch.stop),
          "cuEventElapsedTime");
    times[launch.kernel].push_back(ms);
    auto [it, fresh] =
        spans.try_emplace(launch.kernel, launch.start, launch.stop);
    it->second.second = launch.stop;
  }
  for (auto &[name, samples] : times) {
    float span = 0;
    check(d.cuEventElapsedTime(&span, spans[name].first, spans[name].second),
          "cuEventElapsedTime");
    std::sort(samples.begin(), samples.end());
    std::printf("kernel %s: %zu launches, median %.4f ms, min %.4f ms, max "
                "%.4f ms, back-to-back mean %.4f ms\n",
                name.c_str(), samples.size(), samples[samples.size() / 2],
                samples.front(), samples.back(), span / samples.size());
  }
  for (TimedLaunch &launch : timedLaunches) {
    d.cuEventDestroy(launch.start);
    d.cuEventDestroy(launch.stop);
  }
  timedLaunches.clear();
  std::fflush(stdout);
}

void tileRtSynchronize(void) {
  check(driver().cuCtxSynchronize(), "cuCtxSynchronize", afterLastKernel());
}

int tileRtStreamSynchronize(void *stream, double timeoutSeconds) {
  // A stream names its context; the legacy default stream is the thread's.
  Driver &d = stream ? usableDriver() : driver();
  auto cuStream = static_cast<CUstream>(stream);
  if (timeoutSeconds <= 0) {
    CUresult result = d.cuStreamSynchronize(cuStream);
    check(result, "cuStreamSynchronize", afterLastKernel());
    return result == CUDA_SUCCESS ? 0 : 1;
  }
  // Poll, sleeping a little longer each time (up to 1 ms), so that a kernel
  // that never finishes becomes an error instead of a hung process.
  auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::duration<double>(timeoutSeconds);
  std::chrono::microseconds nap(2);
  while (true) {
    CUresult result = d.cuStreamQuery(cuStream);
    if (result == CUDA_SUCCESS)
      return 0;
    if (result != CUDA_ERROR_NOT_READY) {
      check(result, "cuStreamQuery", afterLastKernel());
      return 1;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(1000));
  }
  const char *kernel = tileRtLastKernelName();
  reportError("watchdog: the stream did not finish within %g s; last kernel "
              "launched: '%s' (a kernel whose wait is never satisfied hangs "
              "like this); it may still be running, so the process should "
              "exit",
              timeoutSeconds, kernel[0] ? kernel : "<none>");
  return 1;
}

} // extern "C"
