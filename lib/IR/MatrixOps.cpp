//===- MatrixOps.cpp - Verifiers of the warp-level matrix ops -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"

using namespace mlir;
using namespace mlir::tile;

/// `x1`, `x2`, `x4`: the number of 8x8 matrices.
ParseResult tile::parseMatrixCount(OpAsmParser &parser, IntegerAttr &num) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  int32_t count = 0;
  if (parser.parseKeyword(&keyword) || !keyword.consume_front("x") ||
      keyword.getAsInteger(10, count))
    return parser.emitError(loc, "expected x1, x2 or x4");
  num = parser.getBuilder().getI32IntegerAttr(count);
  return success();
}

void tile::printMatrixCount(OpAsmPrinter &printer, Operation *,
                            IntegerAttr num) {
  printer << 'x' << num.getInt();
}

/// A matrix row is 8 16-bit elements: 16 bytes.
static constexpr int64_t kMatrixRowBytes = 16;

/// T-MMA-1 and T-MMA-2 for ldmatrix/stmatrix.
static LogicalResult verifyMatrixAccess(Operation *op, VectorType fragments,
                                        MemRefType memref, ValueRange indices,
                                        int32_t num) {
  // T-MMA-1: x1, x2 or x4 matrices, two elements of each per thread.
  if (num != 1 && num != 2 && num != 4)
    return op->emitOpError() << "loads or stores x1, x2 or x4 matrices, got x"
                             << num << " (T-MMA-1)";
  if (fragments.getShape() != ArrayRef<int64_t>{num, 2})
    return op->emitOpError()
           << "x" << num << " needs fragments of type "
           << VectorType::get({num, 2}, fragments.getElementType()) << ", got "
           << fragments << " (T-MMA-1)";
  // T-MMA-2: 16-byte rows of the same 16-bit elements in shared memory.
  if (!isSharedMemory(memref))
    return op->emitOpError()
           << "expected a shared-memory memref, got " << memref << " (T-MMA-2)";
  if (memref.getElementType() != fragments.getElementType())
    return op->emitOpError()
           << "memref element type " << memref.getElementType()
           << " differs from the fragments' " << fragments.getElementType()
           << " (T-MMA-2)";
  if (int64_t(indices.size()) != memref.getRank())
    return op->emitOpError()
           << "expected one index per dimension of " << memref;
  if (!hasContiguousInnerDim(memref) ||
      (!memref.isDynamicDim(memref.getRank() - 1) &&
       memref.getShape().back() < kMatrixRowBytes / 2))
    return op->emitOpError() << "rows of 8 contiguous elements need a "
                                "contiguous innermost dimension of at least "
                                "8, got "
                             << memref << " (T-MMA-2)";
  if (std::optional<int64_t> offset = getStaticByteOffset(memref, indices))
    if (*offset % kMatrixRowBytes)
      return op->emitOpError() << "row address at byte offset " << *offset
                               << " is not 16-byte aligned (T-MMA-2)";
  return success();
}

LogicalResult LdMatrixOp::verify() {
  return verifyMatrixAccess(*this, getResult().getType(), getSrc().getType(),
                            getIndices(), getNum());
}

LogicalResult StMatrixOp::verify() {
  return verifyMatrixAccess(*this, getValue().getType(), getDst().getType(),
                            getIndices(), getNum());
}

LogicalResult MmaSyncOp::verify() {
  // T-MMA-3: m16n8k16 or m16n8k8 with f16/bf16 inputs and the fragment
  // shapes of the PTX ISA's layouts.
  ArrayRef<int64_t> shape = getShape();
  if (shape.size() != 3 || shape[0] != 16 || shape[1] != 8 ||
      (shape[2] != 16 && shape[2] != 8))
    return emitOpError() << "supports m16n8k16 and m16n8k8 (T-MMA-3)";
  int64_t k = shape[2];
  VectorType a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "A and B element types differ: "
                         << a.getElementType() << " and " << b.getElementType()
                         << " (T-MMA-3)";
  if (c.getElementType().isF16() && !a.getElementType().isF16())
    return emitOpError() << "an f16 accumulator needs f16 inputs (T-MMA-3)";
  SmallVector<int64_t> wantA = {k / 4, 2}, wantB = {k / 8, 2}, wantC = {2, 2};
  if (a.getShape() != ArrayRef<int64_t>(wantA) ||
      b.getShape() != ArrayRef<int64_t>(wantB) ||
      c.getShape() != ArrayRef<int64_t>(wantC))
    return emitOpError() << "m16n8k" << k << " takes fragments A vector<"
                         << wantA[0] << "x2xT>, B vector<" << wantB[0]
                         << "x2xT>, C vector<2x2xT>; got " << a << ", " << b
                         << ", " << c << " (T-MMA-3)";
  return success();
}

LogicalResult SetMaxNRegOp::verify() {
  if (getInc() == getDec())
    return emitOpError() << "needs exactly one of inc and dec (T-WS-1)";
  // T-WS-1: a multiple of 8 in [24, 256].
  int32_t count = getCount();
  if (count < 24 || count > 256 || count % 8)
    return emitOpError() << "register count must be a multiple of 8 in "
                            "[24, 256], got "
                         << count << " (T-WS-1)";
  return success();
}
