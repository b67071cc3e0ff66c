//===- MemRefDescriptor.h - MLIR's ranked memref descriptor ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to libtile_runtime: a ranked memref as MLIR passes it to the mgpu*
// and tensor-map entry points (and Python builds it for the encoders).
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_MEMREFDESCRIPTOR_H
#define TILE_RUNTIME_MEMREFDESCRIPTOR_H

#include <cstdint>

namespace tile_rt {

/// Allocated and aligned pointers, offset, then `rank` sizes and `rank`
/// strides (in elements).
struct MemRefDescriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

} // namespace tile_rt

#endif // TILE_RUNTIME_MEMREFDESCRIPTOR_H
