//===- Pipelines.h - Named tile pipelines -----------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace tile {

/// Options of `tile-to-ptx-pipeline`.
struct TileToPTXPipelineOptions
    : public PassPipelineOptions<TileToPTXPipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("target chip: sm_80, sm_86, sm_89, sm_90, "
                     "sm_90a, ... (default sm_90a)"),
      llvm::cl::init("sm_90a")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX ISA version as an LLVM feature, e.g. +ptx80; empty "
                     "selects +ptx80 or the chip's minimum if newer"),
      llvm::cl::init("")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level", llvm::cl::desc("NVVM optimization level (0..3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("what gpu.binary holds: isa (PTX text), bin (cubin, "
                     "needs ptxas), fatbin, offload (LLVM bitcode)"),
      llvm::cl::init("isa")};
  PassOptions::Option<bool> verifyProtocol{
      *this, "verify-protocol",
      llvm::cl::desc("run tile-verify-async-protocol after tile-lower-tile-ops "
                     "(T-PROTO-n)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> alignmentRemarks{
      *this, "alignment-remarks",
      llvm::cl::desc("remark on shared vector loads/stores whose full "
                     "alignment tile-align-shared-vector-accesses cannot "
                     "prove (they stay element-wise)"),
      llvm::cl::init(true)};
  PassOptions::Option<uint64_t> debugWaitLimit{
      *this, "debug-wait-limit",
      llvm::cl::desc("bound mbarrier waits to this many try_wait rounds, then "
                     "print barrier/phase/block/thread and trap (0: off)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> indexBitWidth{
      *this, "index-bitwidth",
      llvm::cl::desc("bitwidth of the index type in kernels (32 or 64; host "
                     "code keeps 64). 32 needs kernels without nvgpu ops "
                     "(T-TARGET-4); "
                     "launches pass 64-bit values, of which a 32-bit "
                     "parameter reads the low half"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> shortSharedPointers{
      *this, "short-shared-pointers",
      llvm::cl::desc("32-bit shared-memory addresses in PTX (LLVM's "
                     "nvptx-short-ptr): fewer registers and 32-bit address "
                     "arithmetic. A process-wide LLVM flag: building the "
                     "pipeline sets it (over a -nvptx-short-ptr given to "
                     "the tool); in one process the last pipeline built "
                     "decides"),
      llvm::cl::init(true)};
};

/// Builds `tile-to-ptx-pipeline`: checks the target and the async protocol,
/// lowers tile (and nvgpu)
/// ops to NVVM, outlines and lowers `gpu.module`s to NVVM/LLVM, serializes
/// them to `format` for `chip`, and lowers the host code to the LLVM dialect
/// calling the `mgpu*` runtime entry points.
void buildTileToPTXPipeline(OpPassManager &pm,
                            const TileToPTXPipelineOptions &options);

/// Registers the named tile pipelines with the pass registry.
void registerTilePipelines();

} // namespace tile
} // namespace mlir

#endif // TILE_PIPELINES_PIPELINES_H
