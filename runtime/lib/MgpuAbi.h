//===- MgpuAbi.h - The mgpu* entry points, declared once ---------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to libtile_runtime: the functions that MLIR 22's gpu-to-llvm
// lowering calls, with the signatures of RuntimeSymbols.def. Every file that
// defines one includes this, so a definition that strays from its
// declaration does not compile (C linkage has no overloads).
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_MGPUABI_H
#define TILE_RUNTIME_MGPUABI_H

#include <cuda.h>

#include <cstddef>
#include <cstdint>

extern "C" {
CUmodule mgpuModuleLoad(void *data, size_t gpuBlobSize);
CUmodule mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(CUmodule module);
CUfunction mgpuModuleGetFunction(CUmodule module, const char *name);
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuLaunchClusterKernel(CUfunction function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, CUstream stream, void **params,
                             void **extra, size_t paramsCount);
CUstream mgpuStreamCreate();
void mgpuStreamDestroy(CUstream stream);
void mgpuStreamSynchronize(CUstream stream);
void mgpuStreamWaitEvent(CUstream stream, CUevent event);
CUevent mgpuEventCreate();
void mgpuEventDestroy(CUevent event);
void mgpuEventSynchronize(CUevent event);
void mgpuEventRecord(CUevent event, CUstream stream);
void *mgpuMemAlloc(uint64_t sizeBytes, CUstream stream, bool isHostShared);
void mgpuMemFree(void *pointer, CUstream stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, CUstream stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  CUstream stream);
void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes);
void mgpuMemHostUnregister(void *pointer);
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementBytes);
void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementBytes);
void mgpuSetDefaultDevice(int32_t device);
void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims);
}

#endif // TILE_RUNTIME_MGPUABI_H
