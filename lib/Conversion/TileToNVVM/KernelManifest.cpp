//===- KernelManifest.cpp - Every kernel's launch ABI, on the module ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile-kernel-manifest records what a launcher must know to call each kernel
// without reading IR: the parameters in order and how each is passed, the
// dynamic shared memory the kernel's buffers need, and the block and cluster
// shapes where they are fixed. Tensor-map parameters carry every encoding
// parameter with the contract's CUDA enum values (TensorMapContract.h).
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEKERNELMANIFESTPASS
#include "Tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
namespace tma = ::tile_tma;

namespace {

/// Builds the manifest's attributes.
class ManifestBuilder {
public:
  explicit ManifestBuilder(MLIRContext *ctx) : b(ctx) {}

  /// The MLIR spelling of `type` ("f16", "index", ...).
  StringAttr typeName(Type type) {
    std::string name;
    llvm::raw_string_ostream(name) << type;
    return b.getStringAttr(name);
  }

  /// Static sizes, -1 where dynamic.
  ArrayAttr shape(ArrayRef<int64_t> sizes) {
    return b.getI64ArrayAttr(
        llvm::to_vector(llvm::map_range(sizes, [](int64_t size) {
          return ShapedType::isDynamic(size) ? int64_t(-1) : size;
        })));
  }

  DictionaryAttr param(Type type) {
    SmallVector<NamedAttribute> fields;
    auto add = [&](StringRef name, Attribute value) {
      fields.push_back(b.getNamedAttr(name, value));
    };
    if (auto memref = dyn_cast<MemRefType>(type)) {
      add("kind", b.getStringAttr("memref"));
      add("rank", b.getI64IntegerAttr(memref.getRank()));
      add("element", typeName(memref.getElementType()));
      add("shape", shape(memref.getShape()));
    } else if (auto desc = dyn_cast<TmaDescType>(type)) {
      MemRefType tensor = desc.getTensor();
      add("kind", b.getStringAttr("tensor_map"));
      add("bytes", b.getI64IntegerAttr(tma::kTensorMapBytes));
      add("alignment", b.getI64IntegerAttr(tma::kTensorMapAlignment));
      add("rank", b.getI64IntegerAttr(tensor.getRank()));
      add("element", typeName(desc.getElementType()));
      add("data_type", b.getI64IntegerAttr(int64_t(
                           *getTensorMapDataType(desc.getElementType()))));
      add("shape", shape(tensor.getShape()));
      add("box", b.getI64ArrayAttr(desc.getBox()));
      add("swizzle",
          b.getI64IntegerAttr(int64_t(*desc.getSwizzle().getTmaMode())));
      add("interleave", b.getI64IntegerAttr(int64_t(desc.getInterleave())));
      add("l2_promotion", b.getI64IntegerAttr(int64_t(desc.getL2promo())));
      add("oob_fill", b.getI64IntegerAttr(int64_t(desc.getOob())));
      if (desc.isIm2col()) {
        add("im2col_lower", b.getI64ArrayAttr(desc.getIm2colLower()));
        add("im2col_upper", b.getI64ArrayAttr(desc.getIm2colUpper()));
      }
    } else {
      add("kind", b.getStringAttr("scalar"));
      add("type", typeName(type));
    }
    return b.getDictionaryAttr(fields);
  }

  Builder b;
};

/// The constant x, y, z of `dims`, or nullopt when one is not constant.
std::optional<SmallVector<int64_t>> constantDims(gpu::KernelDim3 dims) {
  SmallVector<int64_t> result;
  for (Value dim : {dims.x, dims.y, dims.z}) {
    APInt value;
    if (!matchPattern(dim, m_ConstantInt(&value)))
      return std::nullopt;
    result.push_back(value.getSExtValue());
  }
  return result;
}

struct TileKernelManifestPass
    : tile::impl::TileKernelManifestPassBase<TileKernelManifestPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ManifestBuilder manifest(&getContext());
    Builder &b = manifest.b;

    // The block and cluster shapes of each kernel's launches; a kernel
    // launched with different (or run-time) shapes gets none.
    llvm::DenseMap<Operation *, std::optional<SmallVector<int64_t>>> blocks,
        clusters;
    auto agree = [](auto &shapes, Operation *kernel,
                    std::optional<SmallVector<int64_t>> shape) {
      auto [it, fresh] = shapes.try_emplace(kernel, shape);
      if (!fresh && it->second != shape)
        it->second = std::nullopt;
    };
    module.walk([&](gpu::LaunchFuncOp launch) {
      Operation *kernel =
          SymbolTable::lookupNearestSymbolFrom(launch, launch.getKernel());
      if (!kernel)
        return;
      agree(blocks, kernel, constantDims(launch.getBlockSizeOperandValues()));
      agree(clusters, kernel,
            launch.hasClusterSize()
                ? constantDims(launch.getClusterSizeOperandValues())
                : SmallVector<int64_t>{1, 1, 1});
    });

    SmallVector<NamedAttribute> kernels;
    llvm::StringMap<gpu::GPUFuncOp> byName;
    WalkResult walk = module.walk([&](gpu::GPUFuncOp kernel) {
      if (!kernel.isKernel())
        return WalkResult::advance();
      // Launchers find kernels by name, as in the PTX.
      auto [it, fresh] = byName.try_emplace(kernel.getName(), kernel);
      if (!fresh) {
        kernel.emitError() << "kernel name '" << kernel.getName()
                           << "' is used by another gpu.module too; the "
                              "kernel manifest names kernels by name alone";
        return WalkResult::interrupt();
      }
      SmallVector<NamedAttribute> fields;
      auto add = [&](StringRef name, Attribute value) {
        fields.push_back(b.getNamedAttr(name, value));
      };
      auto gpuModule = kernel->getParentOfType<gpu::GPUModuleOp>();
      add("module", b.getStringAttr(gpuModule ? gpuModule.getName() : ""));
      add("params", b.getArrayAttr(llvm::to_vector(llvm::map_range(
                        kernel.getArgumentTypes(), [&](Type type) -> Attribute {
                          return manifest.param(type);
                        }))));
      add("dynamic_shared_bytes",
          b.getI64IntegerAttr(
              layoutDynamicSharedMemory(kernel.getBody()).totalBytes));
      std::optional<SmallVector<int64_t>> block = blocks.lookup(kernel);
      if (std::optional<ArrayRef<int32_t>> known = kernel.getKnownBlockSize())
        block = llvm::to_vector_of<int64_t>(*known);
      if (block)
        add("block", b.getI64ArrayAttr(*block));
      if (std::optional<SmallVector<int64_t>> cluster = clusters.lookup(kernel))
        add("cluster", b.getI64ArrayAttr(*cluster));
      kernels.push_back(
          b.getNamedAttr(kernel.getName(), b.getDictionaryAttr(fields)));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    module->setAttr("tile.kernel_manifest", b.getDictionaryAttr(kernels));
  }
};
} // namespace
