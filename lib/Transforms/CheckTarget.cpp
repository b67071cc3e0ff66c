//===- CheckTarget.cpp - Validate the chip and the ops that need it -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/Divisibility.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Target/Chip.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILECHECKTARGETPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Formats a PTX version (times ten) as PTX writes it: 80 -> "8.0".
static std::string formatPtxVersion(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

/// The first op in `region` that needs a cluster launch, or null.
static Operation *findClusterOp(Region &region) {
  Operation *found = nullptr;
  region.walk([&](TargetDependentOpInterface op) {
    if (!op.requiresClusterLaunch())
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

/// Reports a launch without a cluster shape of code that needs one.
static LogicalResult reportClusterless(Operation *launch, StringRef kernel,
                                       Operation *clusterOp) {
  InFlightDiagnostic diag = launch->emitOpError()
                            << "launches " << kernel
                            << " without a cluster shape, but it uses '"
                            << clusterOp->getName()
                            << "', which needs a cluster launch (T-CLUSTER-1)";
  diag.attachNote(clusterOp->getLoc()) << "cluster operation here";
  return diag;
}

/// The number of CTAs of a cluster shape, if all its sizes are constants.
static std::optional<int64_t> getClusterCtas(ValueRange sizes) {
  int64_t ctas = 1;
  for (Value size : sizes) {
    std::optional<int64_t> value = getConstantIntValue(size);
    if (!value)
      return std::nullopt;
    ctas *= *value;
  }
  return ctas;
}

/// T-TMA-19: a constant multicast mask names at least one CTA and only CTAs
/// of the cluster (bit i is the CTA of rank i).
static LogicalResult checkMulticastMasks(Region &body, int64_t ctas,
                                         Operation *launch) {
  WalkResult result = body.walk([&](TmaLoadOp load) {
    if (!load.getMulticastMask())
      return WalkResult::advance();
    std::optional<int64_t> mask = getConstantIntValue(load.getMulticastMask());
    if (!mask)
      return WalkResult::advance();
    uint64_t bits = uint64_t(*mask) & 0xffff;
    if (bits != 0 && (ctas >= 16 || (bits >> ctas) == 0))
      return WalkResult::advance();
    InFlightDiagnostic diag = load.emitOpError();
    if (bits == 0)
      diag << "multicast mask 0 names no CTA: the box is never delivered";
    else
      diag << "multicast mask 0x" << llvm::utohexstr(bits) << " names CTA "
           << llvm::Log2_64(bits) << ", but the cluster has " << ctas
           << " CTA(s)";
    diag << " (T-TMA-19)";
    diag.attachNote(launch->getLoc()) << "launched here";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// T-CLUSTER-1: kernels using cluster operations are launched with clusters
/// (`gpu.launch_func ... clusters in (...)` or `gpu.launch clusters(...)`),
/// and T-TMA-19 for the multicasts of those launched with constant shapes.
static LogicalResult checkClusterLaunches(ModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!kernel)
        return WalkResult::advance();
      if (launch.hasClusterSize()) {
        gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
        if (std::optional<int64_t> ctas =
                getClusterCtas({cluster.x, cluster.y, cluster.z}))
          if (failed(checkMulticastMasks(kernel.getBody(), *ctas, launch)))
            return WalkResult::interrupt();
        return WalkResult::advance();
      }
      if (Operation *clusterOp = findClusterOp(kernel.getBody()))
        if (failed(reportClusterless(
                launch, ("kernel '" + kernel.getName() + "'").str(),
                clusterOp)))
          return WalkResult::interrupt();
    } else if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      if (launch.hasClusterSize()) {
        gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues().value();
        if (std::optional<int64_t> ctas =
                getClusterCtas({cluster.x, cluster.y, cluster.z}))
          if (failed(checkMulticastMasks(launch.getBody(), *ctas, launch)))
            return WalkResult::interrupt();
        return WalkResult::advance();
      }
      if (Operation *clusterOp = findClusterOp(launch.getBody()))
        if (failed(reportClusterless(launch, "its body", clusterOp)))
          return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// T-TMA-24: the row at which a load's box lands in a taller tile keeps the
/// tile's alignment (the swizzle's phase: PTX ISA, "Tensor Map"). The op
/// verifiers check constant rows; here the others must be provable multiples
/// of the aligned rows (Divisibility).
static LogicalResult checkTmaRowIndices(ModuleOp module) {
  Divisibility divisibility;
  auto check = [&](Operation *op, TmaDescType desc, Value dst,
                   ValueRange indices) -> LogicalResult {
    std::optional<TmaTileForm> form =
        getTmaTileForm(desc, cast<MemRefType>(dst.getType()), indices.size(),
                       /*allowsRowRange=*/true);
    if (!form || !form->hasRowIndex)
      return success();
    Value row = indices[form->leadingRank];
    if (getConstantIntValue(row) ||
        divisibility.getKnownTrailingZeros(row) >=
            int64_t(llvm::Log2_64(form->alignedRows)))
      return success();
    return op->emitOpError()
           << "the box's " << form->boxRows << " rows land at a row of the "
           << form->tileRows << "-row tile that is not provably a multiple of "
           << form->describeAlignedRows() << " (T-TMA-24)";
  };
  WalkResult result = module.walk([&](Operation *op) {
    LogicalResult checked = success();
    if (auto load = dyn_cast<TmaLoadOp>(op))
      checked = check(op, load.getDescriptor().getType(), load.getDst(),
                      load.getDstIndices());
    else if (auto copy = dyn_cast<TmaCopyOp>(op))
      checked = check(op, copy.getDescriptor().getType(), copy.getDst(),
                      copy.getDstIndices());
    return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// T-SMEM-1: a launch provides the dynamic shared memory its kernel's
/// dynamic tile.shared_alloc buffers need; T-SMEM-2: they fit in a CTA.
static LogicalResult checkDynamicSharedMemory(Operation *launch, Region &body,
                                              Value provided) {
  DynamicSharedLayout layout = layoutDynamicSharedMemory(body);
  if (layout.offsets.empty())
    return success();
  Operation *first = layout.offsets.front().first;
  if (layout.totalBytes > kMaxSharedMemoryBytes) {
    InFlightDiagnostic diag = first->emitOpError()
                              << "dynamic shared buffers take "
                              << layout.totalBytes << " bytes, more than the "
                              << kMaxSharedMemoryBytes
                              << " a CTA can address (T-SMEM-2)";
    return diag;
  }
  std::optional<int64_t> bytes =
      provided ? getConstantIntValue(provided) : std::optional<int64_t>(0);
  if (bytes && *bytes >= layout.totalBytes)
    return success();
  if (!bytes && provided)
    return success(); // known only at run time
  InFlightDiagnostic diag = launch->emitOpError()
                            << "provides " << *bytes
                            << " bytes of dynamic shared memory, but the "
                               "kernel's dynamic buffers need "
                            << layout.totalBytes
                            << " (dynamic_shared_memory_size) (T-SMEM-1)";
  diag.attachNote(first->getLoc()) << "first dynamic buffer here";
  return diag;
}

/// The static shared memory of one kernel body: its static tile.shared_alloc
/// buffers at their alignments, its mbarrier groups, its workgroup
/// attributions and the shared memref.globals it takes (the `.shared`
/// arrays the lowering makes of them).
struct StaticSharedUsage {
  int64_t totalBytes = 0;
  int64_t bufferBytes = 0;
  int64_t otherBytes = 0;
  /// The largest static buffer, named in the diagnostic.
  Operation *largest = nullptr;
  int64_t largestBytes = 0;
};

static StaticSharedUsage measureStaticSharedMemory(Region &body,
                                                   ValueRange attributions) {
  StaticSharedUsage usage;
  auto add = [&](int64_t bytes, int64_t alignment, bool buffer) {
    int64_t offset =
        llvm::alignTo(usage.totalBytes, std::max<int64_t>(alignment, 1));
    usage.totalBytes = offset + bytes;
    (buffer ? usage.bufferBytes : usage.otherBytes) += bytes;
  };
  for (Value attribution : attributions) {
    auto type = cast<MemRefType>(attribution.getType());
    if (!type.hasStaticShape() || !type.getElementType().isIntOrFloat())
      continue;
    add(type.getNumElements() *
            llvm::divideCeil(type.getElementTypeBitWidth(), 8),
        1, /*buffer=*/false);
  }
  llvm::SmallPtrSet<Operation *, 4> globals;
  // What tile-lower-tile-ops adds later: one scratch of kMaxWarpsPerBlock
  // slots per scope and type of warpgroup/block reductions, one flag word
  // per warpgroup for split-K fixups (static tile.shared_alloc buffers,
  // TMA-aligned).
  llvm::SmallDenseSet<std::pair<unsigned, Type>, 4> scratches;
  bool splitK = false;
  body.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      if (reduce.getScope() != ReduceScope::warp &&
          scratches.insert({unsigned(reduce.getScope()), reduce.getType()})
              .second)
        add(kMaxWarpsPerBlock *
                llvm::divideCeil(reduce.getType().getIntOrFloatBitWidth(), 8),
            kTmaSharedAlignment, /*buffer=*/false);
    } else if (isa<SplitKReduceOp>(op) && !splitK) {
      splitK = true;
      add(kMaxWarpgroupsPerBlock * 4, kTmaSharedAlignment, /*buffer=*/false);
    } else if (auto alloc = dyn_cast<SharedAllocOp>(op)) {
      if (alloc.getDynamic())
        return;
      add(alloc.getSizeInBytes(), alloc.getRequiredAlignment(),
          /*buffer=*/true);
      if (alloc.getSizeInBytes() > usage.largestBytes) {
        usage.largest = alloc;
        usage.largestBytes = alloc.getSizeInBytes();
      }
    } else if (auto barriers = dyn_cast<MBarrierAllocOp>(op)) {
      add(barriers.getBarriers().getType().getCount() * kMBarrierBytes,
          kMBarrierBytes, /*buffer=*/false);
    } else if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          getGlobal, getGlobal.getNameAttr());
      MemRefType type = getGlobal.getType();
      if (!global || !isSharedMemory(type) || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat() ||
          !globals.insert(global).second)
        return;
      add(type.getNumElements() *
              llvm::divideCeil(type.getElementTypeBitWidth(), 8),
          global.getAlignment().value_or(1), /*buffer=*/false);
    }
  });
  return usage;
}

/// T-SMEM-4: a kernel's static shared memory fits in the 48 KB CUDA allows
/// without opting into more (which only dynamic shared memory can).
static LogicalResult checkStaticSharedMemory(Location loc, StringRef kernel,
                                             Region &body,
                                             ValueRange attributions) {
  StaticSharedUsage usage = measureStaticSharedMemory(body, attributions);
  if (usage.totalBytes <= kMaxStaticSharedMemoryBytes)
    return success();
  // Reported at the kernel's location, without printing the whole kernel.
  InFlightDiagnostic diag = mlir::emitError(loc)
                            << kernel << " takes " << usage.totalBytes
                            << " bytes of static shared memory ("
                            << usage.bufferBytes
                            << " in static tile.shared_alloc buffers, "
                            << usage.otherBytes
                            << " in mbarriers, attributions, globals and the "
                               "scratch of reductions, with "
                               "alignment padding), more than the "
                            << kMaxStaticSharedMemoryBytes
                            << " bytes (48 KB) a kernel may have; allocate "
                               "the large buffers with `tile.shared_alloc "
                               "dynamic` and launch with "
                               "dynamic_shared_memory_size (T-SMEM-4)";
  if (usage.largest)
    diag.attachNote(usage.largest->getLoc())
        << "largest static buffer here (" << usage.largestBytes << " bytes)";
  return diag;
}

static LogicalResult checkStaticSharedMemory(ModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    LogicalResult checked = success();
    if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
      if (func.isKernel())
        checked = checkStaticSharedMemory(
            func.getLoc(), ("kernel @" + func.getName()).str(), func.getBody(),
            func.getWorkgroupAttributions());
    } else if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      checked = checkStaticSharedMemory(
          launch.getLoc(), "the gpu.launch kernel", launch.getBody(),
          launch.getWorkgroupAttributions());
    }
    return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// T-TARGET-5: the element types of a kernel's workgroup and private
/// attributions are ones the LLVM lowering converts (integers, index, LLVM's
/// floats, vectors of them): upstream's gpu.func lowering crashes on others
/// (tf32, say) instead of reporting them.
static LogicalResult checkAttributions(ModuleOp module) {
  auto convertible = [](Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      type = vector.getElementType();
    return isa<IndexType>(type) || LLVM::isCompatibleType(type);
  };
  WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
    for (BlockArgument attribution : llvm::concat<const BlockArgument>(
             func.getWorkgroupAttributions(), func.getPrivateAttributions())) {
      auto type = cast<MemRefType>(attribution.getType());
      if (convertible(type.getElementType()))
        continue;
      emitConciseOpError(func) << "attribution " << type
                               << " has an element type that the LLVM lowering "
                                  "cannot convert (T-TARGET-5)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// T-TARGET-7: arith.truncf to f8E4M3FN or f8E5M2 in device code lowers to
/// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (sm_89, PTX 7.8), from f32, f16 or
/// bf16, rounding to nearest even (the instruction's only mode).
static LogicalResult checkFp8Conversions(ModuleOp module, const ChipInfo &chip,
                                         unsigned ptx) {
  constexpr unsigned kFp8Sm = 89, kFp8Ptx = 78;
  WalkResult result = module.walk([&](arith::TruncFOp op) {
    Type element = getElementTypeOrSelf(op.getType());
    if (!isa<Float8E4M3FNType, Float8E5M2Type>(element) ||
        !op->getParentOfType<gpu::GPUModuleOp>())
      return WalkResult::advance();
    Type source = getElementTypeOrSelf(op.getIn().getType());
    InFlightDiagnostic diag = op.emitOpError();
    if (chip.smVersion < kFp8Sm || ptx < kFp8Ptx)
      diag << "to " << element << " converts with cvt.rn.satfinite."
           << (isa<Float8E4M3FNType>(element) ? "e4m3x2" : "e5m2x2")
           << ".f32, which needs sm_" << kFp8Sm << " and PTX ISA "
           << formatPtxVersion(kFp8Ptx) << ", but the target is " << chip.name
           << " with PTX " << formatPtxVersion(ptx) << " (T-TARGET-7)";
    else if (!(source.isF32() || source.isF16() || source.isBF16()))
      diag << "to " << element << " converts from f32, f16 or bf16, got "
           << source << " (T-TARGET-7)";
    else if (op.getRoundingmode() && *op.getRoundingmode() !=
                                         arith::RoundingMode::to_nearest_even)
      diag << "to " << element
           << " rounds to nearest even only (cvt.rn), got rounding mode "
           << arith::stringifyRoundingMode(*op.getRoundingmode())
           << " (T-TARGET-7)";
    else {
      diag.abandon();
      return WalkResult::advance();
    }
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

/// T-TARGET-6: a kernel's workgroup and private attributions have the
/// identity layout. Upstream's gpu.func lowering reserves the shape's
/// elements densely and addresses them through the layout: a layout without
/// a strided form crashes it (MemRefDescriptor::fromStaticShape), other
/// strides or offsets address outside the allocation.
static LogicalResult checkAttributionLayouts(ModuleOp module) {
  WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
    for (auto [kind, attributions] :
         {std::pair(StringRef("workgroup"), func.getWorkgroupAttributions()),
          std::pair(StringRef("private"), func.getPrivateAttributions())}) {
      for (auto [index, attribution] : llvm::enumerate(attributions)) {
        auto type = cast<MemRefType>(attribution.getType());
        if (type.getLayout().isIdentity())
          continue;
        auto identity =
            MemRefType::get(type.getShape(), type.getElementType(),
                            MemRefLayoutAttrInterface(), type.getMemorySpace());
        emitConciseOpError(func)
            << kind << " attribution " << index << " " << type
            << " has a non-identity layout, which the LLVM lowering cannot "
               "allocate (it reserves the shape's elements densely); declare "
               "it with the identity layout "
            << identity
            << " and take a strided view of it inside the kernel, e.g. with "
               "memref.transpose or memref.subview (T-TARGET-6)";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// T-TARGET-8: a kernel's known_block_size is a CTA the driver launches:
/// every extent at least 1 and at most 1024, 1024, 64 (x, y, z), at most
/// 1024 threads in all. Otherwise the launch fails
/// (CUDA_ERROR_INVALID_VALUE), and the analyses that enumerate a block's
/// threads skip the kernel.
static LogicalResult checkKnownBlockSizes(ModuleOp module) {
  WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
    std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
    if (!known)
      return WalkResult::advance();
    if (isLaunchableBlock((*known)[0], (*known)[1], (*known)[2]))
      return WalkResult::advance();
    emitConciseOpError(func)
        << "has a known block size of " << (*known)[0] << " x " << (*known)[1]
        << " x " << (*known)[2]
        << ", which no launch can have: each extent at least 1 and at most "
        << kMaxBlockExtents[0] << ", " << kMaxBlockExtents[1] << ", "
        << kMaxBlockExtents[2] << " (x, y, z), at most " << kMaxThreadsPerBlock
        << " threads in all (T-TARGET-8)";
    return WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

static LogicalResult checkDynamicSharedLaunches(ModuleOp module) {
  WalkResult result = module.walk([&](Operation *op) {
    LogicalResult checked = success();
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
              launch, launch.getKernel()))
        checked = checkDynamicSharedMemory(launch, kernel.getBody(),
                                           launch.getDynamicSharedMemorySize());
    } else if (auto launch = dyn_cast<gpu::LaunchOp>(op)) {
      checked = checkDynamicSharedMemory(launch, launch.getBody(),
                                         launch.getDynamicSharedMemorySize());
    }
    return failed(checked) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult tile::checkTarget(ModuleOp module, StringRef chipName,
                                StringRef features, int optLevel,
                                StringRef format, int64_t indexBitwidth) {
  // T-TARGET-4: options of the lowering and the NVVM serializer.
  if (optLevel < 0 || optLevel > 3)
    return emitConciseError(module) << "opt-level must be in [0, 3], got "
                                    << optLevel << " (T-TARGET-4)";
  if (indexBitwidth != 32 && indexBitwidth != 64)
    return emitConciseError(module) << "index-bitwidth must be 32 or 64, got "
                                    << indexBitwidth << " (T-TARGET-4)";
  // A 32-bit index is lowered by tile's and upstream's GPU conversions;
  // upstream's NVGPU conversion and the module-wide function conversion
  // know only 64 bits.
  if (indexBitwidth == 32) {
    Operation *offending = nullptr;
    StringRef why;
    module.walk([&](Operation *op) {
      if (isa<nvgpu::NVGPUDialect>(op->getDialect()))
        why = "an nvgpu op";
      else if (isa<LdMatrixOp, MmaSyncOp, MmaOp>(op))
        why = "an op that lowers through nvgpu";
      else if (isa<func::FuncOp>(op) && op->getParentOfType<gpu::GPUModuleOp>())
        why = "a func.func in a gpu.module";
      else
        return WalkResult::advance();
      offending = op;
      return WalkResult::interrupt();
    });
    if (offending)
      return offending->emitError()
             << "index-bitwidth=32 is not supported with " << why
             << " (T-TARGET-4)";
  }
  if (!llvm::is_contained(
          {"isa", "assembly", "bin", "binary", "fatbin", "offload"}, format))
    return emitConciseError(module)
           << "unknown format '" << format
           << "'; expected isa, bin, fatbin or offload "
              "(T-TARGET-4)";
  // T-TARGET-1: a chip we know the PTX requirements of.
  std::optional<ChipInfo> chip = lookupChip(chipName);
  if (!chip)
    return emitConciseError(module)
           << "unknown chip '" << chipName << "'; expected one of "
           << getKnownChipNames() << " (T-TARGET-1)";
  // T-TARGET-2: one PTX version that LLVM emits, ptxas accepts and the chip
  // supports; LLVM itself aborts on a version the chip lacks.
  std::string featureString =
      features.empty() ? getDefaultPtxFeature(*chip) : features.str();
  std::string error;
  std::optional<unsigned> ptx = parsePtxFeature(featureString, error);
  if (!ptx)
    return emitConciseError(module) << error << " (T-TARGET-2)";
  if (*ptx < chip->minPtxVersion)
    return emitConciseError(module)
           << "PTX ISA " << formatPtxVersion(*ptx) << " ('" << featureString
           << "') does not support " << chip->name << "; it needs PTX "
           << formatPtxVersion(chip->minPtxVersion) << " ('+ptx"
           << chip->minPtxVersion << "') or later (T-TARGET-2)";
  if (*ptx > kMaxPtxVersion)
    return emitConciseError(module)
           << "PTX ISA " << formatPtxVersion(*ptx)
           << " is newer than ptxas 13.0 and the CUDA 13.0 "
              "driver accept (max '+ptx"
           << kMaxPtxVersion << "') (T-TARGET-2)";

  // T-TARGET-3: every op exists on the chip.
  WalkResult result = module.walk([&](TargetDependentOpInterface op) {
    if (chip->smVersion < op.getMinSmVersion()) {
      op->emitOpError() << "requires sm_" << op.getMinSmVersion()
                        << " or newer, but the target chip is " << chip->name
                        << " (T-TARGET-3)";
      return WalkResult::interrupt();
    }
    if (*ptx < op.getMinPtxVersion()) {
      op->emitOpError() << "requires PTX ISA "
                        << formatPtxVersion(op.getMinPtxVersion()) << " ('+ptx"
                        << op.getMinPtxVersion()
                        << "') or newer, but the target "
                        << "uses PTX " << formatPtxVersion(*ptx) << " ('"
                        << featureString << "') (T-TARGET-3)";
      return WalkResult::interrupt();
    }
    if (op.requiresArchSpecificTarget() && !chip->archSpecific) {
      op->emitOpError() << "requires an arch-specific target such as sm_"
                        << chip->smVersion << "a, got " << chip->name
                        << " (T-TARGET-3)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  if (failed(checkFp8Conversions(module, *chip, *ptx)))
    return failure();
  if (failed(checkDynamicSharedLaunches(module)) ||
      failed(checkStaticSharedMemory(module)) ||
      failed(checkAttributions(module)) ||
      failed(checkAttributionLayouts(module)) ||
      failed(checkKnownBlockSizes(module)) ||
      failed(checkTmaRowIndices(module)))
    return failure();
  return checkClusterLaunches(module);
}

namespace {
/// Pass shell around checkTarget.
struct TileCheckTargetPass
    : tile::impl::TileCheckTargetPassBase<TileCheckTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(checkTarget(getOperation(), chip, features, optLevel, format,
                           indexBitwidth)))
      signalPassFailure();
  }
};
} // namespace
