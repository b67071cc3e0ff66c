//===- RunnerUtils.h - Printing helpers for JIT-run programs ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILERUN_RUNNERUTILS_H
#define TILE_TOOLS_TILERUN_RUNNERUTILS_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace tile {
/// Calls `callback` with the name and address of every printing helper
/// (printMemrefF32, printF32, printNewline, rtclock, ...) built into tile-run.
void forEachRunnerUtilsSymbol(
    llvm::function_ref<void(llvm::StringRef, void *)> callback);
} // namespace tile

#endif // TILE_TOOLS_TILERUN_RUNNERUTILS_H
