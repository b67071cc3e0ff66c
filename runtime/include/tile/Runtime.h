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
 * returns no status, so continuing would compute on garbage). After an error
 * that leaves the context unusable (an illegal address, say), every later
 * failure says so and names that first failure.
 *
 * Devices: work runs in the primary context of a device, the one the CUDA
 * runtime (and PyTorch) uses for it. A thread that calls the runtime with no
 * context current gets device 0's (or mgpuSetDefaultDevice's); one whose
 * context is current keeps it; tileRtPushDevice/tileRtPopDevice bracket
 * calls for another device. Modules load into the current context, and a
 * kernel always launches in the context it was loaded into.
 *
 * Launches are stream-ordered and never wait on the host; nothing is
 * allocated per launch (tensor maps are kernel parameters).
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

/// The number of CUDA devices (0 without a usable driver).
int tileRtDeviceCount(void);

/// Makes device `ordinal` the default (the device of threads that call the
/// runtime with no current context) and its primary context current on
/// this thread; as mgpuSetDefaultDevice. 0 on success.
int tileRtSetDefaultDevice(int ordinal);

/// Makes device `ordinal`'s primary context current on this thread until
/// the matching tileRtPopDevice (as cuCtxPushCurrent); 0 on success, else 1
/// with the error reported.
int tileRtPushDevice(int ordinal);
void tileRtPopDevice(void);

/// The ordinal of the device whose context is current on this thread.
int tileRtCurrentDevice(void);

/// The ordinal of the device whose memory `pointer` points into, or -1 (a
/// host pointer, no driver). Never calls the error handler.
int tileRtPointerDevice(const void *pointer);

/// Writes "<name> (sm_XY, N SMs)" of the current device to `buffer`; 0 on
/// success.
int tileRtDeviceDescription(char *buffer, size_t size);

/// Name of the kernel launched last, or "" before the first launch. Used by
/// tile-run's watchdog to say which kernel hung.
const char *tileRtLastKernelName(void);

/// With timing on, every launch is bracketed by CUDA events; the per-kernel
/// GPU times are printed by tileRtPrintKernelTimes (to stdout).
void tileRtEnableKernelTiming(int enable);
void tileRtPrintKernelTimes(void);

/// A whole launch as one record, for callers that pay per argument of a call
/// (Python's ctypes): the kernel, grid and block in blocks and threads, the
/// cluster shape (all 0: no cluster), dynamic shared memory, the stream and
/// the kernel-parameter pointers, as for cuLaunchKernel; `dependentLaunch`
/// non-zero launches the kernel as a programmatic dependent of the previous
/// kernel of the stream (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
/// only for kernels that wait for it, the manifest's `dependent_launch`).
typedef struct TileRtLaunchConfig {
  void *function; /* CUfunction (mgpuModuleGetFunction) */
  int64_t grid[3];
  int64_t block[3];
  int64_t cluster[3];
  int64_t sharedBytes;
  void *stream;
  void **params;
  int64_t paramCount;
  int64_t dependentLaunch;
} TileRtLaunchConfig;

/// Launches `config` like mgpuLaunchKernel / mgpuLaunchClusterKernel.
void tileRtLaunch(const TileRtLaunchConfig *config);

/// sizeof(TileRtLaunchConfig): callers that lay the record out themselves
/// (Python) check theirs against it.
size_t tileRtLaunchConfigBytes(void);

/// Waits for all work on the current device; reports errors like any other
/// call.
void tileRtSynchronize(void);

/// Waits for the work on `stream` (a CUstream; NULL is the legacy default
/// stream). With `timeoutSeconds` > 0 a stream still busy then is an error
/// ("watchdog: ...", naming the kernel launched last) instead of a hang.
/// Returns 0 when the stream finished; else reports the error through the
/// handler and returns 1.
int tileRtStreamSynchronize(void *stream, double timeoutSeconds);

/// The current device's free and total memory in bytes (cuMemGetInfo); 0 on
/// success.
int tileRtMemoryInfo(uint64_t *freeBytes, uint64_t *totalBytes);

/// tile.tma_create_descriptor's encoders (the signatures are the tensor-map
/// contract's, Tile/TensorMap/TensorMapContract.h; Python calls them too):
/// check every precondition, encode into the 128 bytes at `map` (host
/// memory), report failures through the handler. Kernels take the map by
/// value. `memref` points at a ranked memref descriptor (allocated and
/// aligned pointers, offset, sizes, strides in elements), `box` at `rank`
/// extents, both outermost first.
void tileRtTensorMapEncodeTiledMemref(void *map, int64_t rank, void *memref,
                                      int64_t dataType, int64_t interleave,
                                      int64_t swizzle, int64_t l2Promotion,
                                      int64_t oobFill, const int64_t *box);
void tileRtTensorMapEncodeIm2colMemref(
    void *map, int64_t rank, void *memref, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, const int64_t *lower,
    const int64_t *upper, int64_t channelsPerPixel, int64_t pixelsPerColumn);

/// Encodes a tiled tensor map into the 128-byte `tensorMap` (64-byte
/// aligned; 128-byte with a CUDA 13 driver) after checking every
/// cuTensorMapEncodeTiled precondition. Maps are cached by request, so
/// encoding the same tensor again costs a lookup. Arguments are the driver's
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
