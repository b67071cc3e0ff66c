//===- TileTranslateMain.cpp - Translations out of lowered tile modules --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `--mlir-to-llvmir` plus `--extract-ptx`, which prints the PTX that
// `tile-to-ptx-pipeline{format=isa}` stores (escaped) inside gpu.binary ops.
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"
#include "Tile/InitAllTile.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

namespace mlir {
void registerToLLVMIRTranslation();
} // namespace mlir

using namespace mlir;

/// Writes the text of every PTX (assembly) object of every gpu.binary in
/// `op`, each preceded by a `// gpu.binary @name` line when there are several.
static LogicalResult extractPtx(Operation *op, raw_ostream &os) {
  SmallVector<std::pair<StringRef, StringRef>> ptxObjects;
  op->walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(attr);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        ptxObjects.emplace_back(binary.getName(), object.getObject().getValue());
    }
  });
  if (ptxObjects.empty())
    return op->emitError()
           << "no PTX found: expected a gpu.binary with an assembly object; "
              "run tile-to-ptx-pipeline with format=isa";
  for (auto [name, ptx] : ptxObjects) {
    if (ptxObjects.size() > 1)
      os << "// gpu.binary @" << name << "\n";
    os << ptx;
  }
  return success();
}

int ::tile::tileTranslateMain(int argc, char **argv) {
  registerToLLVMIRTranslation();
  TranslateFromMLIRRegistration extract(
      "extract-ptx", "print the PTX held by gpu.binary ops", extractPtx,
      [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerAllExtensions(registry);
        mlir::tile::registerAllTileDialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "tile translation driver"));
}
