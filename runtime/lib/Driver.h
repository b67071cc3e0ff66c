//===- Driver.h - The CUDA driver, its devices and the error policy -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to libtile_runtime. The driver is loaded with
// dlopen("libcuda.so.1") on first use and every entry point is resolved
// through cuGetProcAddress for the CUDA 12.0 ABI, so the library needs
// cuda.h at build time but no libcuda to link or to start.
//
// Devices: work runs in the primary context of a device, the context the
// CUDA runtime (and so PyTorch) uses for that device. A thread that has no
// current context when it first calls the runtime gets the default device's
// (device 0, or mgpuSetDefaultDevice's); a thread whose context is current
// already (PyTorch's current device, say) keeps it. A kernel launches in the
// context it was loaded into (Launch.h), whatever context is current.
//
// Errors: every driver call is checked; a failure goes to the error handler
// with the call, the CUDA error and what was being done (see Runtime.h).
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_DRIVER_H
#define TILE_RUNTIME_DRIVER_H

#include <cuda.h>

#include <string>

namespace tile_rt {

/// Driver entry points, resolved by name for the CUDA 12.0 ABI.
struct Driver {
// clang-format off
#define TILE_CU_FUNCTIONS(X)                                                   \
  X(cuInit) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGet)               \
  X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceGetAttribute)               \
  X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxGetCurrent)            \
  X(cuCtxPushCurrent) X(cuCtxPopCurrent) X(cuCtxGetDevice)                     \
  X(cuCtxSynchronize)                                                          \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload)                  \
  X(cuModuleGetFunction) X(cuFuncSetAttribute) X(cuFuncGetAttribute)           \
  X(cuLaunchKernelEx) X(cuStreamCreate) X(cuStreamDestroy)                     \
  X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent)                 \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventSynchronize) X(cuEventRecord)    \
  X(cuEventQuery) X(cuEventElapsedTime) X(cuMemAlloc) X(cuMemAllocManaged)     \
  X(cuMemFree) X(cuMemGetInfo) X(cuMemcpy) X(cuMemcpyAsync)                    \
  X(cuMemsetD32Async) X(cuMemsetD16Async) X(cuMemHostRegister)                 \
  X(cuMemHostUnregister) X(cuTensorMapEncodeTiled)                             \
  X(cuTensorMapEncodeIm2col) X(cuDriverGetVersion) X(cuPointerGetAttribute)
// clang-format on
#define TILE_CU_MEMBER(name) decltype(&::name) name = nullptr;
  TILE_CU_FUNCTIONS(TILE_CU_MEMBER)
#undef TILE_CU_MEMBER

  /// Empty when the driver loaded and reports a device; else why not.
  std::string unavailable;
  int version = 0;     ///< cuDriverGetVersion
  int deviceCount = 0; ///< cuDeviceGetCount
};

/// Loads the driver once (thread-safe). Failures are recorded in
/// `unavailable`, not reported.
Driver &loadDriver();

/// The loaded driver; reports an error, and exits, when there is no usable
/// driver or device. Makes no context current: for calls that name their
/// context (a launch runs in its kernel's, a push names a device).
Driver &usableDriver();

/// usableDriver(), with a context current on the calling thread: the
/// default device's primary context if the thread has none. For the calls
/// of lowered host code (memory, modules, streams), which name no device.
Driver &driver();

/// The primary context of device `ordinal`, retained on first use and kept
/// for the process; reports an error (returning null) for a bad ordinal.
CUcontext primaryContext(int ordinal);

/// Makes the default device's primary context current on a thread that has
/// none (one cuCtxGetCurrent when it has one): a thread the caller made
/// without one (PyTorch's autograd workers) reaches the driver's context-bound
/// calls, the tensor-map encoders among them.
void adoptDefaultContext(Driver &d);

/// The device of the context current on this thread (driver() first).
CUdevice currentDevice();

/// Makes `context` current for its lifetime when another context (or none)
/// is; a no-op (one cuCtxGetCurrent) when it is current already or null.
class ScopedContext {
public:
  explicit ScopedContext(CUcontext context);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  bool pushed = false;
};

/// Formats a message and hands it to the error handler.
[[gnu::format(printf, 1, 2)]] void reportError(const char *format, ...);

/// Checks a driver result; on failure reports the call, the CUDA error name
/// and description, and `context` (e.g. the kernel launched last). Once an
/// error has made a context unusable, every later failure in it says so and
/// names that first failure.
void check(CUresult result, const char *call, const std::string &context = "");

/// As check, building the context text only when the call failed (launches
/// and allocations are on the hot path).
template <typename ContextFn>
void checkWith(CUresult result, const char *call, ContextFn &&context) {
  if (result != CUDA_SUCCESS)
    check(result, call, context());
}

/// "<call> failed: <CUDA error name>", for the message buffers of tileRt*.
std::string describeFailure(CUresult result, const char *call);

} // namespace tile_rt

#endif // TILE_RUNTIME_DRIVER_H
