//===- GridDependencyOps.td - Programmatic dependent launch -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "griddepcontrol"; CUDA Programming Guide, "Programmatic Dependent
// Launch and Synchronization". A kernel launched with the driver's
// CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION may start while the
// kernel before it on the stream still runs: its CTAs set up shared memory
// and warm L2 on the SMs that kernel leaves idle, then wait for it.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_GRIDDEPENDENCYOPS_TD
#define TILE_IR_GRIDDEPENDENCYOPS_TD

include "Tile/IR/TileTypes.td"
include "Tile/IR/TileInterfaces.td"

def Tile_GridDependencyWaitOp : Tile_Op<"grid_dependency_wait", [Tile_MinSm<90>]> {
  let summary = "wait for the grids this kernel's launch depends on";
  let description = [{
    `griddepcontrol.wait`: blocks the thread until every grid that this
    kernel's launch depends on (the previous kernel of its stream, when it was
    launched as a programmatic dependent) has completed and its memory
    operations are visible. A kernel that holds it is launched as a dependent
    by tile's launchers (the kernel manifest's `dependent_launch`); launched
    otherwise, the wait returns at once. Requires sm_90.

    T-PDL-1: it sits directly in the body of a `gpu.func` kernel or of a
    `gpu.launch` (its entry block, not inside a region), once: every thread
    passes it before it touches global memory. T-PDL-2: nothing before it reads or writes global
    memory (the previous grid may still write what it reads, or read what it
    writes): shared memory, barriers, `tma_prefetch_descriptor`,
    `tma_prefetch` and `bulk_prefetch` (into L2, which the previous grid's
    writes go through: a stale line cannot be read) are allowed.

    Example:
    ```mlir
    tile.tma_prefetch %weights[%row, %c0] : !tile.tma_desc<memref<?x?xbf16>, box = [64, 64]>
    tile.grid_dependency_wait
    ```
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_LaunchDependentsOp : Tile_Op<"launch_dependents", [Tile_MinSm<90>]> {
  let summary = "let the next kernel of the stream start launching";
  let description = [{
    `griddepcontrol.launch_dependents`: once every CTA of this grid has run
    it (or exited), the dependent kernel launched after it may start its
    CTAs on free SMs; they still wait (`tile.grid_dependency_wait`) for this
    grid to complete before they read its results, so issuing it early is
    safe. Without it the dependent starts as this grid completes. Requires
    sm_90.

    Example:
    ```mlir
    tile.launch_dependents
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // TILE_IR_GRIDDEPENDENCYOPS_TD
