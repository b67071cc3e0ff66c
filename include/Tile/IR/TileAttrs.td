//===- TileAttrs.td - Attributes of the tile dialect -------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEATTRS_TD
#define TILE_IR_TILEATTRS_TD

include "Tile/IR/TileEnums.td"
include "mlir/IR/AttrTypeBase.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "CuTe Swizzle<B, M, S> on shared-memory byte offsets";
  let description = [{
    The XOR swizzle of CuTe (cute/swizzle.hpp, `Swizzle<B, M, S>`) applied to **byte**
    offsets into a shared-memory buffer: the B bits starting at bit M + S are
    XOR-ed into the B bits starting at bit M,

    ```
    swizzle(o) = o ^ ((o & (((1 << B) - 1) << (M + S))) >> S)      (S >= 0)
    ```

    It is the single source of truth for a buffer's layout: the TMA swizzle mode,
    the buffer's required alignment and every address computed into the buffer
    derive from it. The three TMA modes are named aliases and print as such:

    | alias  | Swizzle<B, M, S> | span (bytes) | repeats every (= alignment) |
    |--------|------------------|--------------|------------------------------|
    | `none` | <0, 4, 3>        | -            | 16 B (128 B for TMA, T-TMA-10) |
    | `b32`  | <1, 4, 3>        | 32           | 256 B                        |
    | `b64`  | <2, 4, 3>        | 64           | 512 B                        |
    | `b128` | <3, 4, 3>        | 128          | 1024 B                       |

    A CuTe swizzle written on element offsets of a 2^k-byte element type,
    Swizzle<B, M, S>, is Swizzle<B, M + k, S> here (CuTe's Swizzle<3, 3, 3>
    on f16 is `b128`). Invariants T-SWZ-1..2.

    Example:
    ```mlir
    #tile.swizzle<b128>
    #tile.swizzle<2, 4, 3>
    ```
  }];
  let parameters = (ins "int32_t":$bits, "int32_t":$base, "int32_t":$shift);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "TmaSwizzleMode":$mode), [{
      return $_get($_ctxt, static_cast<int32_t>(mode), 4, 3);
    }]>
  ];
  let extraClassDeclaration = [{
    /// True when the swizzle maps every offset to itself (B == 0).
    bool isIdentity() const { return getBits() == 0; }
    /// Applies the swizzle to a byte offset.
    int64_t apply(int64_t offset) const;
    /// The TMA mode this swizzle is, if it is one of the four TMA layouts.
    std::optional<TmaSwizzleMode> getTmaMode() const;
    /// Bytes after which the swizzle pattern repeats: 2^(B + M + |S|). A buffer
    /// read through this swizzle must be aligned to it (T-SWZ-3).
    int64_t getRepeatBytes() const;
    /// The width in bytes of one swizzled row: 2^(M + B) for a TMA mode; the
    /// TMA box's inner dimension may not exceed it (T-TMA-6).
    int64_t getSpanBytes() const;
  }];
}

def Tile_LayoutAttr : Tile_Attr<"Layout", "layout"> {
  let summary = "a CuTe layout: a hierarchical shape and a congruent stride";
  let description = [{
    `#tile.layout<shape:stride>` is CuTe's layout (CuTe docs, "CuTe Layout
    Algebra"): the function from a coordinate in `shape` (nested tuples of
    positive integers, colexicographic) to the sum of coordinate times
    stride. `getLayout()` gives the C++ layout algebra of
    `Tile/Layout/Layout.h` (composition, complement, divides, products,
    right inverse). A stride may be omitted for the compact column-major
    layout of the shape.

    Example:
    ```mlir
    #tile.layout<(4,2,2):(2,1,8)>
    #tile.layout<((2,2),(3,2)):((1,4),(8,24))>
    #tile.layout<(8,64)>        // (8,64):(1,8)
    ```
  }];
  let parameters = (ins "Attribute":$shape, "Attribute":$stride);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout as a value of the layout algebra.
    ::mlir::tile::Layout getLayout() const;
    /// The attribute of a layout.
    static LayoutAttr get(::mlir::MLIRContext *context,
                          const ::mlir::tile::Layout &layout);
  }];
}

#endif // TILE_IR_TILEATTRS_TD
