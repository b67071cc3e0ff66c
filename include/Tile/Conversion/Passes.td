//===- Passes.td - Tile conversion passes ------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVVMPass : Pass<"convert-tile-to-nvvm"> {
  let summary = "lower tile ops to the NVVM and LLVM dialects";
  let description = [{
    Rewrites every tile op into NVVM ops (inline PTX only where NVVM has no
    op), computing addresses from the memref descriptors as the memref-to-llvm
    lowering does. Memref operands are reached through
    `builtin.unrealized_conversion_cast`s that the later
    `convert-func-to-llvm`/`convert-gpu-to-nvvm` and
    `reconcile-unrealized-casts` remove. After it, no tile op remains; an op
    without a lowering is a "failed to legalize" error.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "0",
           "bitwidth of the index type, 0 to use the data layout's">,
    Option<"debugWaitLimit", "debug-wait-limit", "uint64_t", "0",
           "bound every tile.mbarrier_wait_parity to this many try_wait "
           "rounds, then print the barrier, phase, block and thread and "
           "trap (0: wait forever)">,
  ];
}

#endif // TILE_CONVERSION_PASSES_TD
