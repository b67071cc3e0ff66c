//===- KernelManifest.cpp - Every kernel's launch ABI, on the module ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// tile-kernel-manifest records what a launcher must know to call each kernel
// without reading IR: the parameters in order and how each is passed, the
// dynamic shared memory the kernel's buffers need, and the block and cluster
// shapes where they are fixed. Memref parameters carry their layout (strides
// and offset, -1 where dynamic as in `shape`; whether it is the identity)
// and whether the kernel may write through them, and the alignment of their
// base address that the compiled code assumes; a layout that is not strided
// has no memref descriptor a launcher could fill and is rejected.
// Tensor-map parameters carry every encoding parameter with the contract's
// CUDA enum values (TensorMapContract.h). `dependent_launch` says that the
// kernel waits for the grids before it (tile.grid_dependency_wait), so a
// launcher may start it as a programmatic dependent.
//===----------------------------------------------------------------------===//

#include "Tile/Conversion/Passes.h"
#include "Tile/IR/Diagnostics.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/TileTypes.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/AlignmentAttrInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEKERNELMANIFESTPASS
#include "Tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;
namespace tma = ::tile_tma;

namespace {

/// Whether `visit(value, user, work)` returns true for a user of `root` or
/// of a value it pushed onto `work` (each value visited once): the use walk
/// of the manifest's analyses, which differ in what they follow.
template <typename Visit> bool anyUserThrough(Value root, Visit visit) {
  SmallVector<Value> work{root};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers())
      if (visit(value, user, work))
        return true;
  }
  return false;
}

/// Whether the kernel may write through the memref `param` (or let it go
/// where it could be written): any use this cannot see through counts. Uses
/// are followed through the results of their ops (views, casts, pointers)
/// but for data: what loads and memref.dim return, i1 and floats;
/// a use by an op without memory-effect information, by a terminator (the
/// value flows on), or by an op that writes to it (or to memory it does not
/// name) is a write; once the value is no longer a memref (a pointer), any
/// op that writes at all is one too.
bool mayWriteThrough(Value param) {
  return anyUserThrough(param, [](Value value, Operation *user,
                                  SmallVectorImpl<Value> &work) {
    bool memref = isa<BaseMemRefType>(value.getType());
    auto interface = dyn_cast<MemoryEffectOpInterface>(user);
    if (!interface || user->hasTrait<OpTrait::IsTerminator>() ||
        user->getNumRegions() != 0)
      return true;
    SmallVector<MemoryEffects::EffectInstance> effects;
    interface.getEffects(effects);
    bool reads = false;
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Read>(effect.getEffect()) &&
          effect.getValue() == value)
        reads = true;
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()))
        continue;
      if (!memref || !effect.getValue() || effect.getValue() == value)
        return true;
    }
    // What a load returns is data, and so are sizes, conditions and
    // floats; other results may carry the parameter's address.
    if (reads || isa<memref::DimOp>(user))
      return false;
    for (Value result : user->getResults())
      if (!result.getType().isInteger(1) && !isa<FloatType>(result.getType()))
        work.push_back(result);
    return false;
  });
}

/// cp.async.bulk takes 16-byte aligned addresses (PTX ISA, "cp.async.bulk").
constexpr int64_t kBulkCopyAlignment = 16;

/// The alignment of a base address that the kernel's code assumes, and the
/// access that assumes it (empty where it is the element's alignment).
struct BaseAlignment {
  int64_t bytes;
  std::string access;
};

/// The alignment of an address of `element`s that nothing more is known of:
/// the largest power of two dividing the element's bytes (1 where the size
/// is not fixed, as for `index`).
int64_t elementAlignment(Type element) {
  int64_t bits = 0;
  if (element.isIntOrFloat())
    bits = element.getIntOrFloatBitWidth();
  else if (auto vector = dyn_cast<VectorType>(element);
           vector && !vector.isScalable() &&
           vector.getElementType().isIntOrFloat())
    bits = vector.getNumElements() * vector.getElementTypeBitWidth();
  int64_t bytes = llvm::divideCeil(bits, 8);
  return bytes ? bytes & -bytes : 1;
}

/// The alignment of memref `param`'s base address (the descriptor's aligned
/// pointer) that the kernel's code assumes: the largest an access through it
/// needs, at least the element's. The manifest runs after tile-level ops are
/// expanded and before any access is lowered, so it sees the accesses
/// themselves, on the memref or on views of it (memref.subview, .cast,
/// .reinterpret_cast and other view-like ops, which keep the base): explicit
/// promises (`alignment` of vector.load/store/maskedload/..., memref.load/
/// store, memref.assume_alignment), a cp.async of N bytes (tile.async_copy:
/// N-byte aligned addresses, PTX ISA "cp.async") and the bulk copies
/// (16 bytes, PTX ISA "cp.async.bulk"). An access needs its own address
/// aligned; the base must be too where the kernel's index arithmetic is
/// right for an aligned base (offsets that are multiples of the alignment),
/// as it is for the kernel to work on a fresh allocation (T-LAUNCH-5).
/// Uses it cannot follow (a memref passed through control flow, a pointer
/// taken) add nothing: the launch check this feeds must never reject an
/// array the kernel works with.
BaseAlignment assumedAlignment(Value param, MemRefType type) {
  BaseAlignment result{elementAlignment(type.getElementType()), ""};
  auto need = [&](int64_t bytes, auto describe) {
    if (bytes > result.bytes)
      result = {bytes, describe()};
  };
  anyUserThrough(param, [&](Value value, Operation *user,
                            SmallVectorImpl<Value> &work) {
    if (auto copy = dyn_cast<AsyncCopyOp>(user)) {
      need(copy.getSize(), [&] {
        return llvm::formatv("{0} {1}-byte cp.async (tile.async_copy)",
                             copy.getSize() == 8 ? "an" : "a", copy.getSize())
            .str();
      });
    } else if (isa<BulkCopyGlobalToSharedOp, BulkCopySharedToGlobalOp,
                   BulkCopySharedToClusterOp, BulkPrefetchOp>(user)) {
      need(kBulkCopyAlignment, [&] {
        return llvm::formatv("a cp.async.bulk ({0}), which takes {1}-byte "
                             "aligned addresses",
                             user->getName(), kBulkCopyAlignment)
            .str();
      });
    } else if (auto assume = dyn_cast<memref::AssumeAlignmentOp>(user)) {
      need(assume.getAlignment(), [&] {
        return llvm::formatv("memref.assume_alignment {0}",
                             assume.getAlignment())
            .str();
      });
    } else if (auto aligned = dyn_cast<AlignmentAttrOpInterface>(user)) {
      if (llvm::MaybeAlign align = aligned.getMaybeAlign())
        need(int64_t(align->value()), [&] {
          return llvm::formatv("a {0} declared {1}-byte aligned "
                               "(`alignment = {1}`)",
                               user->getName(), align->value())
              .str();
        });
    }
    // Views address memory from the same base.
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == value)
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          work.push_back(result);
    return false;
  });
  return result;
}

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

  /// Static sizes (or strides), -1 where dynamic.
  ArrayAttr shape(ArrayRef<int64_t> sizes) {
    return b.getI64ArrayAttr(
        llvm::to_vector(llvm::map_range(sizes, [](int64_t size) {
          return ShapedType::isDynamic(size) ? int64_t(-1) : size;
        })));
  }

  /// The manifest entry of kernel parameter `arg`, or failure (with an
  /// error on the kernel) when a launcher could not pass it.
  FailureOr<DictionaryAttr> param(gpu::GPUFuncOp kernel, BlockArgument arg) {
    Type type = arg.getType();
    SmallVector<NamedAttribute> fields;
    auto add = [&](StringRef name, Attribute value) {
      fields.push_back(b.getNamedAttr(name, value));
    };
    if (auto memref = dyn_cast<MemRefType>(type)) {
      // The launcher fills the memref descriptor from an array's strides:
      // only a strided layout has one, and a negative static stride or
      // offset would read as "dynamic" (-1) here and is no array's layout
      // the launchers accept.
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(memref.getStridesAndOffset(strides, offset)) ||
          llvm::any_of(
              strides,
              [](int64_t s) { return s < 0 && !ShapedType::isDynamic(s); }) ||
          (offset < 0 && !ShapedType::isDynamic(offset))) {
        emitConciseError(kernel)
            << "kernel parameter " << arg.getArgNumber() << " has type " << type
            << ", whose layout is not strided with non-negative "
               "strides and offset: launchers pass memrefs as "
               "descriptors of such layouts (use the identity "
               "layout or strided<[...], offset: ...>) (T-LAUNCH-1)";
        return failure();
      }
      add("kind", b.getStringAttr("memref"));
      add("rank", b.getI64IntegerAttr(memref.getRank()));
      add("element", typeName(memref.getElementType()));
      add("shape", shape(memref.getShape()));
      add("strides", shape(strides));
      add("offset",
          b.getI64IntegerAttr(ShapedType::isDynamic(offset) ? -1 : offset));
      add("identity", b.getBoolAttr(memref.getLayout().isIdentity()));
      add("written", b.getBoolAttr(mayWriteThrough(arg)));
      BaseAlignment alignment = assumedAlignment(arg, memref);
      add("alignment", b.getI64IntegerAttr(alignment.bytes));
      if (!alignment.access.empty())
        add("alignment_for", b.getStringAttr(alignment.access));
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
        emitConciseError(kernel)
            << "kernel name '" << kernel.getName()
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
      SmallVector<Attribute> params;
      // The function's arguments (the body's block arguments go on with
      // the workgroup and private attributions).
      for (unsigned i = 0, e = kernel.getNumArguments(); i != e; ++i) {
        FailureOr<DictionaryAttr> param =
            manifest.param(kernel, kernel.getArgument(i));
        if (failed(param))
          return WalkResult::interrupt();
        params.push_back(*param);
      }
      add("params", b.getArrayAttr(params));
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
      // A kernel that waits for the grids before it (T-PDL-1) is launched
      // as a programmatic dependent of the previous kernel of its stream.
      bool waits = kernel.walk([](GridDependencyWaitOp) {
                           return WalkResult::interrupt();
                         }).wasInterrupted();
      add("dependent_launch", b.getBoolAttr(waits));
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
