//===- Passes.td - Tile transformation passes --------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_TRANSFORMS_PASSES_TD
#define TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileCheckTargetPass : Pass<"tile-check-target", "mlir::ModuleOp"> {
  let summary = "check the chip, the PTX level and that every tile op exists on the chip";
  let description = [{
    Validates a target before any lowering runs, so that a bad option is a
    diagnostic and not an LLVM abort (LLVM 22 aborts with "PTX version 6.0 does
    not support target" for its own default `+ptx60` and sm_80):

    - T-TARGET-1: `chip` is one tile knows (sm_75 ... sm_120a).
    - T-TARGET-2: `features` names one PTX ISA version (`+ptxNN`) that LLVM 22
      can emit, that ptxas 13 accepts, and that the chip supports.
    - T-TARGET-3: every op implementing TargetDependentOpInterface runs on
      the chip and PTX version (e.g. cp.async needs sm_80).
    - T-TARGET-4: `opt-level` is 0..3, `format` one that
      `gpu-module-to-binary` knows (isa, bin, fatbin, offload) and
      `index-bitwidth` 32 or 64; 32 only without nvgpu ops, ops that lower
      through nvgpu (tile.mma, ldmatrix, mma_sync) or func.funcs in
      gpu.modules.
    - T-TARGET-5: the element types of gpu.func workgroup and private
      attributions are ones the LLVM lowering converts.
    - T-TARGET-6: those attributions have the identity layout (the lowering
      allocates them densely); a strided view inside the kernel takes the
      place of another layout.
    - T-TARGET-7: an arith.truncf to f8E4M3FN or f8E5M2 in device code
      (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32) needs sm_89 and PTX 7.8,
      converts from f32, f16 or bf16 and rounds to nearest even.

    It also checks launches against their kernels: T-CLUSTER-1 (cluster
    ops need a cluster launch), T-TMA-19 (multicast masks within the
    cluster), T-SMEM-1/2 (dynamic shared memory provided and in range).
    And T-TMA-24 on the TMA loads whose box fills a row range of a taller
    shared tile: a row index that is not a constant must be a provable
    multiple of the rows that keep the tile's alignment (the verifier
    checks constant rows).

    `tile-to-ptx-pipeline` runs it right after `tile-pipeline-async-copies`,
    before any lowering.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"sm_90a\"",
           "target chip, e.g. sm_80 or sm_90a">,
    Option<"features", "features", "std::string", "\"\"",
           "PTX feature, e.g. +ptx80; empty selects the chip's default">,
    Option<"optLevel", "opt-level", "int", "3", "NVVM optimization level, 0..3">,
    Option<"format", "format", "std::string", "\"isa\"",
           "what gpu-module-to-binary produces: isa (PTX), bin, fatbin, offload">,
    Option<"indexBitwidth", "index-bitwidth", "int64_t", "64",
           "the kernels' index width, 32 or 64">,
  ];
}

def TileVerifyAsyncProtocolPass
    : Pass<"tile-verify-async-protocol", "mlir::ModuleOp"> {
  let summary = "statically check the cp.async group and mbarrier protocols";
  let description = [{
    Three analyses that report protocol errors which otherwise show up as
    wrong numbers or hangs on the GPU.

    The thread protocol interprets each function (func.func, gpu.func) in
    program order as one thread, on concrete values where they are known
    (loops with constant bounds run iteration by iteration; values carried
    through scf.for iter_args and scf.if results follow them):

    - T-PROTO-1 (error): a shared-memory read of a slot (buffer, ring stage)
      that a cp.async group may still be writing, given the wait_group counts
      in between (groups complete in FIFO order), or that a bulk copy / TMA
      load may still be writing before a wait on its barrier;
    - T-PROTO-2 (warning): scf.if branches that leave different numbers of
      groups committed since a wait last emptied the FIFO (a commit under a
      condition), reported at the if with a note at the first later
      wait_group N > 0 that counts them (in an scf.while body, at once);
    - T-PROTO-3 (warning): copies still in flight when the kernel returns;
    - T-PROTO-4 (error): an mbarrier used before any mbarrier_init;
    - T-PROTO-5 (error): a barrier initialized twice without mbarrier_inval;
    - T-PROTO-6 (warning): a cluster-scope barrier exposed to other CTAs
      (cluster_arrive, remote arrive) before fence_mbarrier_init;
    - T-PROTO-7 (warning), where the role protocol does not model the
      kernel: the n-th wait_parity of the thread on a barrier does not wait
      for parity n mod 2;
    - T-PROTO-10 (error): an async-proxy read (bulk or TMA store/reduce, a
      wgmma's shared operand) of shared memory written by generic stores
      without fence_proxy_async.

    The arrival counts, per barrier of a kernel of known block size:

    - T-PROTO-8 (error): the arrivals a waited barrier can get per phase stay
      below its init count;
    - T-PROTO-9 (error): the transaction bytes a barrier expects per phase
      differ from what its bulk copies, TMA loads (box bytes) and
      complete_tx deliver.

    The role protocol, for kernels of known block size: the block's threads
    grouped into roles (threads that agree on every condition computable from
    the thread id; tile.warp_specialize regions), each interpreted on
    concrete values (unknown sizes take sample values) and run concurrently
    against a model of the mbarrier phases:

    - T-PROTO-7 (error): a wait returns on a phase its role already saw on
      that barrier (the ring's phase bit did not flip), or on another than
      the phase after its own last one or after the last it knows complete
      (its own waits, or those handed on at a named barrier it waited at):
      the role fell behind the ring, or skipped too few phases;
    - T-PROTO-11 (error): every role is blocked or done while some wait for
      a phase no role can complete (a deadlock);
    - T-PROTO-12 (error): a read of a stage filled by TMA, bulk or
      mbarrier-completed cp.async copies before the copy's phase was waited
      for, or after the stage was refilled
      for a later phase; a copy into a stage a wgmma may still read.
    - T-PROTO-14 (error): a write (generic store, stmatrix) of a tile of a
      shared buffer that a bulk store (TMA store or reduce, bulk copy to
      global memory) of some role may still read: its bulk group was not
      retired by a `bulk_wait_group` (`read`) first (a staging buffer reused
      too early).
    - T-PROTO-15 (error): a shared buffer that generic stores write and
      wgmmas read (no copy fills it, no bulk store reads it), exchanged
      between roles: a read not ordered after another role's last write of
      the stage, or a write while another role's wgmma may still read it or
      not ordered after its last read. Orderings: barriers and collectives
      the roles pass together, named barriers (bar.sync waits for the
      thread count; bar.arrive adds to it), mbarrier phases a role waited
      for.

    Before the roles, for every kernel of known block size:

    - T-PROTO-13 (error): an aligned instruction (wgmma and the warpgroup
      MMAs, mma.sync, ldmatrix, stmatrix, named barrier syncs and arrives,
      gpu.barrier: PTX `.sync.aligned`, `barrier.*.aligned`) under an scf.if
      whose condition (where thread ids decide it; else an and/or/xor part
      of it that they decide) takes both values among the threads of one
      warp (one warpgroup for wgmma) that reach the branch; those threads
      would execute different instructions and hang. Loops whose trip count
      differs between threads are not checked.

    Copies handed to an mbarrier with async_copy_mbarrier_arrive complete at a
    wait on that barrier. `tile-to-ptx-pipeline` runs this pass after
    `tile-lower-tile-ops` (`verify-protocol=false` skips it).
  }];
  let options = [
    Option<"explainRoles", "explain-roles", "bool", "false",
           "remark on each kernel what the role protocol simulated, or why "
           "it did not">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def TileAnalyzeBankConflictsPass
    : Pass<"tile-analyze-bank-conflicts", "mlir::ModuleOp"> {
  let summary = "report shared-memory bank conflicts of a warp as remarks";
  let description = [{
    For each shared-memory load/store inside a gpu.func whose addresses are
    statically known for lanes 0..31 of warp 0 (thread_id x = lane, loop
    induction variables at their first value), computes the n-way bank
    conflict per 128-byte phase of the access width and, for n > 1, emits a
    remark with a proposed XOR swizzle (M = log2 of the access bytes, on
    byte offsets) and the conflict degree it leaves.
    Accesses whose addresses are not static are not reported. Accesses of a
    swizzled `tile.shared_alloc` buffer are analyzed on their swizzled
    addresses.

    With `apply`, the proposal is set as the `swizzle` of the accessed
    `tile.shared_alloc` buffer when it has none and the proposal removes the
    conflict (`tile-swizzle-accesses` then rewrites every access of it).
  }];
  let options = [
    Option<"apply", "apply", "bool", "false",
           "set the proposed swizzle on unswizzled tile.shared_alloc buffers">,
  ];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAlignSharedVectorAccessesPass
    : Pass<"tile-align-shared-vector-accesses", "mlir::ModuleOp"> {
  let summary = "set the alignment of vector loads/stores of shared buffers where provable";
  let description = [{
    Without an `alignment`, a `vector.load`/`vector.store` is lowered at its
    element's alignment, and LLVM's NVPTX backend splits it into one access
    per element (a `vector<8xbf16>` load becomes eight `ld.shared.b16`
    instead of one `ld.shared.v4.b32`). tile allocates its shared buffers
    itself, so it knows their alignment (`tile.shared_alloc`: 128 bytes or
    more, T-SWZ-3..4; dynamic buffers are placed at it after a 1024-byte
    aligned base, T-SMEM-2).

    For each rank-1 vector load/store of more than one element of a shared
    buffer whose alignment is known (a `tile.shared_alloc`, a
    `memref.global`, a workgroup attribution) and that has no `alignment`,
    this pass proves what power of two the access's byte offset is a
    multiple of (constants, arith and affine.apply arithmetic, scf.for
    induction variables; thread ids and loop-carried values are unknown),
    takes the smaller of that, the buffer's alignment and, for a swizzled
    buffer, its 2^M-byte unit (the swizzle XORs only offset bits >= M, so
    an aligned logical offset stays aligned physically, T-SWZ-6), and sets
    `alignment` to it, capped at the vector's bytes and 16. It runs before
    `tile-swizzle-accesses`, on the logical indices; the swizzle rewrite
    keeps the attribute. An explicit `alignment` is trusted.

    Where the full alignment (the vector's bytes, at most 16) cannot be
    proven, it emits a remark on the access naming the index that is not a
    known multiple (with `remarks`, the default: the code is correct but
    slower, and the user can add the attribute where it holds).
    `tile-to-ptx-pipeline` runs it right before `tile-swizzle-accesses`.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", "true",
           "remark on vector accesses whose full alignment is not provable">,
  ];
  // A buffer's swizzle (tile's attribute) is asked of every shared buffer,
  // tile's or not.
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileSwizzleAccessesPass : Pass<"tile-swizzle-accesses", "mlir::ModuleOp"> {
  let summary = "route generic accesses of swizzled shared buffers through their swizzle";
  let description = [{
    A `tile.shared_alloc {swizzle = #tile.swizzle<B,M,S>}` buffer is indexed
    logically (its memref shape) but stored physically swizzled, as TMA writes
    and reads it. This pass rewrites every generic access of such a buffer
    (memref.load/store, vector.load/store, tile.async_copy's shared operand)
    into an access of a flat view of the buffer at the element whose byte
    offset is the swizzle of the logical one. TMA ops keep the logical buffer
    (the hardware swizzles); bulk copies move physical bytes. An access keeps
    its attributes (the `alignment` of tile-align-shared-vector-accesses).

    - T-SWZ-6 (error): an access wider than the swizzle's 2^M-byte unit (the
      swizzle would split it), or an op that cannot apply the swizzle (a view,
      a call) uses the buffer.

    `tile-to-ptx-pipeline` runs it before convert-tile-to-nvvm.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def TilePipelineAsyncCopiesPass
    : Pass<"tile-pipeline-async-copies", "mlir::ModuleOp"> {
  let summary = "turn a copy-then-compute K loop into an N-stage cp.async or TMA ring";
  let description = [{
    Rewrites each `scf.for` marked `{tile.pipeline_stages = N}` (N >= 2).
    The buffers its copies write (`tile.shared_alloc`s defined outside the
    loop and used only inside it) gain a leading stage dimension of N (same
    swizzle and alignment), and every access of them, including tile-level
    ops, takes the stage. Two loop shapes are pipelined:

    ```
    <index arithmetic; tile.async_copy / tile.copy into the buffers>
    tile.async_commit_group
    tile.async_wait_group 0 (or tile.async_wait_all)
    gpu.barrier
    <compute on the buffers>
    [gpu.barrier]
    ```

    becomes a multistage ring (CUTLASS's Ampere mainloop): a prologue issues and commits the copies of the
    first N - 1 iterations; each iteration waits with `wait_group(N - 2)`,
    synchronizes the CTA, computes on stage `i % N` (i the iteration
    number), issues the copies of iteration `i + N - 1` into stage
    `(i + N - 1) % N` when it exists, and commits a (possibly empty) group so
    that the count stays uniform; `wait_group 0` follows the loop.

    ```
    <index arithmetic; tile.tma_copy ... , %bar[%i] (one barrier)>
    tile.mbarrier_wait_parity %bar[%i], %parity
    <compute on the buffers>
    [gpu.barrier]
    ```

    becomes CUTLASS's PipelineTmaAsync: N full barriers (one arrival per
    copy, plus the bytes) and N empty barriers (one arrival per thread of
    the block), initialized by thread 0; a prologue fills stages 0 .. N - 2;
    the loop carries (stage, phase); each iteration refills the stage
    consumed before it (stage - 1, or N - 1 with the other phase on
    wrapping) with iteration `i + N - 1` once thread 0 has waited on its
    empty barrier, waits on `full[stage]` with the phase, computes, arrives
    on `empty[stage]` and advances the state (phase flip at N).

    Both results pass `tile-verify-async-protocol`. `tile-to-ptx-pipeline`
    runs this pass first.

    - T-PIPE-1 (error): a marked cp.async loop that does not have its shape,
      or whose buffers are used outside it or by an op that cannot take a
      stage index; the message says which.
    - T-PIPE-2 (error): a marked TMA loop whose copies are nested in control
      flow, arrive on different barriers, mix with cp.async, lack the wait
      on their barrier, or whose kernel has no known_block_size.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect"];
}

def TileLowerTileOpsPass : Pass<"tile-lower-tile-ops", "mlir::ModuleOp"> {
  let summary = "expand tile-level ops into per-thread instruction-level ops";
  let description = [{
    - `tile.copy` becomes, for thread `t = gpu.thread_id x` below the thread
      layout's size, one `tile.async_copy` (global to shared) or one vector
      load and store (shared to global) per tiler repeat at the (m, n) that
      the copy's thread-value layout (right inverse of the raked product of
      the thread and value layouts) gives `t`'s first value; the layout
      function is emitted as index arithmetic.
    - `tile.tma_copy` becomes `mbarrier.arrive.expect_tx` of the box bytes
      and the TMA load, issued by thread 0.
    - `tile.warp_specialize` becomes an `scf.if` on the warpgroup index with
      `setmaxnreg` in each branch.
    - `tile.mma` becomes the ldmatrix.x4 loads and the mma.sync grid of each
      16-wide K step; `tile.mma_store` the per-thread vector stores of its
      fragments (bounds-checked when it has bounds).
    - `tile.warpgroup_mma` becomes wgmma descriptors and `wgmma.mma_async`
      per 16-wide K step; `tile.warpgroup_mma_store` per-thread stores;
      `tile.warpgroup_tma_store` per 64-row chunk stmatrix into a staging
      ring, named barriers (`nvvm.barrier`), an async-proxy fence and a TMA
      store with its bulk group.
    - `tile.split_k_reduce` the partials' stores, a named barrier, the
      warpgroup's first thread's count (an atomic between GPU-scope fences)
      into a shared flag, a named barrier and, in the last CTA, the sum in
      split order and the counter's reset.
    - `tile.tile_coord`, `tile.work_count` and `tile.work_unit` their index
      arithmetic (unsigned divisions, remainders, minima and selects).
    - `tile.warpgroup_add` clamped per-pair loads and adds (kept only inside
      the source); `tile.warpgroup_activation` arith/math element by
      element (gated: each gate element's activation times its up element).
    - `tile.reduce` a `gpu.subgroup_reduce` per warp and, for warpgroups and
      blocks, the partials through a shared scratch between two barriers.

    `tile-to-ptx-pipeline` runs it after the target check and before the
    protocol check.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileLowerSubgroupReducePass : Pass<"tile-lower-subgroup-reduce"> {
  let summary = "lower gpu.subgroup_reduce to shuffles, or leave it to redux.sync";
  let description = [{
    Applies upstream's `populateGpuLowerSubgroupReduceToShufflePatterns` and
    `populateGpuLowerClusteredSubgroupReduceToShufflePatterns` (32 lanes,
    32-bit shuffles): each `gpu.subgroup_reduce` becomes a butterfly of
    `gpu.shuffle xor` (`shfl.sync.bfly`), after which every lane of the
    warp (of each cluster) holds the result. With `redux`, the reductions
    that convert-gpu-to-nvvm's `has-redux` lowers to `redux.sync` (sm_80+,
    PTX ISA "redux.sync": uniform, whole warp, i32 `add`, `minsi`, `maxsi`,
    `and`, `or`, `xor`) are left for it. A reduction neither can lower
    (64-bit values) is an error.

    `tile-to-ptx-pipeline` runs it on gpu.modules right before
    convert-gpu-to-nvvm, with `redux` from sm_80 on.
  }];
  let options = [
    Option<"redux", "redux", "bool", "false",
           "leave i32 whole-warp reductions to redux.sync (sm_80+)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileStreamOrderHostLaunchesPass
    : Pass<"tile-stream-order-host-launches", "mlir::ModuleOp"> {
  let summary = "issue the host's synchronous kernel launches back to back on one stream";
  let description = [{
    In each host `func.func` (not in a gpu.module), every synchronous
    `gpu.launch_func` becomes `gpu.launch_func async [%s]` on one stream `%s`
    created at function entry, so that consecutive launches, also those of
    a loop, run back to back without a host wait in between. The host
    synchronizes `%s` (`mgpuStreamSynchronize`) where a launch may still be
    pending and an op may observe memory a kernel uses: a GPU op other than
    such a launch, an op that reads, writes or frees memory other than
    `memref.alloca`s or has unknown effects (calls), a region op containing
    one (synchronized before it), and the function's returns, which also
    destroy `%s`. A loop without a launch gets no synchronization. A
    synchronous `gpu.memcpy`, `gpu.memset`, `gpu.alloc` or `gpu.dealloc`
    becomes the async op on a fresh stream, waited for right after it.
    Async GPU ops are left as they are; no token is carried through a loop.

    The stream is synchronized and destroyed by the runtime calls that
    `gpu-to-llvm` uses, applied to the stream pointer, not by `gpu.wait`:
    gpu-to-llvm records the event of `gpu.wait async [%s]` right after the
    definition of `%s`, and the canonicalizer erases `gpu.wait [%s]`, since
    a token of `gpu.wait async` without dependencies stands for no work.

    `tile-to-ptx-pipeline` runs it in place of `gpu-async-region`, after
    kernel outlining.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

#endif // TILE_TRANSFORMS_PASSES_TD
