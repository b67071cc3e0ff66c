//===- TileTraits.h - Native op traits of the tile dialect ------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILETRAITS_H
#define TILE_IR_TILETRAITS_H

#include "Tile/Target/Chip.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::tile {

/// The oldest target of an op, declared in ODS with `Tile_MinSm<90>` (or
/// `Tile_MinSmArch<90>` for sm_90a); TargetDependentOpInterface's defaults
/// return these constants (T-TARGET-3).
template <unsigned SmVersion, bool ArchSpecific = false> struct MinSmVersion {
  template <typename ConcreteType>
  class Impl : public OpTrait::TraitBase<ConcreteType, Impl> {
  public:
    static constexpr unsigned kMinSmVersion = SmVersion;
    static constexpr bool kRequiresArchSpecificTarget = ArchSpecific;
  };
};

} // namespace mlir::tile

#endif // TILE_IR_TILETRAITS_H
