//===- ReduceOps.td - Warp, warpgroup and block reductions -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A scalar reduction over the threads of a warp, a warpgroup or the CTA, as
// memory-bound kernels (RMSNorm, softmax, amax quantization) need it; CUB's
// WarpReduce/BlockReduce and Triton's tl.sum/tl.max in one op. The
// combining kinds are upstream's gpu.all_reduce/gpu.subgroup_reduce ones.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_REDUCEOPS_TD
#define TILE_IR_REDUCEOPS_TD

include "Tile/IR/TileTypes.td"

/// Upstream's `#gpu<all_reduce_op ...>` (gpu::AllReduceOperationAttr),
/// written as a bare keyword (`add`, `maximumf`, ...).
def Tile_AllReduceOperationAttr
    : Attr<CPred<"::llvm::isa<::mlir::gpu::AllReduceOperationAttr>($_self)">,
           "gpu all-reduce operation"> {
  let storageType = "::mlir::gpu::AllReduceOperationAttr";
  let returnType = "::mlir::gpu::AllReduceOperation";
  let convertFromStorage = "$_self.getValue()";
  let constBuilderCall =
      "::mlir::gpu::AllReduceOperationAttr::get($_builder.getContext(), $0)";
}

def Tile_ReduceOp : Tile_Op<"reduce", [AllTypesMatch<["value", "result"]>]> {
  let summary = "reduce a scalar over a warp, a warpgroup or the block";
  let description = [{
    Syntax:
    ```
    %r = tile.reduce <kind> %value over <scope>[, lanes N] : <type>
    ```
    Combines the `value` of every thread of the scope with `kind` (upstream's
    `gpu::AllReduceOperation`: `add`, `mul`, `minui`, `minsi`, `minnumf`,
    `maxui`, `maxsi`, `maxnumf`, `and`, `or`, `xor`, `minimumf`,
    `maximumf`) and gives every thread of the scope the result, the same
    bits in all of them:

    - `warp`: the 32 lanes of the executing warp; with `lanes N` (N a power
      of two, 2..32) each group of N consecutive lanes separately, e.g.
      `lanes 4` for the quad that holds a row of an mma fragment.
    - `warpgroup`: the 128 threads of the warpgroup (4 consecutive warps,
      linear thread id / 128); any chip from sm_75 on.
    - `block`: all threads of the CTA.

    The operand is a scalar f32 or i32: a thread reduces its own vector
    first with `vector.reduction`, then the threads with `tile.reduce`.
    16-bit floats are extended to f32 first (`arith.extf`), as Triton's
    `tl.sum` accumulates in f32.

    Floats: `maximumf`/`minimumf` propagate NaN (a NaN anywhere gives NaN,
    as `torch.max` and `torch.amax`), `maxnumf`/`minnumf` ignore it (the
    result is NaN only when every value is); `add` and `mul` combine in an
    order that is fixed for a block shape (a butterfly within each warp,
    then a pairwise tree or a butterfly over the warps' partials), so
    results are deterministic run to run, but they differ in rounding from
    a sequential sum.

    Every thread of the scope must execute the op (it contains warp
    shuffles, and barriers for `warpgroup` and `block`): not under a branch
    that divides the scope — for `lanes N` too, the whole warp: its shuffles
    name all 32 lanes (T-RED-6) — in a block whose size is a multiple of
    32 (128 for `warpgroup`, T-RED-5).

    Lowering (`tile-lower-tile-ops`):
    - `warp`: `gpu.subgroup_reduce` (`uniform`, `cluster(size = N)` for
      `lanes N`); `tile-lower-subgroup-reduce` in the PTX pipeline turns it
      into upstream's butterfly of `gpu.shuffle xor` (`shfl.sync.bfly`,
      log2 N steps), except a full-warp i32 `add`, `minsi`, `maxsi`, `and`,
      `or` or `xor` on sm_80+, which becomes `redux.sync` (PTX ISA,
      "Parallel Synchronization and Communication Instructions:
      redux.sync").
    - `warpgroup`: the warp reduction; lane 0 of each warp writes its
      partial to slot 4 w + (warp mod 4) of a 32-element shared scratch of
      the kernel; the warpgroup meets at named barrier 1 + w (`bar.sync
      1 + w, 128`; T-BAR-1); every thread combines the 4 partials in warp
      order. A named barrier before the write keeps a previous reduction's
      readers from seeing it.
    - `block`: the warp reduction; `gpu.barrier` (a previous reduction's
      readers are done); lane 0 of warp w writes scratch[w]; `gpu.barrier`;
      every warp reads scratch[lane] (the identity of `kind` past the
      number of warps, from the known block size or `gpu.block_dim`) and
      reduces it over the warp.
    The scratch is one `tile.shared_alloc : memref<32xT, 3>` per kernel,
    scope and type, shared by all its reductions (each is bracketed by
    barriers). Invariants T-RED-1..6.

    Example (an RMSNorm row: each thread's 4 elements, then the block):
    ```mlir
    %sq = arith.mulf %x, %x : vector<4xf32>
    %part = vector.reduction <add>, %sq : vector<4xf32> into f32
    %sum = tile.reduce add %part over block : f32
    %m = tile.reduce maximumf %v over warp, lanes 4 : f32
    %k = tile.reduce maxsi %i over warpgroup : i32
    ```
  }];
  let arguments = (ins Tile_AllReduceOperationAttr:$kind, AnyType:$value,
                       Tile_ReduceScopeAttr:$scope,
                       OptionalAttr<I32Attr>:$lanes);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $value `over` `` $scope (`,` `lanes` $lanes^)?
    attr-dict `:` type($value)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The threads whose values one result combines: `lanes` (default 32),
    /// 128 or 0 for the whole block.
    int64_t getGroupThreads();
    /// The block shape (x, y, z) of the enclosing kernel where the IR states
    /// it: the gpu.func's known_block_size, a gpu.launch's constant sizes.
    std::optional<std::array<int64_t, 3>> getKnownBlockShape();
    /// T-RED-5 for a block of `shape` (stated in the IR, or taken from the
    /// kernel's launches by the lowering): whole warps (warpgroups).
    ::mlir::LogicalResult verifyBlockShape(std::array<int64_t, 3> shape);
  }];
}

#endif // TILE_IR_REDUCEOPS_TD
