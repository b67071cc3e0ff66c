//===- MemorySpace.h - Which PTX state space a memref lives in --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_MEMORYSPACE_H
#define TILE_IR_MEMORYSPACE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ValueRange.h"

#include <optional>

namespace mlir::tile {

/// True for shared memory: address space 3 or `#gpu.address_space<workgroup>`.
bool isSharedMemory(MemRefType type);

/// True for global memory: no memory space, address space 0 or 1, or
/// `#gpu.address_space<global>` (generic pointers into global memory).
bool isGlobalMemory(MemRefType type);

/// True when the innermost dimension is contiguous (unit stride), so that a
/// vector of bytes starting at an element stays inside one row.
bool hasContiguousInnerDim(MemRefType type);

/// Bytes of one element of `type` when it is an integer or float of whole
/// bytes (the element types tile's memory rules are written for, T-SMEM-3);
/// nullopt for `index`, vectors, complex, i1 and the like.
std::optional<int64_t> getElementSizeInBytes(Type type);

/// The byte offset of `memref[indices]` from the memref's base pointer when
/// its layout and all indices are static (constants) and its elements have
/// a byte size (getElementSizeInBytes).
std::optional<int64_t> getStaticByteOffset(MemRefType type, ValueRange indices);

} // namespace mlir::tile

#endif // TILE_IR_MEMORYSPACE_H
