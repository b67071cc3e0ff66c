//===- WarpgroupFragmentOps.cpp - Verifiers of the fragment math ops ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

/// T-TILE-9: an M x N warpgroup tile (M = 64 i, N = 8 j) whose accumulators
/// are `acc` (M/64 * N/2 elements) and whose thread-held rows are `rows`
/// (2 M/64 elements), either left out.
static LogicalResult verifyFragmentShapes(Operation *op,
                                          ArrayRef<int64_t> shape,
                                          VectorType acc, VectorType rows) {
  if (shape.size() != 2 || shape[0] < 64 || shape[0] % 64 || shape[1] < 8 ||
      shape[1] % 8)
    return op->emitOpError() << "expected shape (M, N) with M = 64 i, N = 8 j "
                                "(T-TILE-9)";
  int64_t elements = shape[0] / 64 * shape[1] / 2, held = 2 * shape[0] / 64;
  if (acc && acc.getNumElements() != elements)
    return op->emitOpError() << "a thread holds " << elements
                             << " elements of a " << shape[0] << "x" << shape[1]
                             << " warpgroup tile, got " << acc << " (T-TILE-9)";
  if (rows && rows.getNumElements() != held)
    return op->emitOpError()
           << "a thread holds " << held << " rows of a " << shape[0]
           << "-row warpgroup tile, got " << rows << " (T-TILE-9)";
  return success();
}

LogicalResult WarpgroupRowReduceOp::verify() {
  using vector::CombiningKind;
  CombiningKind kind = getKind();
  if (!llvm::is_contained({CombiningKind::ADD, CombiningKind::MUL,
                           CombiningKind::MAXNUMF, CombiningKind::MINNUMF,
                           CombiningKind::MAXIMUMF, CombiningKind::MINIMUMF},
                          kind))
    return emitOpError() << "reduces f32 rows with add, mul, maxnumf, "
                            "minnumf, maximumf or minimumf, got "
                         << vector::stringifyCombiningKind(kind)
                         << " (T-TILE-9)";
  if (reducesRowValues()) {
    if (getPartial())
      return emitOpError() << "reduces partial row values across the quad: "
                              "it cannot be partial itself (T-TILE-9)";
    if (getResult().getType() != getAcc().getType())
      return emitOpError() << "expected the row values' type "
                           << getAcc().getType() << ", got "
                           << getResult().getType() << " (T-TILE-9)";
    return verifyFragmentShapes(*this, getShape(), {}, getAcc().getType());
  }
  return verifyFragmentShapes(*this, getShape(), getAcc().getType(),
                              getResult().getType());
}

bool WarpgroupRowReduceOp::reducesRowValues() {
  ArrayRef<int64_t> shape = getShape();
  return shape.size() == 2 &&
         getAcc().getType().getNumElements() == 2 * shape[0] / 64 &&
         shape[1] != 4;
}

LogicalResult WarpgroupBroadcastRowsOp::verify() {
  if (getRows().getType().getElementType() !=
      getResult().getType().getElementType())
    return emitOpError() << "expected row values and accumulators of one "
                            "element type (T-TILE-9)";
  return verifyFragmentShapes(*this, getShape(), getResult().getType(),
                              getRows().getType());
}

LogicalResult WarpgroupIotaOp::verify() {
  int64_t dim = getDim();
  if (dim != 0 && dim != 1)
    return emitOpError() << "dim is 0 (rows) or 1 (columns), got " << dim
                         << " (T-TILE-9)";
  return verifyFragmentShapes(*this, getShape(), getResult().getType(), {});
}

/// T-TILE-10: an M x N warpgroup tile (M = 64 i, N = 8 j) whose accumulators
/// are `acc`.
static LogicalResult verifyEpilogueTile(Operation *op, ArrayRef<int64_t> shape,
                                        VectorType acc) {
  if (shape.size() != 2 || shape[0] < 64 || shape[0] % 64 || shape[1] < 8 ||
      shape[1] % 8)
    return op->emitOpError() << "expected shape (M, N) with M = 64 i, N = 8 j "
                                "(T-TILE-10)";
  int64_t elements = shape[0] / 64 * shape[1] / 2;
  if (acc.getNumElements() != elements)
    return op->emitOpError() << "a thread holds " << elements
                             << " elements of a " << shape[0] << "x" << shape[1]
                             << " warpgroup tile, got " << acc << " (T-TILE-10)";
  return success();
}

LogicalResult WarpgroupAddOp::verify() {
  MemRefType type = getSrc().getType();
  for (int64_t extent : type.getShape())
    if (extent == 0)
      return emitOpError() << "expected a non-empty source (an element "
                              "outside it reads inside it), got "
                           << type << " (T-TILE-10)";
  return verifyEpilogueTile(*this, getShape(), getAcc().getType());
}

LogicalResult WarpgroupActivationOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  VectorType acc = getAcc().getType(), result = getResult().getType();
  if (failed(verifyEpilogueTile(*this, shape, acc)))
    return failure();
  if (!getGated()) {
    if (result != acc)
      return emitOpError() << "expected the accumulators' type " << acc
                           << ", got " << result << " (T-TILE-10)";
    return success();
  }
  if (shape[1] % 16)
    return emitOpError() << "gates pairs of 8-column blocks: expected N a "
                            "multiple of 16, got "
                         << shape[1] << " (T-TILE-10)";
  if (result.getNumElements() * 2 != acc.getNumElements())
    return emitOpError() << "gating halves the tile: expected "
                         << acc.getNumElements() / 2 << " elements, got "
                         << result << " (T-TILE-10)";
  return success();
}

OpFoldResult WarpgroupActivationOp::fold(FoldAdaptor) {
  if (getKind() == Activation::identity && !getGated())
    return getAcc();
  return {};
}
