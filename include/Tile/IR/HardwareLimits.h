//===- HardwareLimits.h - Numbers behind the tile invariants ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Each constant is cited by an invariant in docs/Rationale/RationaleTile.md.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_HARDWARELIMITS_H
#define TILE_IR_HARDWARELIMITS_H

#include <cstdint>

namespace mlir::tile {

/// Shared memory one CTA can address on sm_90 (227 KB, CUDA C++ Programming
/// Guide, "Technical Specifications per Compute Capability").
inline constexpr int64_t kMaxSharedMemoryBytes = 232448;
/// Static shared memory of one kernel (48 KB, CUDA C++ Programming Guide,
/// "Shared Memory" and "Technical Specifications per Compute Capability":
/// more than this must be dynamic shared memory, opted into with
/// cudaFuncAttributeMaxDynamicSharedMemorySize).
inline constexpr int64_t kMaxStaticSharedMemoryBytes = 49152;
/// An mbarrier object is 8 bytes, 8-byte aligned (PTX ISA, "Size and alignment
/// of mbarrier object").
inline constexpr int64_t kMBarrierBytes = 8;
/// The threads of a CTA (PTX ISA, "Thread Hierarchy": at most 1024).
inline constexpr int64_t kMaxThreadsPerBlock = 1024;
/// The largest extent of a CTA along x, y and z (CUDA Programming Guide,
/// "Compute Capabilities": 1024, 1024, 64).
inline constexpr int64_t kMaxBlockExtents[3] = {1024, 1024, 64};
/// Whether a CTA of x * y * z threads can be launched (T-TARGET-8): every
/// extent at least 1 and at most kMaxBlockExtents, at most
/// kMaxThreadsPerBlock threads in all.
inline constexpr bool isLaunchableBlock(int64_t x, int64_t y, int64_t z) {
  int64_t extents[3] = {x, y, z};
  int64_t threads = 1;
  for (int i = 0; i < 3; ++i) {
    if (extents[i] < 1 || extents[i] > kMaxBlockExtents[i])
      return false;
    threads *= extents[i];
  }
  return threads <= kMaxThreadsPerBlock;
}
/// Threads of a warpgroup (4 warps; wgmma, setmaxnreg).
inline constexpr int64_t kWarpgroupThreads = 128;
/// Warps of the largest block: the slots of a block or warpgroup reduction's
/// shared scratch (one partial per warp; tile.reduce).
inline constexpr int64_t kMaxWarpsPerBlock = kMaxThreadsPerBlock / 32;
/// Warpgroups of the largest block.
inline constexpr int64_t kMaxWarpgroupsPerBlock =
    kMaxThreadsPerBlock / kWarpgroupThreads;
/// The named barriers of a CTA (PTX ISA, "bar, barrier": 0 to 15).
inline constexpr int64_t kNamedBarriers = 16;
/// The first named barrier a kernel may use (T-BAR-1): 0 is gpu.barrier's,
/// 1 + w the tile ops' meeting of warpgroup w.
inline constexpr int64_t kFirstKernelNamedBarrier = 1 + kMaxWarpgroupsPerBlock;
/// 32-bit registers of an SM (sm_80, sm_90), shared by a CTA's warps.
inline constexpr int64_t kRegistersPerSm = 65536;
/// Barriers one group may hold so that it fits in shared memory (T-MBAR-1).
inline constexpr int64_t kMaxMBarriers = kMaxSharedMemoryBytes / kMBarrierBytes;

/// Accumulators a thread of a prefetching split-K fixup (T-TILE-6): it keeps
/// four vectors of them live (the partial, the running sums, the current and
/// the next split's loads), 128 registers at this bound.
inline constexpr int64_t kMaxPrefetchedFixupElements = 32;

/// TMA's shared-memory tiles start 128-byte aligned without swizzle (CUDA C++
/// Programming Guide, "Tensor Memory Access"); swizzled ones at the repeat.
/// (The tensor-map limits are in Tile/TensorMap/TensorMapContract.h.)
inline constexpr int64_t kTmaSharedAlignment = 128;

/// PTX memory spaces as LLVM NVPTX address spaces.
inline constexpr unsigned kGenericAddressSpace = 0;
inline constexpr unsigned kGlobalAddressSpace = 1;
inline constexpr unsigned kSharedAddressSpace = 3;
/// shared::cluster: shared memory of any CTA of the cluster (DSMEM).
inline constexpr unsigned kSharedClusterAddressSpace = 7;

} // namespace mlir::tile

#endif // TILE_IR_HARDWARELIMITS_H
