//===- Driver.cpp - The CUDA driver, its devices and the error policy -----===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Loading libcuda, the primary contexts of the devices, the error handler
// and the policy for errors that leave a context unusable; the tileRt*
// entry points about devices (Runtime.h).
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "MgpuAbi.h"
#include "tile/Runtime.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace tile_rt;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {
void defaultErrorHandler(const char *message) {
  std::fprintf(stderr, "tile-runtime: %s\n", message);
  std::fflush(stderr);
  std::exit(1);
}

std::atomic<TileRtErrorHandler> errorHandler{defaultErrorHandler};

/// True for the errors after which the context is unusable: every later
/// driver call in it fails (CUDA Driver API, "Error Handling").
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

/// The first failure that made each context unusable.
std::mutex stickyMutex;
std::map<CUcontext, std::string> firstStickyFailures;
} // namespace

void tile_rt::reportError(const char *format, ...) {
  char message[2048];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  errorHandler.load()(message);
}

void tile_rt::check(CUresult result, const char *call,
                    const std::string &context) {
  if (result == CUDA_SUCCESS)
    return;
  Driver &d = loadDriver();
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  std::string failure = std::string(call) +
                        " failed: " + (name ? name : "CUDA error") + " (" +
                        (text ? text : "no description") + ")" +
                        (context.empty() ? "" : "; " + context);
  CUcontext current = nullptr;
  if (d.cuCtxGetCurrent)
    d.cuCtxGetCurrent(&current);
  std::string first;
  {
    std::lock_guard<std::mutex> lock(stickyMutex);
    auto it = firstStickyFailures.find(current);
    if (it != firstStickyFailures.end())
      first = it->second;
    else if (isStickyError(result))
      firstStickyFailures[current] = failure;
  }
  if (!first.empty())
    reportError("%s: the CUDA context is unusable since an earlier failure "
                "(%s); restart the process",
                failure.c_str(), first.c_str());
  else if (isStickyError(result))
    reportError("%s; the CUDA context is now unusable: every later CUDA call "
                "of this process on this device fails",
                failure.c_str());
  else
    reportError("%s", failure.c_str());
}

std::string tile_rt::describeFailure(CUresult result, const char *call) {
  const char *name = nullptr;
  loadDriver().cuGetErrorName(result, &name);
  return std::string(call) + " failed: " + (name ? name : "CUDA error");
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {
/// CUDA version whose ABI the function pointers follow.
constexpr int kDriverAbiVersion = 12000;

std::atomic<int> defaultDevice{0};

/// Resolves every entry point and starts the driver; returns why not.
std::string start(Driver &d) {
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return std::string("no CUDA driver: cannot load libcuda.so.1 (") +
           (why ? why : "not found") + ")";
  }
  using GetProcAddress = CUresult (*)(const char *, void **, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult *);
  auto getProc =
      reinterpret_cast<GetProcAddress>(dlsym(library, "cuGetProcAddress_v2"));
  if (!getProc)
    return "CUDA driver too old: no cuGetProcAddress_v2 (a CUDA 12 driver or "
           "newer is needed)";
#define TILE_CU_RESOLVE(name)                                                  \
  {                                                                            \
    void *pfn = nullptr;                                                       \
    CUdriverProcAddressQueryResult status;                                     \
    if (getProc(#name, &pfn, kDriverAbiVersion, CU_GET_PROC_ADDRESS_DEFAULT,   \
                &status) != CUDA_SUCCESS ||                                    \
        !pfn)                                                                  \
      return "CUDA driver lacks " #name;                                       \
    d.name = reinterpret_cast<decltype(d.name)>(pfn);                          \
  }
  TILE_CU_FUNCTIONS(TILE_CU_RESOLVE)
#undef TILE_CU_RESOLVE
  CUresult result = d.cuInit(0);
  if (result != CUDA_SUCCESS) {
    const char *name = nullptr;
    d.cuGetErrorName(result, &name);
    return std::string("no CUDA device: cuInit failed with ") +
           (name ? name : "an unknown error");
  }
  if (d.cuDeviceGetCount(&d.deviceCount) != CUDA_SUCCESS || !d.deviceCount)
    return "no CUDA device: the driver reports none";
  d.cuDriverGetVersion(&d.version);
  return "";
}

/// The primary contexts, by ordinal (null until retained).
std::mutex contextMutex;
std::vector<CUcontext> contexts;

} // namespace

void tile_rt::adoptDefaultContext(Driver &d) {
  CUcontext current = nullptr;
  d.cuCtxGetCurrent(&current);
  if (current)
    return;
  if (CUcontext context = primaryContext(defaultDevice.load()))
    check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

Driver &tile_rt::loadDriver() {
  static Driver *instance = [] {
    auto *d = new Driver();
    d->unavailable = start(*d);
    return d;
  }();
  return *instance;
}

Driver &tile_rt::usableDriver() {
  Driver &d = loadDriver();
  if (!d.unavailable.empty()) {
    reportError("%s", d.unavailable.c_str());
    std::exit(1); // a handler that returns leaves nothing to run on
  }
  return d;
}

Driver &tile_rt::driver() {
  Driver &d = usableDriver();
  adoptDefaultContext(d);
  return d;
}

CUcontext tile_rt::primaryContext(int ordinal) {
  Driver &d = loadDriver();
  if (!d.unavailable.empty()) {
    reportError("%s", d.unavailable.c_str());
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= d.deviceCount) {
    reportError("no CUDA device %d (the driver reports %d)", ordinal,
                d.deviceCount);
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(contextMutex);
  if (contexts.empty())
    contexts.resize(d.deviceCount);
  if (!contexts[ordinal]) {
    CUdevice device = 0;
    CUcontext context = nullptr;
    CUresult result = d.cuDeviceGet(&device, ordinal);
    if (result == CUDA_SUCCESS)
      result = d.cuDevicePrimaryCtxRetain(&context, device);
    if (result != CUDA_SUCCESS) {
      check(result, "cuDevicePrimaryCtxRetain",
            "device " + std::to_string(ordinal));
      return nullptr;
    }
    contexts[ordinal] = context;
  }
  return contexts[ordinal];
}

CUdevice tile_rt::currentDevice() {
  Driver &d = usableDriver();
  CUdevice device = 0;
  check(d.cuCtxGetDevice(&device), "cuCtxGetDevice");
  return device;
}

ScopedContext::ScopedContext(CUcontext context) {
  if (!context)
    return;
  Driver &d = loadDriver();
  CUcontext current = nullptr;
  d.cuCtxGetCurrent(&current);
  if (current == context)
    return;
  CUresult result = d.cuCtxPushCurrent(context);
  check(result, "cuCtxPushCurrent");
  pushed = result == CUDA_SUCCESS;
}

ScopedContext::~ScopedContext() {
  if (pushed) {
    CUcontext popped = nullptr;
    loadDriver().cuCtxPopCurrent(&popped);
  }
}

namespace {
/// Makes device `ordinal`'s primary context current on this thread, pushed
/// (for a matching pop) or set; 0 on success, else 1 with the error reported.
int makeCurrent(int ordinal, bool push) {
  CUcontext context = primaryContext(ordinal);
  if (!context)
    return 1;
  Driver &d = loadDriver();
  CUresult result =
      push ? d.cuCtxPushCurrent(context) : d.cuCtxSetCurrent(context);
  check(result, push ? "cuCtxPushCurrent" : "cuCtxSetCurrent",
        "device " + std::to_string(ordinal));
  return result == CUDA_SUCCESS ? 0 : 1;
}
} // namespace

//===----------------------------------------------------------------------===//
// tileRt* entry points about devices
//===----------------------------------------------------------------------===//

extern "C" {

void tileRtSetErrorHandler(TileRtErrorHandler handler) {
  errorHandler = handler ? handler : defaultErrorHandler;
}

int tileRtProbe(char *message, size_t size) {
  Driver &d = loadDriver();
  if (d.unavailable.empty())
    return 0;
  if (message && size)
    std::snprintf(message, size, "%s", d.unavailable.c_str());
  return 1;
}

int tileRtDeviceCount(void) {
  Driver &d = loadDriver();
  return d.unavailable.empty() ? d.deviceCount : 0;
}

int tileRtPushDevice(int ordinal) {
  usableDriver();
  return makeCurrent(ordinal, /*push=*/true);
}

void tileRtPopDevice(void) {
  CUcontext popped = nullptr;
  check(usableDriver().cuCtxPopCurrent(&popped), "cuCtxPopCurrent");
}

int tileRtPointerDevice(const void *pointer) {
  Driver &d = loadDriver();
  int ordinal = -1;
  if (!d.unavailable.empty() ||
      d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                              reinterpret_cast<CUdeviceptr>(pointer)) !=
          CUDA_SUCCESS)
    return -1;
  return ordinal;
}

int tileRtCurrentDevice(void) {
  driver();
  return int(currentDevice());
}

int tileRtDeviceDescription(char *buffer, size_t size) {
  if (tileRtProbe(buffer, size))
    return 1;
  Driver &d = driver();
  CUdevice device = currentDevice();
  char name[256] = "";
  int major = 0, minor = 0, sms = 0;
  d.cuDeviceGetName(name, sizeof(name), device);
  d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                         device);
  d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                         device);
  d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                         device);
  std::snprintf(buffer, size, "%s (sm_%d%d, %d SMs)", name, major, minor, sms);
  return 0;
}

int tileRtMemoryInfo(uint64_t *freeBytes, uint64_t *totalBytes) {
  size_t free = 0, total = 0;
  CUresult result = driver().cuMemGetInfo(&free, &total);
  check(result, "cuMemGetInfo");
  *freeBytes = free;
  *totalBytes = total;
  return result == CUDA_SUCCESS ? 0 : 1;
}

int tileRtSetDefaultDevice(int ordinal) {
  if (makeCurrent(ordinal, /*push=*/false))
    return 1;
  // Threads that call the runtime without a context later adopt it.
  defaultDevice = ordinal;
  return 0;
}

void mgpuSetDefaultDevice(int32_t device) { tileRtSetDefaultDevice(device); }

} // extern "C"
