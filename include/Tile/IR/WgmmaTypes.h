//===- WgmmaTypes.h - The operand types wgmma multiplies --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate",
// "Matrix shape": the floating-point input types of wgmma.mma_async and the
// K of one instruction (32 bytes of K: k16 for f16/bf16, k32 for e4m3/e5m2).
// The verifiers of tile.wgmma and tile.warpgroup_mma and the lowering that
// steps K (T-WGMMA-2, T-WGMMA-3) all read the rule from here.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_WGMMATYPES_H
#define TILE_IR_WGMMATYPES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Types.h"
#include <cstdint>
#include <optional>

namespace mlir::tile {

/// Bytes of K one wgmma.mma_async multiplies, whatever the input type.
inline constexpr int64_t kWgmmaKBytes = 32;

/// The shared-address bits a wgmma matrix descriptor encodes: its address
/// and byte-offset fields are encode(x) = (x & 0x3FFFF) >> 4 (PTX ISA,
/// "Matrix Descriptor Format"), 14 bits each.
inline constexpr int64_t kWgmmaAddressMask = 0x3FFFF;

/// Whether `type` is an 8-bit float wgmma takes (e4m3 = f8E4M3FN, e5m2 =
/// f8E5M2).
bool isWgmmaFp8(Type type);

/// The K of one wgmma.mma_async with A of type `a` and B of type `b`: 16 for
/// f16 x f16 and bf16 x bf16, 32 for any pair of e4m3/e5m2; none for a pair
/// wgmma does not multiply (with f32 accumulators).
std::optional<int64_t> getWgmmaInstructionK(Type a, Type b);

/// Whether wgmma accumulates A (`a`) times B (`b`) in `acc`: f32 always, f16
/// for f16 and 8-bit float inputs (PTX ISA, "wgmma.mma_async": .f16 D is
/// not available with .bf16 inputs).
bool isWgmmaAccumulatorType(Type acc, Type a, Type b);

/// The bytes between the 8-row groups of a tile of row groups (T-WGMMA-6),
/// `type` ending with (groups, chunks, 8, span): the stride of its groups'
/// dimension, the descriptor's stride byte offset.
int64_t getRowGroupStrideBytes(MemRefType type);

} // namespace mlir::tile

#endif // TILE_IR_WGMMATYPES_H
