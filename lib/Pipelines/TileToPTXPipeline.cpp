//===- TileToPTXPipeline.cpp - tile IR to PTX/cubin -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Staged like upstream's gpu-lower-to-nvvm-pipeline, with tile's own stages in
// front. Each stage states what holds after it.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "Tile/Pipelines/Pipelines.h"
#include "Tile/Target/Chip.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include <cstdlib>

using namespace mlir;
using namespace mlir::tile;

/// The PTX feature actually used: the user's, or the chip's default. An
/// unknown chip keeps the user's string; tile-check-target (stage 1) rejects
/// it before nvvm-attach-target (stage 2) would use it.
static std::string resolveFeatures(const TileToPTXPipelineOptions &options) {
  if (!options.features.empty())
    return options.features;
  if (std::optional<ChipInfo> chip = lookupChip(options.chip))
    return getDefaultPtxFeature(*chip);
  return "";
}

//===----------------------------------------------------------------------===//
// Stage 1: pipeline marked loops, check the target and lower tile ops.
// Post-conditions: loops marked {tile.pipeline_stages = N} are rings; the chip,
// PTX level, opt level and format are valid for every op in the module;
// tile-level ops are expanded into instruction-level ones, which have no
// cp.async/mbarrier protocol error (checked after tile-lower-tile-ops unless
// verify-protocol=false); generic accesses of swizzled buffers address their
// swizzled elements; kernels are gpu.funcs (gpu.launch bodies outlined); no
// tile or nvgpu op remains (NVVM/LLVM ops on memref descriptors via unrealized
// casts).
//===----------------------------------------------------------------------===//
static void buildTileStage(OpPassManager &pm,
                           const TileToPTXPipelineOptions &options) {
  pm.addPass(createTilePipelineAsyncCopiesPass());
  TileCheckTargetPassOptions check;
  check.chip = options.chip;
  check.features = options.features;
  check.optLevel = options.optLevel;
  check.format = options.format;
  check.indexBitwidth = options.indexBitWidth;
  pm.addPass(createTileCheckTargetPass(check));
  pm.addPass(createTileLowerTileOpsPass());
  if (options.verifyProtocol)
    pm.addPass(createTileVerifyAsyncProtocolPass());
  // On logical indices, before the swizzle rewrite (which keeps the
  // alignment it sets).
  TileAlignSharedVectorAccessesPassOptions align;
  align.remarks = options.alignmentRemarks;
  pm.addPass(createTileAlignSharedVectorAccessesPass(align));
  pm.addPass(createTileSwizzleAccessesPass());
  // Kernels written as gpu.launch bodies become gpu.funcs before their tile
  // ops are lowered, so that descriptors they use are kernel parameters
  // (passed by value) like those of gpu.funcs written as such. nvgpu ops
  // written by the user are lowered first: upstream cannot lower a gpu.func
  // parameter of type !nvgpu.tensormap.descriptor, only the !llvm.ptr it
  // becomes (a map in device memory: upstream's ABI).
  pm.addPass(createTileConvertNVGPUWhereUsedPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createTileKernelManifestPass());
  // Kernels at the chosen index width; then what is left, the host's tile
  // ops (tensor map encoding), with the host's 64-bit index.
  ConvertTileToNVVMPassOptions toNVVM;
  toNVVM.indexBitwidth = options.indexBitWidth;
  toNVVM.debugWaitLimit = options.debugWaitLimit;
  if (options.indexBitWidth != 64)
    pm.nest<gpu::GPUModuleOp>().addPass(createConvertTileToNVVMPass(toNVVM));
  toNVVM.indexBitwidth = 64;
  pm.addPass(createConvertTileToNVVMPass(toNVVM));
  pm.addPass(createTileConvertNVGPUWhereUsedPass());
}

//===----------------------------------------------------------------------===//
// Stage 2: common lowering (host and device).
// Post-conditions: kernels are outlined into gpu.modules that carry an
// #nvvm.target; host launches are stream-ordered (no host wait between
// them) and other host gpu ops async; scf/func/arith/index/affine are LLVM on
// the host.
//===----------------------------------------------------------------------===//
static void buildCommonStage(OpPassManager &pm,
                             const TileToPTXPipelineOptions &options) {
  // Host launch_funcs written without async tokens become async ones on one
  // stream per function, synchronized only where the host may observe their
  // results (loops of launches run back to back); gpu.alloc/memcpy become
  // async ones that are waited for, which gpu-to-llvm can lower.
  pm.addPass(createTileStreamOrderHostLaunchesPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());

  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = resolveFeatures(options);
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createLowerAffinePass());
  // Host functions only (the module's own llvm.funcs, with a 64-bit index):
  // arith and index ops in gpu.modules are converted in stage 3, with the
  // kernels' index width.
  OpPassManager &host = pm.nest<LLVM::LLVMFuncOp>();
  host.addPass(createArithToLLVMConversionPass());
  host.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

//===----------------------------------------------------------------------===//
// Stage 3: device code.
// Post-conditions: warp reductions are shuffles or redux.sync; every
// gpu.module holds only LLVM and NVVM ops.
//===----------------------------------------------------------------------===//
static void buildDeviceStage(OpPassManager &pm,
                             const TileToPTXPipelineOptions &options) {
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createStripDebugInfoPass());
  // Warp reductions (tile.reduce's): shuffle butterflies, or redux.sync for
  // whole-warp i32 ones from sm_80 on.
  std::optional<ChipInfo> chip = lookupChip(options.chip);
  bool redux = chip && chip->smVersion >= 80;
  TileLowerSubgroupReducePassOptions reduce;
  reduce.redux = redux;
  device.addPass(createTileLowerSubgroupReducePass(reduce));
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = options.indexBitWidth;
  toNVVM.hasRedux = redux;
  device.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  device.addPass(LLVM::createNVVMOptimizeForTargetPass());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());
}

//===----------------------------------------------------------------------===//
// Stage 4: host code and serialization.
// Post-conditions: tensor maps are by-value kernel parameters; gpu.modules are
// gpu.binary ops holding `format`; the host is LLVM dialect calling mgpu*
// entry points; no unrealized cast remains.
//===----------------------------------------------------------------------===//
/// The CUDA toolkit whose libdevice gpu-module-to-binary links into kernels
/// that call math functions: the first of $CUDA_HOME, $CUDA_PATH,
/// $CUDA_ROOT and /usr/local/cuda that has one. (MLIR looks only at the
/// environment, which lit and other launchers may clear; PTX with
/// unresolved __nv_* calls then fails at JIT time.)
static std::string findCudaToolkit() {
  SmallVector<std::string> candidates;
  for (const char *name : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(name); value && *value)
      candidates.push_back(value);
  candidates.push_back("/usr/local/cuda");
  for (const std::string &candidate : candidates)
    if (llvm::sys::fs::exists(candidate + "/nvvm/libdevice/libdevice.10.bc"))
      return candidate;
  return "";
}

/// Sets LLVM's `nvptx-short-ptr`, which the NVPTX target machine reads when
/// gpu-module-to-binary creates it: shared (and const, local) pointers become
/// 32-bit in the data layout, so shared addresses take one register and
/// 32-bit arithmetic. A process-wide flag of the NVPTX backend (there is no
/// per-module setting); every run of the pipeline sets it to its option.
static void setShortSharedPointers(bool enable) {
  auto &registered = llvm::cl::getRegisteredOptions();
  auto it = registered.find("nvptx-short-ptr");
  if (it == registered.end())
    return;
  it->second->addOccurrence(/*pos=*/0, it->second->ArgStr,
                            enable ? "true" : "false");
}

static void buildHostStage(OpPassManager &pm,
                           const TileToPTXPipelineOptions &options) {
  setShortSharedPointers(options.shortSharedPointers);
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createTileTensorMapsByValuePass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  binary.toolkitPath = findCudaToolkit();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void tile::buildTileToPTXPipeline(OpPassManager &pm,
                                  const TileToPTXPipelineOptions &options) {
  buildTileStage(pm, options);
  buildCommonStage(pm, options);
  buildDeviceStage(pm, options);
  buildHostStage(pm, options);
}

void tile::registerTilePipelines() {
  PassPipelineRegistration<TileToPTXPipelineOptions>(
      "tile-to-ptx-pipeline",
      "Lower a module with gpu.modules of tile IR to PTX (format=isa) or a "
      "cubin for a chip, and its host code to the LLVM dialect",
      buildTileToPTXPipeline);
}
