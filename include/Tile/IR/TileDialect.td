//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEDIALECT_TD
#define TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "asynchronous tile machinery of NVIDIA Ampere and Hopper GPUs";
  let description = [{
    The `tile` dialect models the asynchronous machinery of sm_80/sm_90 GPUs:
    cp.async and its commit/wait groups, mbarriers, TMA (bulk and tensor copies,
    multicast over clusters) and shared-memory swizzle. Every hardware rule is a
    numbered invariant (T-CPASYNC-n, T-MBAR-n, T-TMA-n, T-SWZ-n) described in
    docs/Rationale/RationaleTile.md and checked by a verifier.

    The dialect lowers to NVVM (and NVGPU where it fits) with
    `-convert-tile-to-nvvm`; `-tile-to-ptx-pipeline` takes a module holding
    `gpu.module`s of tile IR down to PTX or a cubin.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

/// Base class of every tile op.
class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_IR_TILEDIALECT_TD
