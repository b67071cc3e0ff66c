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

def TileKernelManifestPass
    : Pass<"tile-kernel-manifest", "::mlir::ModuleOp"> {
  let summary = "record every kernel's launch ABI on the module";
  let description = [{
    Writes a `tile.kernel_manifest` dictionary on the module: for each
    gpu.func kernel, its parameters in order (memrefs: rank, element type,
    shape, layout — strides and offset, -1 where dynamic, and whether it is
    the identity — whether the kernel may write through them, and the
    alignment of their base address its accesses assume (`alignment`, with
    the access in `alignment_for`: aligned vector or memref accesses,
    cp.async, bulk copies; at least the element's size); a layout without a
    strided form is an error; `!tile.tma_desc`: every tensor-map parameter — element type and
    CUtensorMapDataType, box, swizzle, interleave, L2 promotion, OOB fill,
    im2col corners — passed as 128 bytes by value; scalars: their type), the
    dynamic shared memory its `tile.shared_alloc dynamic` buffers need, and
    the block and cluster shapes where the kernel or every launch of it fixes
    them. The attribute survives lowering; `tile-translate --kernel-manifest`
    prints it as JSON, which launchers (the Python package) read instead of
    parsing IR. Part of tile-to-ptx-pipeline, after kernel outlining.
  }];
}

def TileTensorMapsByValuePass
    : Pass<"tile-tensor-maps-by-value", "::mlir::ModuleOp"> {
  let summary = "pass tensor maps to kernels by value, as grid constants";
  let description = [{
    Runs after `convert-gpu-to-nvvm` and `gpu-to-llvm`, before
    `gpu-module-to-binary`. Kernel parameters that were `!tile.tma_desc`
    (listed in the kernel's `tile.tensor_map_params` by
    `convert-tile-to-nvvm`) become 128-byte, 128-byte aligned by-value
    parameters (`llvm.byval`, `nvvm.grid_constant`; PTX
    `.param .align 128 .b8 p[128]`), whose address TMA instructions use
    (T-TMA-22). Every `gpu.launch_func` of such a kernel passes the 128 bytes
    its host operand points at, so the launch copies the map into the kernel
    parameters: no device memory, no copy before the launch.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def TileConvertNVGPUWhereUsedPass : Pass<"tile-convert-nvgpu-where-used"> {
  let summary = "run convert-nvgpu-to-nvvm only where nvgpu ops are";
  let description = [{
    Upstream's `convert-nvgpu-to-nvvm` also retypes every `scf.for`/`scf.if`
    over `index` to the 64-bit integer of its own type converter, whether or
    not an nvgpu op is in sight; a kernel lowered with a 32-bit index
    (`tile-to-ptx-pipeline`'s `index-bitwidth=32`) is then left with casts
    between i32 and i64 that nothing removes. This pass runs the upstream
    pass on each op of its operation's body (a gpu.module, a host function)
    that holds an nvgpu op, so gpu.modules without one keep the pipeline's
    index width. nvgpu ops (written by the user, or from `tile.ldmatrix` and
    `tile.mma_sync`, which lower through nvgpu) still need the 64-bit index
    in their gpu.module (T-TARGET-4 rejects them with index-bitwidth=32).
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD
