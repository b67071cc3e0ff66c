//===- Launch.h - Kernels, launches and waiting for them --------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Internal to libtile_runtime: the registry of loaded kernels (their names
// for diagnostics and the context each was loaded into) and the context
// text of errors that surface when a stream is waited for.
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LAUNCH_H
#define TILE_RUNTIME_LAUNCH_H

#include <cuda.h>

#include <string>

namespace tile_rt {

/// Records `function`, loaded as `name` into the context current now.
void registerKernel(CUfunction function, const char *name);

/// "last kernel launched: '<name>'" (or ""): the context of errors of calls
/// that wait, where asynchronous kernel faults surface.
std::string afterLastKernel();

} // namespace tile_rt

#endif // TILE_RUNTIME_LAUNCH_H
