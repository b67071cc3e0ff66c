//===- SharedBuffer.h - Where a shared-memory memref comes from -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The alignment and swizzle of a shared-memory buffer are properties of its
// allocation (tile.shared_alloc, memref.global, a gpu.func workgroup
// attribution), not of its memref type; verifiers and passes that need them
// trace the value back to it.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_SHAREDBUFFER_H
#define TILE_IR_SHAREDBUFFER_H

#include "Tile/IR/TileAttrs.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace mlir::tile {

/// What is known about the allocation of a shared-memory memref value.
struct SharedBufferInfo {
  /// The guaranteed byte alignment of the buffer's start, if known.
  std::optional<int64_t> alignment;
  /// The buffer's swizzle (identity when it has none), if known.
  std::optional<SwizzleAttr> swizzle;
  /// The allocating op, or null for a workgroup attribution / unknown source.
  Operation *allocation = nullptr;
  /// What the allocation is, for diagnostics: " (buffer from ...)" or "".
  std::string describe() const;
  std::string kind;
};

/// Where the dynamic `tile.shared_alloc` buffers of one kernel body go.
struct DynamicSharedLayout {
  /// Byte offset of each dynamic buffer from the base, in program order.
  llvm::SmallVector<std::pair<Operation *, int64_t>> offsets;
  /// Bytes the kernel needs at launch.
  int64_t totalBytes = 0;
  /// The largest alignment of a buffer (the base is aligned to it).
  int64_t maxAlignment = 1;
};

/// Places the dynamic buffers allocated in `body` (a gpu.func or gpu.launch
/// body) in program order, each at its required alignment.
DynamicSharedLayout layoutDynamicSharedMemory(Region &body);

/// Alignment of the base of the dynamic shared memory tile declares: enough
/// for any swizzle repeat of a TMA mode.
inline constexpr int64_t kDynamicSharedBaseAlignment = 1024;

/// An op's access of elements of a buffer through one of its operands: the
/// memref operand, the index operands, and the bytes one thread accesses.
struct ElementAccess {
  OpOperand *memref;
  MutableOperandRange indices;
  int64_t bytes;
  /// A vector access of rank > 1, which need not be contiguous.
  bool multiDimensional = false;
  /// A write (store, stmatrix, the destination of a cp.async), else a read.
  bool writes = false;
};

/// The element access `use` is, for the ops that index a shared buffer
/// element by element: memref.load/store, vector.load/store, ldmatrix and
/// stmatrix (one 16-byte row per thread) and the destination of
/// tile.async_copy. Passes that rewrite such accesses (swizzle, pipeline
/// stages) share this list.
std::optional<ElementAccess> getElementAccess(OpOperand &use);

/// Traces `buffer` to its allocation. Unknown sources (function arguments,
/// views) give an info with nothing known.
SharedBufferInfo getSharedBufferInfo(Value buffer);

} // namespace mlir::tile

#endif // TILE_IR_SHAREDBUFFER_H
