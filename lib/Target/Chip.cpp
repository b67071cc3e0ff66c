//===- Chip.cpp - The NVIDIA chips and PTX versions tile targets ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/Target/Chip.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tile;

ArrayRef<unsigned> tile::getLLVMPtxVersions() {
  // `llc -mtriple=nvptx64 -mattr=help` of LLVM 22.1, from PTX 6.0 on.
  static const unsigned versions[] = {60, 61, 62, 63, 64, 65, 70, 71, 72,
                                      73, 74, 75, 76, 77, 78, 80, 81, 82,
                                      83, 84, 85, 86, 87, 88, 90};
  return versions;
}

ArrayRef<ChipInfo> tile::getKnownChips() {
  // Minimum PTX versions from the PTX ISA's target table (and LLVM 22's
  // NVPTX.td, which rejects anything older with a fatal error).
  static const ChipInfo chips[] = {
      {"sm_75", kSm75, false, 63},   {"sm_80", kSm80, false, 70},
      {"sm_86", kSm86, false, 71},   {"sm_87", kSm87, false, 74},
      {"sm_89", kSm89, false, 78},   {"sm_90", kSm90, false, 78},
      {"sm_90a", kSm90, true, 80},   {"sm_100", kSm100, false, 86},
      {"sm_100a", kSm100, true, 86}, {"sm_120", kSm120, false, 87},
      {"sm_120a", kSm120, true, 87},
  };
  return chips;
}

std::optional<ChipInfo> tile::lookupChip(StringRef name) {
  for (const ChipInfo &chip : getKnownChips())
    if (chip.name == name)
      return chip;
  return std::nullopt;
}

std::string tile::getKnownChipNames() {
  return llvm::join(llvm::map_range(getKnownChips(),
                                    [](const ChipInfo &c) { return c.name; }),
                    ", ");
}

std::string tile::getDefaultPtxFeature(const ChipInfo &chip) {
  constexpr unsigned kDefaultPtx = 80;
  return "+ptx" + std::to_string(std::max(kDefaultPtx, chip.minPtxVersion));
}

std::optional<unsigned> tile::parsePtxFeature(StringRef features,
                                              std::string &error) {
  StringRef digits = features.trim();
  unsigned version = 0;
  if (!digits.consume_front("+ptx") || digits.getAsInteger(10, version)) {
    error = "expected a PTX feature of the form '+ptxNN' (e.g. +ptx80), got '" +
            features.str() + "'";
    return std::nullopt;
  }
  if (!llvm::is_contained(getLLVMPtxVersions(), version)) {
    error = "'" + features.str() +
            "' is not a PTX version LLVM 22 can emit; known: " +
            llvm::join(llvm::map_range(getLLVMPtxVersions(),
                                       [](unsigned v) {
                                         return "+ptx" + std::to_string(v);
                                       }),
                       ", ");
    return std::nullopt;
  }
  return version;
}
