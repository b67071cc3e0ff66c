//===- VerifyAsyncProtocol.cpp - The tile-verify-async-protocol pass ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Runs the async-protocol checker (Tile/Analysis/AsyncProtocol.h) on every
// function with a body.
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/AsyncProtocol.h"
#include "Tile/Transforms/Passes.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEVERIFYASYNCPROTOCOLPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct TileVerifyAsyncProtocolPass
    : tile::impl::TileVerifyAsyncProtocolPassBase<TileVerifyAsyncProtocolPass> {
  using Base::Base;
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](FunctionOpInterface function) {
      if (!function.isExternal() &&
          mlir::failed(verifyAsyncProtocol(function, explainRoles)))
        failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
