//===- TileTranslateMain.cpp - Translations out of lowered tile modules --===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// `--mlir-to-llvmir` plus `--extract-ptx`, which prints the PTX that
// `tile-to-ptx-pipeline{format=isa}` stores (escaped) inside gpu.binary ops,
// and `--kernel-manifest`, which prints the kernels' launch ABI that the
// pipeline records (tile-kernel-manifest) as JSON.
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"
#include "Tile/InitAllTile.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

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
        ptxObjects.emplace_back(binary.getName(),
                                object.getObject().getValue());
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

/// The JSON value of a manifest attribute: dictionaries, arrays, strings,
/// integers and booleans.
static llvm::json::Value toJson(Attribute attr) {
  if (auto dict = dyn_cast<DictionaryAttr>(attr)) {
    llvm::json::Object object;
    for (NamedAttribute entry : dict)
      object[entry.getName().getValue()] = toJson(entry.getValue());
    return object;
  }
  if (auto array = dyn_cast<ArrayAttr>(attr))
    return llvm::json::Array(llvm::map_range(
        array, [](Attribute element) { return toJson(element); }));
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return boolean.getValue();
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return integer.getInt();
  if (auto string = dyn_cast<StringAttr>(attr))
    return string.getValue();
  return llvm::json::Value(nullptr);
}

/// The JSON names of the encoder parameter kinds.
template <typename Fn> static llvm::json::Array abiOf() {
  llvm::json::Array kinds;
  for (tile_tma::AbiKind kind : tile_tma::AbiOf<Fn>::kinds)
    kinds.push_back(kind == tile_tma::AbiKind::pointer ? "pointer" : "i64");
  return kinds;
}

/// What a launcher in another language needs of the tensor-map contract
/// (TensorMapContract.h): the map's size and alignment, the element types
/// with their bytes and driver data types, and the encoders' symbols and
/// parameter kinds.
static llvm::json::Object contractJson() {
  namespace tma = tile_tma;
  llvm::json::Object elements;
  for (const tma::ElementType &type : tma::kElementTypes)
    elements[std::string(type.name)] = llvm::json::Object{
        {"bytes", type.bytes}, {"data_type", int64_t(type.dataType)}};
  return llvm::json::Object{
      {"tensor_map", llvm::json::Object{{"bytes", tma::kTensorMapBytes},
                                        {"alignment",
                                         tma::kTensorMapAlignment}}},
      {"element_types", std::move(elements)},
      {"encoders",
       llvm::json::Object{
           {"tiled",
            llvm::json::Object{{"symbol", tma::kEncodeTiledSymbol},
                               {"abi", abiOf<tma::EncodeTiledFn>()}}},
           {"im2col",
            llvm::json::Object{{"symbol", tma::kEncodeIm2colSymbol},
                               {"abi", abiOf<tma::EncodeIm2colFn>()}}}}}};
}

/// Prints the module's `tile.kernel_manifest` as JSON:
/// {"kernels": {"<name>": {"module", "params", "dynamic_shared_bytes",
/// "block"?, "cluster"?}}, "contract": {...}}.
static LogicalResult printKernelManifest(Operation *op, raw_ostream &os) {
  auto manifest = op->getAttrOfType<DictionaryAttr>("tile.kernel_manifest");
  if (!manifest)
    return op->emitError() << "no tile.kernel_manifest: run "
                              "tile-to-ptx-pipeline (or tile-kernel-manifest)";
  llvm::json::Object root;
  root["kernels"] = toJson(manifest);
  root["contract"] = contractJson();
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
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
  TranslateFromMLIRRegistration manifest(
      "kernel-manifest", "print the kernels' launch ABI as JSON",
      printKernelManifest, [](DialectRegistry &registry) {
        registerAllDialects(registry);
        registerAllExtensions(registry);
        mlir::tile::registerAllTileDialects(registry);
      });
  return failed(mlirTranslateMain(argc, argv, "tile translation driver"));
}
