//===- AlignSharedVectorAccesses.cpp - Alignment of shared vector accesses ===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A vector.load/store without `alignment` is lowered at its element's
// alignment, and NVPTX splits it into one access per element. For accesses of
// shared buffers whose alignment tile knows, the alignment of the byte offset
// is proven (Divisibility) and set; where the vector's full alignment cannot
// be proven, a remark says which index is in the way.
//===----------------------------------------------------------------------===//

#include "Tile/Analysis/Divisibility.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/Transforms/Passes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEALIGNSHAREDVECTORACCESSESPASS
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The widest access NVPTX makes of one vector (ld.shared.v4.b32, 16 bytes).
constexpr int64_t kMaxVectorAlignment = 16;

/// One vector access of a shared buffer and what is proven about it.
struct VectorAccess {
  Operation *op;
  Value memref;
  ValueRange indices;
  VectorType type;
};

/// Prints `value` as the user sees it in its isolated region (a gpu.func).
std::string printOperand(Value value) {
  Operation *scope = value.getParentRegion()->getParentOp();
  while (scope && !scope->hasTrait<OpTrait::IsIsolatedFromAbove>())
    scope = scope->getParentOp();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (!scope) {
    value.printAsOperand(os, OpPrintingFlags());
    return text;
  }
  AsmState state(scope);
  value.printAsOperand(os, state);
  return text;
}

/// Where `loc` is, as "line L:C" when it is a file location.
std::string describeLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return "line " + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << loc;
  return text;
}

/// `value` as a user finds it in the source: the op that computes it and its
/// line, a kernel argument's number, a loop's induction variable (SSA names
/// are renumbered by the passes that ran before, so they come last).
std::string describeIndex(Value value) {
  if (Operation *op = value.getDefiningOp())
    return printOperand(value) + ", the result of " +
           op->getName().getStringRef().str() + " at " +
           describeLocation(op->getLoc());
  auto argument = cast<BlockArgument>(value);
  Operation *owner = argument.getOwner()->getParentOp();
  if (isa<FunctionOpInterface>(owner))
    return "argument " + std::to_string(argument.getArgNumber()) +
           " of the kernel";
  return printOperand(value) + ", a block argument of " +
         owner->getName().getStringRef().str() + " at " +
         describeLocation(owner->getLoc());
}

class Aligner {
public:
  explicit Aligner(bool remarks) : remarks(remarks) {}

  void run(const VectorAccess &access) {
    auto memrefType = cast<MemRefType>(access.memref.getType());
    int64_t elementBytes =
        getElementSizeInBytes(memrefType.getElementType()).value_or(0);
    int64_t bytes = access.type.getNumElements() * elementBytes;
    if (elementBytes <= 0 || access.type.getNumElements() < 2 ||
        !llvm::isPowerOf2_64(bytes))
      return;
    int64_t wanted = std::min(bytes, kMaxVectorAlignment);
    if (wanted <= elementBytes)
      return;

    SharedBufferInfo info = getSharedBufferInfo(access.memref);
    if (!info.alignment)
      return remark(
          access, bytes, wanted,
          "the buffer's alignment is unknown (not a tile.shared_alloc, "
          "memref.global or workgroup attribution)");
    int64_t proven = *info.alignment;
    std::string reason;
    if (proven < wanted)
      reason = "the buffer is only " + std::to_string(proven) +
               "-byte aligned" + info.describe();
    // A swizzle XORs offset bits >= M only: offsets keep their alignment up
    // to its 2^M-byte unit.
    if (info.swizzle && !info.swizzle->isIdentity()) {
      int64_t unit = int64_t(1) << info.swizzle->getBase();
      if (unit < proven) {
        proven = unit;
        if (unit < wanted && reason.empty())
          reason = "the buffer's swizzle keeps only " + std::to_string(unit) +
                   "-byte units whole";
      }
    }

    // The byte offset is sum(index_i * stride_i) * elementBytes.
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(memrefType.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return remark(access, bytes, wanted,
                    "the buffer's layout has dynamic strides or offset");
    auto bitsOf = [](int64_t value) -> int64_t {
      return value == 0 ? Divisibility::kMaxBits
                        : llvm::countr_zero(uint64_t(value));
    };
    int64_t elementBits = bitsOf(elementBytes);
    int64_t needed = llvm::Log2_64(wanted);
    int64_t known = bitsOf(offset * elementBytes);
    if (known < needed && reason.empty())
      reason = "the layout's offset is " + std::to_string(offset) + " elements";
    for (auto [i, index, stride] : llvm::enumerate(access.indices, strides)) {
      int64_t bits = std::min(divisibility.getKnownTrailingZeros(index) +
                                  bitsOf(stride) + elementBits,
                              Divisibility::kMaxBits);
      known = std::min(known, bits);
      if (bits >= needed || !reason.empty())
        continue;
      // Index i must be a multiple of wanted / (stride * elementBytes).
      int64_t multiple = int64_t(1) << (needed - bitsOf(stride) - elementBits);
      reason = "index " + std::to_string(i) + " is " + describeIndex(index) +
               ", not a known multiple of " + std::to_string(multiple) +
               " elements";
    }
    proven =
        std::min<int64_t>(proven, int64_t(1) << std::min<int64_t>(known, 30));
    int64_t alignment = std::min(proven, wanted);
    if (alignment > elementBytes) {
      Builder builder(access.op->getContext());
      access.op->setAttr("alignment", builder.getI64IntegerAttr(alignment));
    }
    if (alignment < wanted)
      remark(access, bytes, wanted, reason);
  }

private:
  bool remarks;
  Divisibility divisibility;

  /// The remark goes to the access's location without printing the op (or
  /// its enclosing kernel).
  void remark(const VectorAccess &access, int64_t bytes, int64_t wanted,
              StringRef reason) {
    if (!remarks)
      return;
    mlir::emitRemark(access.op->getLoc())
        << "tile: " << access.op->getName() << " of " << bytes
        << " bytes of a shared buffer: cannot prove " << wanted
        << "-byte alignment (" << reason << "); add {alignment = " << wanted
        << "} if it holds";
  }
};

struct TileAlignSharedVectorAccessesPass
    : tile::impl::TileAlignSharedVectorAccessesPassBase<
          TileAlignSharedVectorAccessesPass> {
  using Base::Base;
  void runOnOperation() override {
    Aligner aligner(remarks);
    getOperation().walk([&](Operation *op) {
      std::optional<VectorAccess> access;
      if (auto load = dyn_cast<vector::LoadOp>(op)) {
        if (!load.getAlignment())
          access = VectorAccess{op, load.getBase(), load.getIndices(),
                                load.getVectorType()};
      } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
        if (!store.getAlignment())
          access = VectorAccess{op, store.getBase(), store.getIndices(),
                                store.getVectorType()};
      }
      if (!access || access->type.getRank() != 1 ||
          !isSharedMemory(cast<MemRefType>(access->memref.getType())))
        return;
      aligner.run(*access);
    });
  }
};

} // namespace
