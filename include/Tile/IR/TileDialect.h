//===- TileDialect.h - The tile dialect -------------------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEDIALECT_H
#define TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "Tile/IR/TileOpsDialect.h.inc"

#endif // TILE_IR_TILEDIALECT_H
