//===- TestLayoutAlgebra.cpp - Layout algebra on attributes ---------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile-test-layout-algebra: for every op carrying `tile.test.op =
// "<operation>"` and `tile.test.args = [#tile.layout<...>, ...]`, applies the
// operation of `Tile/Layout/Layout.h` and reports the result as a remark
// (`compose = ...`), or an inadmissible input as an error naming the failed
// condition. Operations: coalesce, complement (with `tile.test.cotarget`),
// compose, right_inverse, logical_divide, zipped_divide, tiled_divide (the
// second and later layouts are the tiler), logical_product, blocked_product,
// raked_product. It lets lit tests exercise the algebra the tile-level ops
// build on.
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileAttrs.h"
#include "Tile/IR/TileDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringSwitch.h"

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

struct TestLayoutAlgebraPass
    : PassWrapper<TestLayoutAlgebraPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLayoutAlgebraPass)

  StringRef getArgument() const final { return "tile-test-layout-algebra"; }
  StringRef getDescription() const final {
    return "evaluate layout-algebra operations written as attributes (testing "
           "aid)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<TileDialect>();
  }

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

namespace mlir::tile::test {
void registerTestLayoutAlgebraPass() {
  PassRegistration<TestLayoutAlgebraPass>();
}
} // namespace mlir::tile::test
