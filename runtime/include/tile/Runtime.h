/*===- Runtime.h - libtile_runtime: the C ABI over the CUDA driver -*- C -*-===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * libtile_runtime loads libcuda.so.1 with dlopen on first use, so everything
 * links on machines without a GPU. It exports two families of entry points:
 *
 *  - mgpu*: the functions that MLIR 22's gpu-to-llvm lowering calls (module
 *    load/unload, launch, cluster launch, streams, events, memory, host
 *    registration, tensor-map encoding), so lowered host code runs unchanged.
 *    Their signatures are MLIR's (see RuntimeSymbols.def).
 *  - tileRt*: the project's own API for tile-run, benchmarks and Python.
 *
 * Every driver call is checked. A failure reports the CUDA error name, the
 * call and, for launches, the kernel, through the error handler, which by
 * default prints one line to stderr and exits with status 1 (the mgpu* ABI
 * returns no status, so continuing would compute on garbage).
 *===----------------------------------------------------------------------===*/

#ifndef TILE_RUNTIME_H
#define TILE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Called with a one-line message on any runtime error. The default prints
/// "tile-runtime: <message>" to stderr and calls exit(1).
typedef void (*TileRtErrorHandler)(const char *message);
void tileRtSetErrorHandler(TileRtErrorHandler handler);

/// Returns 0 when the driver loads and a device is present; otherwise returns
/// 1 and writes why ("no CUDA driver: ...", "no CUDA device") to `message`.
/// Never calls the error handler.
int tileRtProbe(char *message, size_t size);

/// Writes "<name> (sm_XY, N SMs)" of device 0 to `buffer`; 0 on success.
int tileRtDeviceDescription(char *buffer, size_t size);

/// Name of the kernel launched last, or "" before the first launch. Used by
/// tile-run's watchdog to say which kernel hung.
const char *tileRtLastKernelName(void);

/// With timing on, every launch is bracketed by CUDA events; the per-kernel
/// GPU times are printed by tileRtPrintKernelTimes (to stdout).
void tileRtEnableKernelTiming(int enable);
void tileRtPrintKernelTimes(void);

/// Waits for all work on the device; reports errors like any other call.
void tileRtSynchronize(void);

/// Encodes a tiled tensor map into the 128-byte `tensorMap` (64-byte
/// aligned; 128-byte with a CUDA 13 driver) after checking every
/// cuTensorMapEncodeTiled precondition. Arguments are the driver's
/// (dimension 0 innermost; enum values of CUtensorMapDataType, ...). Returns 0
/// on success; otherwise 1 and writes the broken rule (T-TMA-n) with the
/// values, or the driver's error, to `message`. Never calls the error handler.
int tileRtTensorMapEncodeTiled(void *tensorMap, int dataType, unsigned rank,
                               void *globalAddress, const uint64_t *globalDim,
                               const uint64_t *globalStrides,
                               const uint32_t *boxDim,
                               const uint32_t *elementStrides, int interleave,
                               int swizzle, int l2Promotion, int oobFill,
                               char *message, size_t messageSize);

/// The same for cuTensorMapEncodeIm2col (rank 3..5; corners have rank - 2
/// entries).
int tileRtTensorMapEncodeIm2col(
    void *tensorMap, int dataType, unsigned rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
    unsigned channelsPerPixel, unsigned pixelsPerColumn,
    const uint32_t *elementStrides, int interleave, int swizzle,
    int l2Promotion, int oobFill, char *message, size_t messageSize);

/// Calls `callback` with the name and address of every mgpu* entry point (and
/// tileRtSynchronize), so that a JIT can resolve lowered host code to this
/// library without dlopen'ing it.
void tileRtForEachSymbol(void (*callback)(const char *name, void *address,
                                          void *user),
                         void *user);

#ifdef __cplusplus
}
#endif

#endif /* TILE_RUNTIME_H */
