//===- Addresses.h - Pointers the tile lowerings share ----------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETONVVM_ADDRESSES_H
#define TILE_LIB_CONVERSION_TILETONVVM_ADDRESSES_H

#include "mlir/IR/Builders.h"

namespace mlir::tile {

class BarrierOpInterface;

/// The address of barrier `index` of the group starting at `base`.
Value getBarrierAddress(OpBuilder &builder, Location loc, Value base,
                        Value index);

/// The address of the barrier that `op` names, from `operands`, the
/// converted operands of `op` (a pattern's adaptor.getOperands()).
Value getBarrierAddress(OpBuilder &builder, BarrierOpInterface op,
                        ValueRange operands);

/// A generic pointer into global memory as a .global pointer.
Value toGlobalPointer(OpBuilder &builder, Location loc, Value ptr);

/// This CTA's shared::cta pointer as a shared::cluster one: the destination
/// form of cp.async.bulk{.tensor} that PTX 8.0 has (the shared::cta form
/// needs PTX 8.6, and LLVM 22 aborts on it below that).
Value toSharedCluster(OpBuilder &builder, Location loc, Value ptr);

/// The shared::cluster address of `ptr`'s object in the CTA of cluster
/// rank `rank` (mapa).
Value mapToCta(OpBuilder &builder, Location loc, Value ptr, Value rank);

} // namespace mlir::tile

#endif // TILE_LIB_CONVERSION_TILETONVVM_ADDRESSES_H
