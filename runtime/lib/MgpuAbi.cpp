//===- MgpuAbi.cpp - The mgpu* entry points of MLIR's gpu-to-llvm ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The functions that MLIR 22's gpu-to-llvm lowering calls (signatures in
// RuntimeSymbols.def): modules, streams, events, memory and host
// registration, in the context current on the calling thread. Launches are
// in Launch.cpp, tensor maps in TensorMaps.cpp, mgpuSetDefaultDevice in
// Driver.cpp.
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "Launch.h"
#include "MemRefDescriptor.h"
#include "MgpuAbi.h"
#include "tile/Runtime.h"

#include <algorithm>
#include <cstdio>

using namespace tile_rt;

namespace {
/// Bytes spanned by a ranked memref (its largest size * stride).
uint64_t memRefSpanBytes(int64_t rank, MemRefDescriptor *descriptor,
                         int64_t elementBytes) {
  int64_t elements = 1;
  for (int64_t i = 0; i < rank; ++i)
    elements =
        std::max<int64_t>(elements, descriptor->sizesAndStrides[i] *
                                        descriptor->sizesAndStrides[rank + i]);
  return uint64_t(elements) * uint64_t(elementBytes);
}
} // namespace

extern "C" {

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
  if (function)
    registerKernel(function, name);
  return function;
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

void mgpuMemHostRegisterMemRef(int64_t rank, void *memref,
                               int64_t elementBytes) {
  auto *descriptor = static_cast<MemRefDescriptor *>(memref);
  char *base = descriptor->aligned + descriptor->offset * elementBytes;
  mgpuMemHostRegister(base, memRefSpanBytes(rank, descriptor, elementBytes));
}

void mgpuMemHostUnregisterMemRef(int64_t, void *memref,
                                 int64_t elementBytes) {
  auto *descriptor = static_cast<MemRefDescriptor *>(memref);
  mgpuMemHostUnregister(descriptor->aligned +
                        descriptor->offset * elementBytes);
}

void tileRtForEachSymbol(void (*callback)(const char *, void *, void *),
                         void *user) {
#define TILE_RT_SYMBOL(name)                                                   \
  callback(#name, reinterpret_cast<void *>(&name), user);
#include "RuntimeSymbols.def"
}

} // extern "C"
