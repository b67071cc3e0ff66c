//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILETYPES_TD
#define TILE_IR_TILETYPES_TD

include "Tile/IR/TileAttrs.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_AsyncGroupType : Tile_Type<"AsyncGroup", "async_group"> {
  let summary = "a committed group of cp.async copies";
  let description = [{
    The token produced by `tile.async_commit_group`. It names the group of
    cp.async copies committed at that point, so that waits and the protocol
    verifier can refer to it. It has no run-time value (it lowers to an i32
    that is never read).
  }];
}

def Tile_MBarrierTokenType : Tile_Type<"MBarrierToken", "mbarrier_token"> {
  let summary = "the state of an mbarrier phase, returned by an arrive";
  let description = [{
    The opaque 64-bit state that `mbarrier.arrive` returns and
    `mbarrier.test_wait`/`try_wait` take (PTX ISA, "mbarrier.arrive"). Lowers to
    i64.
  }];
}

def Tile_MBarrierType : Tile_Type<"MBarrier", "mbarrier"> {
  let summary = "a group of mbarrier objects in shared memory";
  let description = [{
    `count` mbarrier objects (8 bytes each, 8-byte aligned, in shared memory)
    used at `scope` `cta` (one CTA) or `cluster` (CTAs of a cluster arrive
    remotely). A ring of N pipeline stages uses `count = N`. Defaults: count 1,
    scope cta. Invariant T-MBAR-1.

    Example:
    ```mlir
    !tile.mbarrier
    !tile.mbarrier<count = 4, scope = cluster>
    ```
  }];
  let parameters = (ins "unsigned":$count, "MBarrierScope":$scope);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilder<(ins CArg<"unsigned", "1">:$count,
                     CArg<"MBarrierScope", "MBarrierScope::cta">:$scope), [{
      return $_get($_ctxt, count, scope);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Bytes of shared memory the group occupies.
    int64_t getSizeInBytes() const { return 8 * int64_t(getCount()); }
  }];
}

def Tile_TmaDescType : Tile_Type<"TmaDesc", "tma_desc"> {
  let summary = "a TMA tensor map: a global tensor, a box and its shared layout";
  let description = [{
    Describes a `CUtensorMap` in tiled mode: the global `tensor` (a memref type
    whose dynamic sizes are known only at encode time), the `box` copied per TMA
    operation (innermost dimension last, as in the memref), the `swizzle` of the
    shared-memory tile, L2 promotion, out-of-bounds fill and interleave.
    Defaults: swizzle none, l2promo none, oob zero, interleave none.
    Invariants T-TMA-1..9.

    **im2col mode** (convolutions): with `im2col_lower`/`im2col_upper` (the
    pixel bounding box corners, one per spatial dimension, outermost first,
    e.g. `[-pad_h, -pad_w]`), the tensor is NHWC-like (rank 3..5) and the box
    is `[pixels, channels]`: pixelsPerColumn pixels of channelsPerPixel
    channels each, the shared tile's shape (T-TMA-12, T-TMA-13, T-TMA-21).

    Example:
    ```mlir
    !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>
    !tile.tma_desc<memref<1024xf32>, box = [256], l2promo = b128, oob = nan>
    !tile.tma_desc<memref<1x8x8x64xf16>, box = [64, 64], im2col_lower = [-1, -1],
                   im2col_upper = [-1, -1], swizzle = b128>
    ```
  }];
  let parameters = (ins "MemRefType":$tensor,
                        ArrayRefParameter<"int64_t", "box shape">:$box,
                        "SwizzleAttr":$swizzle,
                        "TmaL2Promotion":$l2promo,
                        "TmaOobFill":$oob,
                        "TmaInterleave":$interleave,
                        OptionalArrayRefParameter<"int64_t", "im2col lower corner">:$im2colLower,
                        OptionalArrayRefParameter<"int64_t", "im2col upper corner">:$im2colUpper);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Element type of the tensor.
    Type getElementType() const { return getTensor().getElementType(); }
    /// True in im2col mode (box = [pixels, channels]).
    bool isIm2col() const { return !getIm2colLower().empty(); }
    /// Bytes copied by one TMA operation with this descriptor (the box).
    int64_t getBoxBytes() const;
    /// The shape of the shared-memory tile one TMA load writes: the box, with
    /// a swizzled inner dimension padded to the swizzle span (the hardware
    /// pads each row; e.g. a 32x16 f32 box with 128B swizzle).
    SmallVector<int64_t> getSharedTileShape() const;
    /// That tile as a memref in address space 3.
    MemRefType getSharedTileType() const;
  }];
}

#endif // TILE_IR_TILETYPES_TD
