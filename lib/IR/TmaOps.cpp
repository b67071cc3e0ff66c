//===- TmaOps.cpp - Verifiers of the TMA tensor ops -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The shared-tile rules (T-TMA-16..18, T-SWZ-5) are shared by loads, stores
// and reductions, T-TMA-24 (a box in a row range of a taller tile) by loads;
// the rules of the descriptor itself are its type's verifier (T-TMA-1..9).
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "VerifierUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;

/// fence.proxy.tensormap::generic arrived in PTX ISA 8.3.
unsigned TmaFenceDescriptorOp::getMinPtxVersion() { return 83; }
bool TmaLoadOp::requiresClusterLaunch() { return bool(getMulticastMask()); }

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

LogicalResult mlir::tile::verifyTmaCoordinates(Operation *op, TmaDescType desc,
                                               ValueRange coordinates,
                                               ValueRange im2colOffsets,
                                               bool allowsIm2col) {
  int64_t rank = desc.getTensor().getRank();
  if (int64_t(coordinates.size()) != rank)
    return op->emitOpError() << "expected " << rank
                             << " coordinates (one per tensor dimension), got "
                             << coordinates.size() << " (T-TMA-16)";
  if (desc.isIm2col() && !allowsIm2col)
    return op->emitOpError() << "takes a tiled descriptor; im2col descriptors "
                                "are for loads and prefetches (T-TMA-21)";
  int64_t expected = desc.isIm2col() ? rank - 2 : 0;
  if (int64_t(im2colOffsets.size()) != expected)
    return op->emitOpError()
           << "expected " << expected << " im2col offsets"
           << (desc.isIm2col() ? " (one per spatial dimension)"
                               : " with a tiled descriptor")
           << ", got " << im2colOffsets.size() << " (T-TMA-21)";
  return success();
}

/// The byte alignment TMA needs of a shared tile with this descriptor: 128,
/// or the swizzle's repeat (PTX ISA, "Tensor Map", shared memory alignment).
static int64_t getRequiredTileAlignment(TmaDescType desc) {
  return std::max<int64_t>(kTmaSharedAlignment,
                           desc.getSwizzle().getRepeatBytes());
}

/// `shape` without its leading extents of 1 (at least its last extent).
static ArrayRef<int64_t> dropLeadingOnes(ArrayRef<int64_t> shape) {
  while (shape.size() > 1 && shape.front() == 1)
    shape = shape.drop_front();
  return shape;
}

std::string TmaTileForm::describeAlignedRows() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << alignedRows << " (" << alignmentBytes << "-byte "
     << (alignmentBytes > kTmaSharedAlignment ? "swizzle repeat"
                                              : "TMA alignment")
     << " of " << rowBytes << "-byte rows)";
  return text;
}

std::optional<TmaTileForm> mlir::tile::getTmaTileForm(TmaDescType desc,
                                                      MemRefType tile,
                                                      size_t numIndices,
                                                      bool allowsRowRange) {
  SmallVector<int64_t> box = desc.getSharedTileShape();
  ArrayRef<int64_t> trimmed = dropLeadingOnes(box);
  ArrayRef<int64_t> shape = tile.getShape();
  auto endsWith = [&](ArrayRef<int64_t> suffix) {
    return shape.size() >= suffix.size() &&
           shape.take_back(suffix.size()) == suffix;
  };
  auto leadingRank = [&](ArrayRef<int64_t> suffix) {
    return unsigned(shape.size() - suffix.size());
  };
  // The box with as many of its leading 1s as the indices leave to the
  // tile (a [1, 1, 128, 64] box of a (batch, heads, rows, columns) tensor
  // fills a 128x64 tile, or a 1x128x64 one); else without them.
  for (size_t kept = box.size(); kept >= std::max<size_t>(trimmed.size(), 1);
       --kept)
    if (endsWith(ArrayRef(box).take_back(kept)) &&
        numIndices == leadingRank(ArrayRef(box).take_back(kept)))
      return TmaTileForm{leadingRank(ArrayRef(box).take_back(kept))};
  if (endsWith(trimmed))
    return TmaTileForm{leadingRank(trimmed)};
  // T-TMA-24: that box's rows in a tile of more rows of the same shape.
  auto rowRange = [&](int64_t boxRows,
                      ArrayRef<int64_t> rowShape) -> std::optional<TmaTileForm> {
    if (!allowsRowRange || rowShape.empty() ||
        shape.size() < rowShape.size() + 1 || !endsWith(rowShape) ||
        shape[shape.size() - rowShape.size() - 1] < boxRows)
      return std::nullopt;
    TmaTileForm form;
    form.leadingRank = leadingRank(rowShape) - 1;
    form.hasRowIndex = true;
    form.boxRows = boxRows;
    form.tileRows = shape[form.leadingRank];
    form.rowBytes = desc.getElementType().getIntOrFloatBitWidth() / 8;
    for (int64_t extent : rowShape)
      form.rowBytes *= extent;
    form.alignmentBytes = getRequiredTileAlignment(desc);
    form.alignedRows =
        form.alignmentBytes / std::gcd(form.alignmentBytes, form.rowBytes);
    return form;
  };
  if (std::optional<TmaTileForm> form =
          rowRange(trimmed.front(), trimmed.drop_front()))
    return form;
  // T-TMA-25: a box of more than two dimensions (after its leading 1s) fills
  // the rows of a two-dimensional tile in its order, as TMA writes it
  // densely: its outer extents' product is the rows, its innermost extent
  // a row ([8, 1, 8, 64]: 64 rows of 64).
  if (trimmed.size() <= 2)
    return std::nullopt;
  int64_t rows = 1;
  for (int64_t extent : trimmed.drop_back())
    rows *= extent;
  SmallVector<int64_t> flat{rows, trimmed.back()};
  if (endsWith(flat))
    return TmaTileForm{leadingRank(flat)};
  return rowRange(rows, ArrayRef<int64_t>(flat).drop_front());
}

/// T-TMA-24: a load's box fills rows [row, row + R) of a tile of more rows:
/// R divides them, and R and the row keep the alignment TMA needs (the
/// swizzle's phase: PTX ISA, "Tensor Map", swizzle modes). A row that is not
/// a constant is checked by tile-check-target.
static LogicalResult verifyTmaRowRange(Operation *op, const TmaTileForm &form,
                                       ValueRange indices, StringRef role) {
  int64_t rows = form.boxRows, tileRows = form.tileRows;
  if (indices.size() != form.leadingRank + 1)
    return op->emitOpError()
           << "expected " << form.leadingRank + 1 << " " << role
           << " indices (one per dimension before the " << tileRows
           << "-row tile, then the row where the box's " << rows
           << " rows land), got " << indices.size() << " (T-TMA-24)";
  if (tileRows % rows)
    return op->emitOpError()
           << "the box's " << rows << " rows do not divide the " << role
           << "'s " << tileRows << "-row tile (T-TMA-24)";
  if (rows % form.alignedRows)
    return op->emitOpError()
           << "the box's " << rows << " rows are not a multiple of "
           << form.describeAlignedRows() << ", so they cannot fill a row "
           << "range of the " << tileRows << "-row tile (T-TMA-24)";
  std::optional<int64_t> row = getConstantIntValue(indices.back());
  if (!row)
    return success();
  auto fail = [&]() {
    return op->emitOpError() << "the box's " << rows << " rows at row " << *row
                             << " of the " << tileRows << "-row tile: ";
  };
  if (*row % form.alignedRows)
    return fail() << "the row must be a multiple of "
                  << form.describeAlignedRows() << " (T-TMA-24)";
  if (*row < 0 || *row + rows > tileRows)
    return fail() << "the row must be in [0, " << tileRows - rows
                  << "] (T-TMA-24)";
  return success();
}

LogicalResult mlir::tile::verifyTmaSharedTile(Operation *op, TmaDescType desc,
                                              Value tile, ValueRange indices,
                                              StringRef role,
                                              bool allowsRowRange) {
  auto type = cast<MemRefType>(tile.getType());
  ArrayRef<int64_t> box = desc.getBox();
  // T-TMA-17: a dense shared tile of the descriptor's element type whose
  // trailing dimensions are the box (rows padded to the swizzle span).
  if (!isSharedMemory(type) || !type.getLayout().isIdentity())
    return op->emitOpError() << "expected the " << role
                             << " to be a dense shared-memory memref, got "
                             << type << " (T-TMA-17)";
  if (type.getElementType() != desc.getElementType())
    return op->emitOpError()
           << role << " element type " << type.getElementType()
           << " differs from the descriptor's " << desc.getElementType()
           << " (T-TMA-17)";
  std::optional<TmaTileForm> form =
      getTmaTileForm(desc, type, indices.size(), allowsRowRange);
  if (!form) {
    SmallVector<int64_t> expected = desc.getSharedTileShape();
    InFlightDiagnostic diag = op->emitOpError();
    diag << role << " " << type << " does not end with the box shape [";
    llvm::interleaveComma(expected, diag);
    diag << "]";
    if (expected.back() != box.back())
      diag << " (the " << box.back()
           << "-element inner box rows are padded to the "
           << desc.getSwizzle().getSpanBytes() << "-byte swizzle span)";
    diag << " (T-TMA-17)";
    if (!allowsRowRange &&
        getTmaTileForm(desc, type, indices.size(), /*allowsRowRange=*/true))
      diag << "; only loads may fill a row range of a taller tile (T-TMA-24)";
    return diag;
  }
  if (form->hasRowIndex) {
    if (failed(verifyTmaRowRange(op, *form, indices, role)))
      return failure();
  } else if (indices.size() != form->leadingRank) {
    return op->emitOpError()
           << "expected " << form->leadingRank << " " << role
           << " indices (one per dimension before the box), got "
           << indices.size() << " (T-TMA-17)";
  }
  // T-TMA-18: every tile of the buffer starts at the required alignment.
  int64_t required = getRequiredTileAlignment(desc);
  int64_t elementBytes = desc.getElementType().getIntOrFloatBitWidth() / 8;
  SmallVector<int64_t> strides;
  int64_t offset;
  (void)type.getStridesAndOffset(strides, offset);
  for (unsigned dim = 0; dim < form->leadingRank; ++dim)
    if ((strides[dim] * elementBytes) % required)
      return op->emitOpError()
             << role << " dimension " << dim << " steps "
             << strides[dim] * elementBytes << " bytes, not a multiple of the "
             << required << "-byte alignment TMA needs (T-TMA-18)";
  SharedBufferInfo buffer = getSharedBufferInfo(tile);
  if (buffer.alignment && *buffer.alignment < required)
    return op->emitOpError()
           << "swizzle "
           << stringifyTmaSwizzleMode(*desc.getSwizzle().getTmaMode())
           << " needs the " << role << " " << required << "-byte aligned, got "
           << *buffer.alignment << buffer.describe() << " (T-TMA-18)";
  // T-SWZ-5: the buffer's layout is the one the TMA unit writes/reads.
  SwizzleAttr want = desc.getSwizzle();
  if (buffer.swizzle && *buffer.swizzle != want &&
      !(buffer.swizzle->isIdentity() && want.isIdentity()))
    return op->emitOpError() << "descriptor swizzle " << desc.getSwizzle()
                             << " disagrees with the " << role << "'s swizzle "
                             << *buffer.swizzle << buffer.describe()
                             << "; generic accesses would read other elements "
                                "than TMA wrote (T-SWZ-5)";
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult TmaCreateDescriptorOp::verify() {
  MemRefType source = getTensor().getType();
  MemRefType tensor = getDescriptor().getType().getTensor();
  // T-TMA-15: the memref is the descriptor's tensor, in global memory.
  if (!isGlobalMemory(source))
    return emitOpError() << "expected a global-memory tensor, got " << source
                         << " (T-TMA-15)";
  bool compatible = source.getElementType() == tensor.getElementType() &&
                    source.getRank() == tensor.getRank();
  for (auto [have, want] : llvm::zip(source.getShape(), tensor.getShape()))
    compatible &= ShapedType::isDynamic(want) || have == want;
  if (!compatible)
    return emitOpError() << "tensor " << source
                         << " does not match the descriptor's " << tensor
                         << " (T-TMA-15)";
  // T-TMA-23: the encoded map lives in the creating function's frame and
  // reaches kernels by value; it cannot outlive the function.
  for (Operation *user : getDescriptor().getUsers())
    if (isa<CallOpInterface>(user) ||
        (user->hasTrait<OpTrait::ReturnLike>() &&
         isa<FunctionOpInterface>(user->getParentOp())))
      return emitOpError() << "descriptor escapes its function through '"
                           << user->getName()
                           << "'; pass it to kernels (gpu.launch_func) in the "
                              "function that creates it (T-TMA-23)";
  return success();
}

LogicalResult TmaLoadOp::verify() {
  TmaDescType desc = getDescriptor().getType();
  if (failed(verifyTmaCoordinates(*this, desc, getCoordinates(),
                                  getIm2colOffsets(), /*allowsIm2col=*/true)) ||
      failed(verifyTmaSharedTile(*this, desc, getDst(), getDstIndices(),
                                 "destination", /*allowsRowRange=*/true)))
    return failure();
  return verifyBarrierIndex(*this, getBarriers().getType(), getBarrierIndex());
}

LogicalResult TmaStoreOp::verify() {
  TmaDescType desc = getDescriptor().getType();
  if (failed(verifyTmaCoordinates(*this, desc, getCoordinates())))
    return failure();
  return verifyTmaSharedTile(*this, desc, getSrc(), getSrcIndices(), "source");
}

/// T-TMA-20: the element types each reduction exists for (PTX ISA,
/// "cp.reduce.async.bulk.tensor").
bool mlir::tile::isTmaReducible(TmaReduceKind kind, Type type) {
  bool isFloat16 = isa<Float16Type, BFloat16Type>(type);
  unsigned intWidth = 0;
  if (auto intType = dyn_cast<IntegerType>(type))
    intWidth = intType.getWidth();
  bool isWideInt = intWidth == 32 || intWidth == 64;
  switch (kind) {
  case TmaReduceKind::add:
    return isFloat16 || type.isF32() || isWideInt;
  case TmaReduceKind::min:
  case TmaReduceKind::max:
    return isFloat16 || isWideInt;
  case TmaReduceKind::inc:
  case TmaReduceKind::dec:
    return intWidth == 32;
  case TmaReduceKind::bitAnd:
  case TmaReduceKind::bitOr:
  case TmaReduceKind::bitXor:
    return isWideInt;
  }
  llvm_unreachable("unknown reduction");
}

LogicalResult TmaReduceOp::verify() {
  TmaDescType desc = getDescriptor().getType();
  if (!isTmaReducible(getKind(), desc.getElementType()))
    return emitOpError() << "reduction " << stringifyTmaReduceKind(getKind())
                         << " does not exist for " << desc.getElementType()
                         << " (T-TMA-20)";
  if (failed(verifyTmaCoordinates(*this, desc, getCoordinates())))
    return failure();
  return verifyTmaSharedTile(*this, desc, getSrc(), getSrcIndices(), "source");
}

LogicalResult TmaPrefetchOp::verify() {
  return verifyTmaCoordinates(*this, getDescriptor().getType(),
                              getCoordinates(), getIm2colOffsets(),
                              /*allowsIm2col=*/true);
}
