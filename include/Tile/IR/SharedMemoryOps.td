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
    The swizzle is the buffer's layout for the swizzle-aware ops of the TMA
    issue; today it fixes the alignment. Plain `gpu.func` workgroup
    attributions only get their element alignment. Invariants T-SWZ-3..4.

    Example:
    ```mlir
    %tile = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_SwizzleAttr>:$swizzle,
                       OptionalAttr<I64Attr>:$alignment);
  let results = (outs AnyStaticShapeMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The byte alignment the buffer gets.
    int64_t getRequiredAlignment();
  }];
}

#endif // TILE_IR_SHAREDMEMORYOPS_TD
