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
    The `tile` dialect models the asynchronous machinery of sm_80/sm_90 GPUs: cp.async and its
    commit/wait groups, mbarriers, TMA (bulk and tensor copies, multicast over clusters), wgmma and
    shared-memory swizzle. Thread-level ops run in every thread that reaches them (`tile.async_copy`,
    `tile.tma_load`, `tile.wgmma`, ...); tile-level ops run in a whole block, warp or warpgroup on
    tiles given by CuTe layouts (`tile.copy`, `tile.mma`, `tile.warpgroup_mma`, ...).

    Every hardware rule is a numbered invariant (T-CPASYNC-n, T-TMA-n, ...) described in
    docs/Rationale/RationaleTile.md and checked by a verifier. `-tile-lower-tile-ops` expands the
    tile-level ops, `-convert-tile-to-nvvm` lowers to NVVM and `-tile-to-ptx-pipeline` goes to PTX.
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
