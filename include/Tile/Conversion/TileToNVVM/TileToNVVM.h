//===- TileToNVVM.h - Lower tile ops to NVVM --------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETONVVM_TILETONVVM_H
#define TILE_CONVERSION_TILETONVVM_TILETONVVM_H

#include <cstdint>

namespace mlir {
class DialectRegistry;
class Operation;
class LLVMTypeConverter;
class RewritePatternSet;

namespace tile {

/// Teaches `converter` the tile types: `!tile.async_group` becomes an unused
/// i32, `!tile.mbarrier` the `!llvm.ptr<3>` of its first barrier,
/// `!tile.mbarrier_token` an i64, `!tile.tma_desc` a generic `!llvm.ptr`; gpu
/// address spaces become NVPTX numbers.
void populateTileToNVVMTypeConversions(LLVMTypeConverter &converter);

/// Patterns lowering the cp.async family (tile.async_*) to NVVM.
void populateAsyncCopyToNVVMPatterns(const LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns);

/// Patterns lowering the mbarrier family and the fences to NVVM. With a
/// non-zero `debugWaitLimit`, blocking waits give up after that many
/// try_wait rounds, print what they waited for and trap.
void populateMBarrierToNVVMPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    uint64_t debugWaitLimit = 0);

/// Patterns lowering the cluster ops (rank, barrier, mapa, remote arrive,
/// elect.sync) to NVVM.
void populateClusterToNVVMPatterns(const LLVMTypeConverter &converter,
                                   RewritePatternSet &patterns);

/// Patterns lowering the programmatic-dependent-launch ops
/// (tile.grid_dependency_wait, tile.launch_dependents) to NVVM griddepcontrol.
void populateGridDependencyToNVVMPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns);

/// Patterns lowering the 1D bulk copies and bulk groups to NVVM.
void populateBulkCopyToNVVMPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns);

/// Patterns lowering the TMA tensor ops (device) and descriptor creation
/// (host) to NVVM and runtime calls.
void populateTmaToNVVMPatterns(const LLVMTypeConverter &converter,
                               RewritePatternSet &patterns);

/// Patterns lowering ldmatrix/mma.sync (to NVGPU), stmatrix and setmaxnreg
/// (to NVVM).
void populateMatrixToNVVMPatterns(const LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns);

/// Patterns lowering the warpgroup MMA ops and descriptors to NVVM.
void populateWgmmaToNVVMPatterns(const LLVMTypeConverter &converter,
                                 RewritePatternSet &patterns);

/// Patterns lowering the named barrier ops (bar.sync, bar.arrive) to NVVM.
void populateNamedBarrierToNVVMPatterns(const LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns);

/// Pattern lowering f32 and f16 math.exp2 with fastmath<afn> in device code
/// to ex2.approx (f32, f16x2) rather than libdevice.
void populateFastMathToNVVMPatterns(const LLVMTypeConverter &converter,
                                    RewritePatternSet &patterns);

/// Pattern lowering arith.truncf to f8E4M3FN / f8E5M2 in device code to
/// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 with arith.truncf's overflow
/// (T-TARGET-7: sm_89 and PTX 7.8).
void populateFp8ConversionToNVVMPatterns(const LLVMTypeConverter &converter,
                                         RewritePatternSet &patterns);

/// Records the offset of every dynamic tile.shared_alloc under `root` in its
/// kernel's dynamic shared memory; the shared_alloc pattern needs it.
void layoutDynamicSharedBuffers(Operation *root);

/// Records on each gpu.func kernel under `root` the LLVM argument positions
/// of its `!tile.tma_desc` parameters (after `converter`'s signature
/// conversion), for tile-tensor-maps-by-value.
void recordTensorMapParams(Operation *root, const LLVMTypeConverter &converter);

/// Pattern placing tile.shared_alloc buffers in aligned .shared arrays.
void populateSharedMemoryToNVVMPatterns(const LLVMTypeConverter &converter,
                                        RewritePatternSet &patterns);

/// Every tile-to-NVVM pattern.
void populateTileToNVVMConversionPatterns(const LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          uint64_t debugWaitLimit = 0);

/// Registers the tile dialect's ConvertToLLVMPatternInterface, so that the
/// generic conversions (convert-gpu-to-nvvm, gpu-to-llvm, convert-to-llvm)
/// convert tile types that cross their ops: a `!tile.tma_desc` kernel
/// argument becomes `!llvm.ptr` in both the gpu.func and the launch.
void registerConvertTileToLLVMInterface(DialectRegistry &registry);

} // namespace tile
} // namespace mlir

#endif // TILE_CONVERSION_TILETONVVM_TILETONVVM_H
