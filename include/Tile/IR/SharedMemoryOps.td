//===- SharedMemoryOps.td - Shared-memory buffers ----------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_SHAREDMEMORYOPS_TD
#define TILE_IR_SHAREDMEMORYOPS_TD

include "Tile/IR/TileTypes.td"

def Tile_SharedAllocOp : Tile_Op<"shared_alloc"> {
  let summary = "a static shared-memory buffer aligned for its async users";
  let description = [{
    Places a static shared-memory buffer at an alignment that every async
    access to it can rely on: at least 128 bytes (TMA's minimum, which also
    covers 16-byte cp.async and bulk copies), the repeat of its `swizzle`
    (1024/512/256 bytes for b128/b64/b32, T-SWZ-3) and `alignment` if given.
    The swizzle is the buffer's physical layout: TMA ops check that their
    descriptor's swizzle agrees (T-SWZ-5) and `tile-swizzle-accesses` routes
    generic loads and stores through it. Plain `gpu.func` workgroup
    attributions only get their element alignment. Invariants T-SWZ-3..4.

    With `dynamic`, the buffer lives in the kernel's dynamic shared memory
    (beyond the 48 KB of static shared memory, up to 227 KB): the buffers of
    a kernel are placed in program order at their alignments after the
    1024-byte-aligned base, and every launch of the kernel must provide at
    least their total as `dynamic_shared_memory_size` (T-SMEM-1..2).

    Example:
    ```mlir
    %tile = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x64xf16, 3>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_SwizzleAttr>:$swizzle,
                       OptionalAttr<I64Attr>:$alignment,
                       UnitAttr:$dynamic);
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat = "(`dynamic` $dynamic^)? attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The byte alignment the buffer gets.
    int64_t getRequiredAlignment();
    /// The buffer's size in bytes.
    int64_t getSizeInBytes();
  }];
}

#endif // TILE_IR_SHAREDMEMORYOPS_TD
