//===- Chip.h - The NVIDIA chips and PTX versions tile targets --*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_TARGET_CHIP_H
#define TILE_TARGET_CHIP_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace mlir::tile {

/// SM versions (compute capability times ten) of the chips below; ops name
/// their minimum with them in ODS (`Tile_MinSm<90>` is kSm90).
inline constexpr unsigned kSm75 = 75, kSm80 = 80, kSm86 = 86, kSm87 = 87,
                          kSm89 = 89, kSm90 = 90, kSm100 = 100, kSm120 = 120;

/// One chip tile can target.
struct ChipInfo {
  /// The name LLVM's NVPTX backend and ptxas use, e.g. "sm_90a".
  StringRef name;
  /// SM version as a number: 90 for sm_90 and sm_90a.
  unsigned smVersion;
  /// True for arch-specific targets ("a" suffix) that unlock wgmma,
  /// setmaxnreg and friends.
  bool archSpecific;
  /// Oldest PTX ISA version (times ten) with this target (PTX ISA,
  /// "PTX ISA version / target architecture" table).
  unsigned minPtxVersion;
};

/// PTX ISA versions (times ten) LLVM 22's NVPTX backend knows as `+ptxNN`.
ArrayRef<unsigned> getLLVMPtxVersions();

/// Newest PTX ISA version that LLVM 22 emits and ptxas 13.0 accepts (9.0).
inline constexpr unsigned kMaxPtxVersion = 90;

/// Every chip tile knows, oldest first.
ArrayRef<ChipInfo> getKnownChips();

/// Looks a chip up by name.
std::optional<ChipInfo> lookupChip(StringRef name);

/// The names of the known chips, comma separated, for diagnostics.
std::string getKnownChipNames();

/// The PTX feature to use for `chip` when the user gives none: PTX 8.0 (CUDA
/// 12.0, accepted by every driver that runs sm_90) or the chip's minimum if
/// that is newer.
std::string getDefaultPtxFeature(const ChipInfo &chip);

/// Parses a feature string `+ptxNN` into NN. Returns std::nullopt and sets
/// `error` when the string is not exactly one known PTX version.
std::optional<unsigned> parsePtxFeature(StringRef features, std::string &error);

} // namespace mlir::tile

#endif // TILE_TARGET_CHIP_H
