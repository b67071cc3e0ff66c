//===- TestLayoutAlgebra.cpp - Layout algebra on attributes (testing aid) -===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileAttrs.h"
#include "Tile/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILETESTLAYOUTALGEBRAPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Applies `name` to `args`.
llvm::Expected<Layout> apply(StringRef name, ArrayRef<Layout> args,
                             std::optional<int64_t> cotarget) {
  auto fail = [](const Twine &message) -> llvm::Error {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   message.str());
  };
  size_t arity =
      llvm::StringSwitch<size_t>(name)
          .Cases({"coalesce", "complement", "right_inverse"}, 1)
          .Cases({"zipped_divide", "tiled_divide", "logical_divide"}, 0)
          .Default(2);
  if (arity && args.size() != arity)
    return fail(name + " takes " + Twine(arity) + " layout(s), got " +
                Twine(args.size()));
  if (!arity && args.size() < 2)
    return fail(name + " takes a layout and a tiler");
  ArrayRef<Layout> tiler = args.drop_front();
  if (name == "coalesce")
    return coalesce(args[0]);
  if (name == "complement") {
    if (!cotarget)
      return fail("complement needs tile.test.cotarget");
    return complement(args[0], *cotarget);
  }
  if (name == "right_inverse")
    return rightInverse(args[0]);
  if (name == "compose")
    return composition(args[0], args[1]);
  if (name == "logical_divide")
    return tiler.size() == 1 ? logicalDivide(args[0], tiler[0])
                             : logicalDivide(args[0], tiler);
  if (name == "zipped_divide")
    return zippedDivide(args[0], tiler);
  if (name == "tiled_divide")
    return tiledDivide(args[0], tiler);
  if (name == "logical_product")
    return logicalProduct(args[0], args[1]);
  if (name == "blocked_product")
    return blockedProduct(args[0], args[1]);
  if (name == "raked_product")
    return rakedProduct(args[0], args[1]);
  return fail("unknown layout operation '" + name + "'");
}

struct TileTestLayoutAlgebraPass
    : tile::impl::TileTestLayoutAlgebraPassBase<TileTestLayoutAlgebraPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      auto name = op->getAttrOfType<StringAttr>("tile.test.op");
      auto argsAttr = op->getAttrOfType<ArrayAttr>("tile.test.args");
      if (!name || !argsAttr)
        return;
      SmallVector<Layout> args;
      for (Attribute arg : argsAttr) {
        auto layout = dyn_cast<LayoutAttr>(arg);
        if (!layout) {
          op->emitError() << "tile.test.args must hold #tile.layout attributes";
          return;
        }
        args.push_back(layout.getLayout());
      }
      std::optional<int64_t> cotarget;
      if (auto attr = op->getAttrOfType<IntegerAttr>("tile.test.cotarget"))
        cotarget = attr.getInt();
      llvm::Expected<Layout> result = apply(name.getValue(), args, cotarget);
      if (!result) {
        op->emitError() << name.getValue() << ": "
                        << llvm::toString(result.takeError());
        return;
      }
      op->emitRemark() << name.getValue() << " = "
                       << LayoutAttr::get(op->getContext(), *result);
    });
  }
};

} // namespace
