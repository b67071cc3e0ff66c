//===- CudaRuntime.cpp - mgpu* and tileRt* over the CUDA driver API -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The driver is loaded with dlopen("libcuda.so.1") on first use and every
// entry point is resolved through cuGetProcAddress for the CUDA 12.0 ABI, so
// this file needs cuda.h at build time but no libcuda to link or to start.
// All work runs in device 0's primary context (or mgpuSetDefaultDevice's).
//===----------------------------------------------------------------------===//

#include "Tile/TensorMap/TensorMapContract.h"
#include "tile/Runtime.h"

#include <cuda.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

using namespace tile_tma;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void defaultErrorHandler(const char *message) {
  std::fprintf(stderr, "tile-runtime: %s\n", message);
  std::fflush(stderr);
  std::exit(1);
}

TileRtErrorHandler errorHandler = defaultErrorHandler;

/// Formats a message and hands it to the error handler.
[[gnu::format(printf, 1, 2)]] void reportError(const char *format, ...) {
  char message[2048];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  errorHandler(message);
}

//===----------------------------------------------------------------------===//
// The driver, loaded on first use
//===----------------------------------------------------------------------===//

/// Driver entry points, resolved by name for the CUDA 12.0 ABI.
struct Driver {
// clang-format off
#define TILE_CU_FUNCTIONS(X)                                                   \
  X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGet)               \
  X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceGetAttribute)               \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize)           \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload)                  \
  X(cuModuleGetFunction) X(cuFuncSetAttribute) X(cuFuncGetAttribute)           \
  X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuStreamCreate) X(cuStreamDestroy)   \
  X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent)                 \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventSynchronize) X(cuEventRecord)    \
  X(cuEventQuery) X(cuEventElapsedTime) X(cuMemAlloc) X(cuMemAllocManaged)     \
  X(cuMemFree) X(cuMemGetInfo) X(cuMemcpy) X(cuMemcpyAsync)                    \
  X(cuMemsetD32Async) X(cuMemsetD16Async) X(cuMemHostRegister)                 \
  X(cuMemHostUnregister) X(cuTensorMapEncodeTiled)                             \
  X(cuTensorMapEncodeIm2col) X(cuDriverGetVersion)
// clang-format on
#define TILE_CU_MEMBER(name) decltype(&::name) name = nullptr;
  TILE_CU_FUNCTIONS(TILE_CU_MEMBER)
#undef TILE_CU_MEMBER

  /// Empty when the driver loaded and a context is current; else why not.
  std::string unavailable;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int version = 0; ///< cuDriverGetVersion
};

/// CUDA version whose ABI the function pointers above follow.
constexpr int kDriverAbiVersion = 12000;

std::mutex driverMutex;
Driver *driverInstance = nullptr;
int defaultDevice = 0;

/// Loads libcuda.so.1, resolves the entry points, initializes the driver and
/// makes the device's primary context current. Records failures in
/// `unavailable` rather than reporting them.
Driver *loadDriver() {
  std::lock_guard<std::mutex> lock(driverMutex);
  if (driverInstance)
    return driverInstance;
  auto *driver = new Driver();
  driverInstance = driver;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    driver->unavailable =
        std::string("no CUDA driver: cannot load libcuda.so.1 (") +
        (why ? why : "not found") + ")";
    return driver;
  }
  using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
  auto getProc =
      reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (!getProc) {
    driver->unavailable = "CUDA driver too old: no cuGetProcAddress_v2 "
                          "(a CUDA 12 driver or newer is needed)";
    return driver;
  }
#define TILE_CU_RESOLVE(name)                                                  \
  {                                                                            \
    void *pfn = nullptr;                                                       \
    CUdriverProcAddressQueryResult status;                                     \
    if (getProc(#name, &pfn, kDriverAbiVersion, CU_GET_PROC_ADDRESS_DEFAULT,   \
                &status) != CUDA_SUCCESS ||                                    \
        !pfn) {                                                                \
      driver->unavailable = "CUDA driver lacks " #name;                        \
      return driver;                                                           \
    }                                                                          \
    driver->name = reinterpret_cast<decltype(driver->name)>(pfn);              \
  }
  TILE_CU_FUNCTIONS(TILE_CU_RESOLVE)
#undef TILE_CU_RESOLVE
  CUresult result = driver->cuInit(0);
  if (result != CUDA_SUCCESS) {
    const char *name = nullptr;
    driver->cuGetErrorName(result, &name);
    driver->unavailable = std::string("no CUDA device: cuInit failed with ") +
                          (name ? name : "an unknown error");
    return driver;
  }
  int count = 0;
  if (driver->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    driver->unavailable = "no CUDA device: the driver reports none";
    return driver;
  }
  if (defaultDevice >= count) {
    driver->unavailable = "no CUDA device " + std::to_string(defaultDevice) +
                          " (the driver reports " + std::to_string(count) + ")";
    return driver;
  }
  if (driver->cuDeviceGet(&driver->device, defaultDevice) != CUDA_SUCCESS ||
      driver->cuDevicePrimaryCtxRetain(&driver->context, driver->device) !=
          CUDA_SUCCESS ||
      driver->cuCtxSetCurrent(driver->context) != CUDA_SUCCESS)
    driver->unavailable = "cannot create a context on CUDA device " +
                          std::to_string(defaultDevice);
  driver->cuDriverGetVersion(&driver->version);
  return driver;
}

/// The loaded driver with its context current on this thread; reports an
/// error (exiting by default) when there is none.
Driver &driver() {
  Driver *d = loadDriver();
  if (!d->unavailable.empty()) {
    reportError("%s", d->unavailable.c_str());
    std::exit(1); // a handler that returns leaves nothing to run on
  }
  static thread_local bool current = false;
  if (!current) {
    d->cuCtxSetCurrent(d->context);
    current = true;
  }
  return *d;
}

//===----------------------------------------------------------------------===//
// Kernels: names for diagnostics, timing
//===----------------------------------------------------------------------===//

std::mutex kernelMutex;
std::map<CUfunction, std::string> kernelNames;
std::string lastKernel;
char lastKernelBuffer[256] = "";

struct TimedLaunch {
  std::string kernel;
  CUevent start, stop;
};
bool timingEnabled = false;
std::vector<TimedLaunch> timedLaunches;

std::string kernelName(CUfunction function) {
  std::lock_guard<std::mutex> lock(kernelMutex);
  auto it = kernelNames.find(function);
  return it == kernelNames.end() ? "<unknown kernel>" : it->second;
}

/// True for the errors after which the context is unusable: every later
/// driver call of the process fails (CUDA Driver API, "Error Handling").
bool isStickyError(CUresult result) {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_CONTEXT_IS_DESTROYED:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
    return true;
  default:
    return false;
  }
}

/// The first failure that made the context unusable ("" while it is fine).
std::mutex stickyMutex;
std::string firstStickyFailure;

/// Checks a driver result; on failure reports the call, the CUDA error name
/// and description, and `context` (e.g. the kernel launched last). Once an
/// error has made the context unusable, every later failure says so and
/// names that first failure.
void check(CUresult result, const char *call, const std::string &context = "") {
  if (result == CUDA_SUCCESS)
    return;
  Driver &d = *loadDriver();
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  std::string failure = std::string(call) +
                        " failed: " + (name ? name : "CUDA error") + " (" +
                        (text ? text : "no description") + ")" +
                        (context.empty() ? "" : "; " + context);
  std::string first;
  {
    std::lock_guard<std::mutex> lock(stickyMutex);
    first = firstStickyFailure;
    if (first.empty() && isStickyError(result))
      firstStickyFailure = failure;
  }
  if (!first.empty())
    reportError("%s: the CUDA context is unusable since an earlier failure "
                "(%s); restart the process",
                failure.c_str(), first.c_str());
  else if (isStickyError(result))
    reportError("%s; the CUDA context is now unusable: every later CUDA call "
                "of this process fails",
                failure.c_str());
  else
    reportError("%s", failure.c_str());
}

/// As check, building the context text only when the call failed (launches
/// and allocations are on the hot path).
template <typename ContextFn>
void checkWith(CUresult result, const char *call, ContextFn &&context) {
  if (result != CUDA_SUCCESS)
    check(result, call, context());
}

/// Context for errors of calls that synchronize: asynchronous kernel faults
/// surface there.
std::string afterLastKernel() {
  std::lock_guard<std::mutex> lock(kernelMutex);
  return lastKernel.empty() ? "" : "last kernel launched: '" + lastKernel + "'";
}

/// Records `name` as the kernel launched last (for errors and the watchdog).
void noteLaunch(const std::string &name) {
  std::lock_guard<std::mutex> lock(kernelMutex);
  lastKernel = name;
  std::snprintf(lastKernelBuffer, sizeof(lastKernelBuffer), "%s", name.c_str());
}

/// Raises the kernel's dynamic shared memory limit when its static and
/// dynamic shared memory together exceed the 48 KB a launch gets by default,
/// checking the device's opt-in maximum.
void prepareSharedMemory(Driver &d, CUfunction function, int32_t bytes,
                         const std::string &name) {
  constexpr int32_t kDefaultSharedBytes = 48 * 1024;
  if (bytes <= 0)
    return;
  // The dynamic sizes known to launch (the attribute stays set).
  static std::map<CUfunction, int32_t> fitsUpTo;
  {
    std::lock_guard<std::mutex> lock(kernelMutex);
    auto it = fitsUpTo.find(function);
    if (it != fitsUpTo.end() && it->second >= bytes)
      return;
  }
  int optIn = 0, staticBytes = 0;
  check(d.cuFuncGetAttribute(&staticBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                             function),
        "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
  if (bytes + staticBytes > kDefaultSharedBytes) {
    check(d.cuDeviceGetAttribute(
              &optIn, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              d.device),
          "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
    if (bytes + staticBytes > optIn)
      reportError("kernel '%s' asks for %d bytes of dynamic + %d bytes of "
                  "static shared memory; the device allows %d per block",
                  name.c_str(), bytes, staticBytes, optIn);
    check(d.cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
          "kernel '" + name + "'");
  }
  std::lock_guard<std::mutex> lock(kernelMutex);
  fitsUpTo[function] = bytes;
}

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
                    const std::string &name) {
  if (!start)
    return;
  CUevent stop;
  check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  check(d.cuEventRecord(stop, stream), "cuEventRecord");
  timedLaunches.push_back({name, start, stop});
}

/// Device copies of tensor maps for kernels that take a map's global address
/// (upstream's nvgpu ABI, mgpuTensorMapEncodeTiledMemref): one per distinct
/// map, so launches that re-encode the same map allocate nothing; freed at
/// exit (freeTensorMapCopies).
std::mutex tensorMapCopiesMutex;
std::map<std::array<uint64_t, kTensorMapBytes / 8>, CUdeviceptr>
    tensorMapCopies;

void freeTensorMapCopies() {
  Driver *d = driverInstance;
  if (!d || !d->unavailable.empty())
    return;
  std::lock_guard<std::mutex> lock(tensorMapCopiesMutex);
  for (auto &[map, copy] : tensorMapCopies)
    d->cuMemFree(copy);
  tensorMapCopies.clear();
}

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

/// A ranked memref descriptor as MLIR passes it: allocated and aligned
/// pointers, offset, then `rank` sizes and `rank` strides.
struct MemRefDescriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

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

/// T-TMA-14: the CUtensorMap object's alignment, 64 bytes (128 bytes from the
/// CUDA 13 driver on). Empty when fine.
std::string checkTensorMapObject(Driver &d, const void *tensorMap) {
  int version = d.version;
  uintptr_t alignment = version >= kDriverVersionWith128ByteMaps
                            ? kTensorMapAlignment
                            : kLegacyTensorMapAlignment;
  if (reinterpret_cast<uintptr_t>(tensorMap) % alignment == 0)
    return "";
  char text[160];
  std::snprintf(text, sizeof(text),
                "the CUtensorMap at %p is not %zu-byte aligned (driver %d) "
                "(T-TMA-14)",
                tensorMap, size_t(alignment), version);
  return text;
}

/// Writes `text` into the caller's message buffer and returns 1.
int failWith(const std::string &text, char *message, size_t size) {
  if (message && size)
    std::snprintf(message, size, "%s", text.c_str());
  return 1;
}

/// Describes a failed driver call for the message buffers of tileRt*.
std::string driverError(Driver &d, CUresult result, const char *call) {
  const char *name = nullptr;
  d.cuGetErrorName(result, &name);
  return std::string(call) + " failed: " + (name ? name : "CUDA error");
}

} // namespace

//===----------------------------------------------------------------------===//
// tileRt* API
//===----------------------------------------------------------------------===//

extern "C" {

void tileRtSetErrorHandler(TileRtErrorHandler handler) {
  errorHandler = handler ? handler : defaultErrorHandler;
}

int tileRtProbe(char *message, size_t size) {
  Driver *d = loadDriver();
  if (d->unavailable.empty())
    return 0;
  if (message && size)
    std::snprintf(message, size, "%s", d->unavailable.c_str());
  return 1;
}

int tileRtDeviceDescription(char *buffer, size_t size) {
  if (tileRtProbe(buffer, size))
    return 1;
  Driver &d = driver();
  char name[256] = "";
  int major = 0, minor = 0, sms = 0;
  d.cuDeviceGetName(name, sizeof(name), d.device);
  d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         d.device);
  d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         d.device);
  d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                         d.device);
  std::snprintf(buffer, size, "%s (sm_%d%d, %d SMs)", name, major, minor, sms);
  return 0;
}

const char *tileRtLastKernelName(void) { return lastKernelBuffer; }

void tileRtEnableKernelTiming(int enable) { timingEnabled = enable != 0; }

void tileRtPrintKernelTimes(void) {
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
  Driver &d = driver();
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
  const char *kernel = lastKernelBuffer[0] ? lastKernelBuffer : "<none>";
  reportError("watchdog: the stream did not finish within %g s; last kernel "
              "launched: '%s' (a kernel whose wait is never satisfied hangs "
              "like this); it may still be running, so the process should "
              "exit",
              timeoutSeconds, kernel);
  return 1;
}

int tileRtMemoryInfo(uint64_t *freeBytes, uint64_t *totalBytes) {
  size_t free = 0, total = 0;
  CUresult result = driver().cuMemGetInfo(&free, &total);
  check(result, "cuMemGetInfo");
  *freeBytes = free;
  *totalBytes = total;
  return result == CUDA_SUCCESS ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// mgpu* ABI of MLIR 22's gpu-to-llvm lowering
//===----------------------------------------------------------------------===//

CUmodule mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  Driver &d = driver();
  CUmodule module = nullptr;
  check(d.cuModuleLoadData(&module, data), "cuModuleLoadData (cubin/fatbin)");
  return module;
}

CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  Driver &d = driver();
  CUmodule module = nullptr;
  char log[8192] = "";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(
                        static_cast<intptr_t>(std::clamp(optLevel, 0, 4)))};
  CUresult result = d.cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS && log[0])
    std::fprintf(stderr, "tile-runtime: PTX JIT log:\n%s\n", log);
  check(result, "cuModuleLoadDataEx (PTX JIT)");
  return module;
}

void mgpuModuleUnload(CUmodule module) {
  check(driver().cuModuleUnload(module), "cuModuleUnload");
}

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction function = nullptr;
  check(driver().cuModuleGetFunction(&function, module, name),
        "cuModuleGetFunction", std::string("kernel '") + name + "'");
  std::lock_guard<std::mutex> lock(kernelMutex);
  kernelNames[function] = name;
  return function;
}

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  Driver &d = driver();
  std::string name = kernelName(function);
  prepareSharedMemory(d, function, smem, name);
  noteLaunch(name);
  CUevent start = beginTimedLaunch(d, stream);
  checkWith(d.cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                             blockZ, smem, stream, params, extra),
            "cuLaunchKernel", [&] {
              return "kernel '" + name + "', grid (" + std::to_string(gridX) +
                     ", " + std::to_string(gridY) + ", " +
                     std::to_string(gridZ) + "), block (" +
                     std::to_string(blockX) + ", " + std::to_string(blockY) +
                     ", " + std::to_string(blockZ) + "), " +
                     std::to_string(smem) + " bytes of dynamic shared memory";
            });
  endTimedLaunch(d, stream, start, name);
}

/// MLIR passes the total grid in blocks (gridX = number of blocks along x),
/// which must be a multiple of the cluster shape.
void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, CUstream stream, void **params,
                             void **extra, size_t /*paramsCount*/) {
  Driver &d = driver();
  std::string name = kernelName(function);
  if (clusterX < 1 || clusterY < 1 || clusterZ < 1 || gridX % clusterX ||
      gridY % clusterY || gridZ % clusterZ)
    reportError("kernel '%s': grid (%ld, %ld, %ld) is not a multiple of the "
                "cluster shape (%ld, %ld, %ld)",
                name.c_str(), long(gridX), long(gridY), long(gridZ),
                long(clusterX), long(clusterY), long(clusterZ));
  constexpr intptr_t kPortableClusterSize = 8;
  if (clusterX * clusterY * clusterZ > kPortableClusterSize)
    check(d.cuFuncSetAttribute(
              function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
          "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
          "kernel '" + name + "'");
  prepareSharedMemory(d, function, smem, name);

  CUlaunchAttribute attribute;
  std::memset(&attribute, 0, sizeof(attribute));
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = clusterX;
  attribute.value.clusterDim.y = clusterY;
  attribute.value.clusterDim.z = clusterZ;
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
  config.attrs = &attribute;
  config.numAttrs = 1;
  noteLaunch(name);
  CUevent start = beginTimedLaunch(d, stream);
  checkWith(d.cuLaunchKernelEx(&config, function, params, extra),
            "cuLaunchKernelEx", [&] {
              return "kernel '" + name + "', cluster (" +
                     std::to_string(clusterX) + ", " +
                     std::to_string(clusterY) + ", " +
                     std::to_string(clusterZ) + "), grid (" +
                     std::to_string(gridX) + ", " + std::to_string(gridY) +
                     ", " + std::to_string(gridZ) + ")";
            });
  endTimedLaunch(d, stream, start, name);
}

void tileRtLaunch(const TileRtLaunchConfig *c) {
  auto function = static_cast<CUfunction>(c->function);
  auto stream = static_cast<CUstream>(c->stream);
  if (c->cluster[0] > 0)
    mgpuLaunchClusterKernel(function, c->cluster[0], c->cluster[1],
                            c->cluster[2], c->grid[0], c->grid[1], c->grid[2],
                            c->block[0], c->block[1], c->block[2],
                            int32_t(c->sharedBytes), stream, c->params, nullptr,
                            size_t(c->paramCount));
  else
    mgpuLaunchKernel(function, c->grid[0], c->grid[1], c->grid[2], c->block[0],
                     c->block[1], c->block[2], int32_t(c->sharedBytes), stream,
                     c->params, nullptr, size_t(c->paramCount));
}

CUstream mgpuStreamCreate() {
  CUstream stream = nullptr;
  check(driver().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(CUstream stream) {
  check(driver().cuStreamDestroy(stream), "cuStreamDestroy");
}

void mgpuStreamSynchronize(CUstream stream) {
  check(driver().cuStreamSynchronize(stream), "cuStreamSynchronize",
        afterLastKernel());
}

void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  check(driver().cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

CUevent mgpuEventCreate() {
  CUevent event = nullptr;
  check(driver().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return event;
}

void mgpuEventDestroy(CUevent event) {
  check(driver().cuEventDestroy(event), "cuEventDestroy");
}

void mgpuEventSynchronize(CUevent event) {
  check(driver().cuEventSynchronize(event), "cuEventSynchronize",
        afterLastKernel());
}

void mgpuEventRecord(CUevent event, CUstream stream) {
  check(driver().cuEventRecord(event, stream), "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/, bool isHostShared) {
  Driver &d = driver();
  CUdeviceptr pointer = 0;
  if (sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    checkWith(d.cuMemAllocManaged(&pointer, sizeBytes, CU_MEM_ATTACH_GLOBAL),
              "cuMemAllocManaged",
              [&] { return std::to_string(sizeBytes) + " bytes"; });
  else
    checkWith(d.cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc",
              [&] { return std::to_string(sizeBytes) + " bytes"; });
  return reinterpret_cast<void *>(pointer);
}

void mgpuMemFree(void *pointer, CUstream stream) {
  if (!pointer)
    return;
  Driver &d = driver();
  // Frees must not race with kernels still using the memory on `stream`.
  if (stream)
    check(d.cuStreamSynchronize(stream),
          "cuStreamSynchronize (before cuMemFree)", afterLastKernel());
  check(d.cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream) {
  check(driver().cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                               reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                               stream),
        "cuMemcpyAsync", afterLastKernel());
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream) {
  check(driver().cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, stream),
        "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  CUstream stream) {
  check(driver().cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, stream),
        "cuMemsetD16Async");
}

void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  check(driver().cuMemHostRegister(pointer, sizeBytes,
                                   CU_MEMHOSTREGISTER_PORTABLE),
        "cuMemHostRegister");
}

void mgpuMemHostUnregister(void *pointer) {
  check(driver().cuMemHostUnregister(pointer), "cuMemHostUnregister");
}

/// Bytes spanned by a ranked memref (its largest size * stride).
static uint64_t memRefSpanBytes(int64_t rank, MemRefDescriptor *descriptor,
                                int64_t elementBytes) {
  int64_t elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements =
        std::max<int64_t>(elements, descriptor->sizesAndStrides[i] *
                                        descriptor->sizesAndStrides[rank + i]);
  return uint64_t(elements) * uint64_t(elementBytes);
}

void mgpuMemHostRegisterMemRef(int64_t rank, MemRefDescriptor *descriptor,
                               int64_t elementBytes) {
  char *base = descriptor->aligned + descriptor->offset * elementBytes;
  mgpuMemHostRegister(base, memRefSpanBytes(rank, descriptor, elementBytes));
}

void mgpuMemHostUnregisterMemRef(int64_t, MemRefDescriptor *descriptor,
                                 int64_t elementBytes) {
  mgpuMemHostUnregister(descriptor->aligned +
                        descriptor->offset * elementBytes);
}

void mgpuSetDefaultDevice(int32_t device) {
  std::lock_guard<std::mutex> lock(driverMutex);
  if (driverInstance) {
    if (device != defaultDevice)
      std::fprintf(stderr,
                   "tile-runtime: mgpuSetDefaultDevice(%d) after the "
                   "driver started on device %d is ignored\n",
                   device, defaultDevice);
    return;
  }
  defaultDevice = device;
}

/// Fills the tensor part of a request from the memref `descriptor`
/// (outermost dimension first, as MLIR orders it; the driver wants innermost
/// first); box dimensions from `boxDims` when given.
static void fillFromMemRef(TiledTensorMapRequest &request, int64_t rank,
                           MemRefDescriptor *descriptor, int64_t dataType,
                           int64_t interleave, int64_t swizzle,
                           int64_t l2Promotion, int64_t oobFill,
                           const int64_t *boxDims) {
  request.dataType = int(dataType);
  request.rank = unsigned(rank);
  request.interleave = int(interleave);
  request.swizzle = int(swizzle);
  request.l2Promotion = int(l2Promotion);
  request.oobFill = int(oobFill);
  unsigned elementBytes = getElementBytes(request.dataType);
  if (rank < 1 || rank > 5 || !elementBytes)
    return;
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
  // The innermost memref stride must be 1: TMA has no element stride in
  // global memory (elementStrides only subsample the box).
  if (descriptor->sizesAndStrides[2 * rank - 1] != 1)
    reportError("cannot encode tensor map: the innermost memref stride is "
                "%ld, TMA needs 1 (T-TMA-9); %s",
                long(descriptor->sizesAndStrides[2 * rank - 1]),
                describeTiledTensorMap(request).c_str());
}

/// Copies an encoded map to device memory for kernels that take it as a
/// global-memory pointer; a map copied before is not copied again.
static void *copyTensorMapToDevice(const CUtensorMap &map) {
  std::array<uint64_t, kTensorMapBytes / 8> key;
  std::memcpy(key.data(), &map, kTensorMapBytes);
  std::lock_guard<std::mutex> lock(tensorMapCopiesMutex);
  auto [it, fresh] = tensorMapCopies.try_emplace(key, 0);
  if (!fresh)
    return reinterpret_cast<void *>(it->second);
  Driver &d = driver();
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

/// The checked, cached encoding of a tiled request into `map`; reports a
/// broken rule or a driver error through the error handler.
static void encodeTiledOrReport(const TiledTensorMapRequest &request,
                                void *map) {
  char message[1024];
  if (tileRtTensorMapEncodeTiled(
          map, request.dataType, request.rank,
          reinterpret_cast<void *>(request.globalAddress), request.globalDim,
          request.globalStrides, request.boxDim, request.elementStrides,
          request.interleave, request.swizzle, request.l2Promotion,
          request.oobFill, message, sizeof(message)))
    reportError("%s", message);
}

/// Upstream's ABI (nvgpu.tma.create.descriptor): encodes a tiled map for the
/// memref `descriptor` and returns a device copy of it.
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, MemRefDescriptor *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  TiledTensorMapRequest request;
  fillFromMemRef(request, rank, descriptor, dataType, interleave, swizzle,
                 l2Promotion, oobFill, boxDims);
  alignas(kTensorMapAlignment) CUtensorMap map;
  encodeTiledOrReport(request, &map);
  return copyTensorMapToDevice(map);
}

/// tile.tma_create_descriptor (the contract's EncodeTiledFn): encodes into
/// the caller's 128 bytes, which the launch passes by value.
void tileRtTensorMapEncodeTiledMemref(void *map, int64_t rank, void *descriptor,
                                      int64_t dataType, int64_t interleave,
                                      int64_t swizzle, int64_t l2Promotion,
                                      int64_t oobFill, const int64_t *boxDims) {
  TiledTensorMapRequest request;
  fillFromMemRef(request, rank, static_cast<MemRefDescriptor *>(descriptor),
                 dataType, interleave, swizzle, l2Promotion, oobFill, boxDims);
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
  fillFromMemRef(request, rank, static_cast<MemRefDescriptor *>(descriptor),
                 dataType, interleave, swizzle, l2Promotion, oobFill, nullptr);
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

/// What both encoders check once the request is valid: a usable driver and
/// a tensor-map object it accepts (T-TMA-14). Returns 1 with `message` set.
static int checkEncodePreconditions(void *tensorMap, char *message,
                                    size_t messageSize) {
  if (tileRtProbe(message, messageSize))
    return 1;
  std::string object = checkTensorMapObject(driver(), tensorMap);
  if (!object.empty())
    return failWith("cannot encode tensor map: " + object, message,
                    messageSize);
  return 0;
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
  Driver &d = driver();
  CUresult result = d.cuTensorMapEncodeTiled(
      static_cast<CUtensorMap *>(tensorMap), CUtensorMapDataType(dataType),
      rank, globalAddress, request.globalDim, request.globalStrides,
      request.boxDim, request.elementStrides, CUtensorMapInterleave(interleave),
      CUtensorMapSwizzle(swizzle), CUtensorMapL2promotion(l2Promotion),
      CUtensorMapFloatOOBfill(oobFill));
  if (result != CUDA_SUCCESS)
    return failWith(driverError(d, result, "cuTensorMapEncodeTiled") + "; " +
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
  Driver &d = driver();
  CUresult result = d.cuTensorMapEncodeIm2col(
      static_cast<CUtensorMap *>(tensorMap), CUtensorMapDataType(dataType),
      rank, globalAddress, request.tensor.globalDim,
      request.tensor.globalStrides, request.pixelBoxLowerCorner,
      request.pixelBoxUpperCorner, channelsPerPixel, pixelsPerColumn,
      request.tensor.elementStrides, CUtensorMapInterleave(interleave),
      CUtensorMapSwizzle(swizzle), CUtensorMapL2promotion(l2Promotion),
      CUtensorMapFloatOOBfill(oobFill));
  if (result != CUDA_SUCCESS)
    return failWith(driverError(d, result, "cuTensorMapEncodeIm2col") +
                        "; im2col, " + describeTiledTensorMap(request.tensor),
                    message, messageSize);
  return 0;
}

void tileRtForEachSymbol(void (*callback)(const char *, void *, void *),
                         void *user) {
#define TILE_RT_SYMBOL(name)                                                   \
  callback(#name, reinterpret_cast<void *>(&name), user);
#include "RuntimeSymbols.def"
}

} // extern "C"
