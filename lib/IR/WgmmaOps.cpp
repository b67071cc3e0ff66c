//===- WgmmaOps.cpp - Verifiers of the warpgroup MMA ops ------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/SharedBuffer.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/WgmmaTypes.h"
#include "VerifierUtils.h"

using namespace mlir;
using namespace mlir::tile;

bool mlir::tile::isWgmmaFp8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

std::optional<int64_t> mlir::tile::getWgmmaInstructionK(Type a, Type b) {
  // PTX ISA, wgmma.mma_async "Matrix shape": .f16/.bf16 (A and B alike) are
  // k16, .e4m3/.e5m2 (any combination) k32 -- 32 bytes of K either way.
  if (isa<Float16Type, BFloat16Type>(a) && a == b)
    return kWgmmaKBytes / 2;
  if (isWgmmaFp8(a) && isWgmmaFp8(b))
    return kWgmmaKBytes;
  return std::nullopt;
}

bool mlir::tile::isWgmmaAccumulatorType(Type acc, Type a, Type b) {
  return acc.isF32() || (acc.isF16() && !isa<BFloat16Type>(a) &&
                         getWgmmaInstructionK(a, b).has_value());
}

int64_t mlir::tile::getRowGroupStrideBytes(MemRefType type) {
  return type.getStridesAndOffset().first[type.getRank() - 4] *
         type.getElementTypeBitWidth() / 8;
}

SwizzleAttr WgmmaDescriptorOp::getSwizzle() {
  return *getSharedBufferInfo(getBuffer()).swizzle;
}

LogicalResult mlir::tile::verifyWgmmaTile(Operation *op, Value buffer,
                                          bool mnMajor) {
  auto type = cast<MemRefType>(buffer.getType());
  // T-WGMMA-1: a swizzled (TMA-mode) tile of a tile.shared_alloc, rows
  // exactly one swizzle span wide; MN-major tiles in chunks of whole groups
  // of 8 K rows.
  SharedBufferInfo info = getSharedBufferInfo(buffer);
  if (!info.swizzle || info.swizzle->isIdentity() ||
      !info.swizzle->getTmaMode())
    return op->emitOpError() << "needs a tile.shared_alloc buffer with a 32B, "
                                "64B or 128B swizzle (T-WGMMA-1)";
  if (type.getRank() < 2)
    return op->emitOpError() << "expected a tile of rank 2 or more, got "
                             << type << " (T-WGMMA-1)";
  int64_t rowBytes = type.getShape().back() *
                     getElementSizeInBytes(type.getElementType()).value_or(0);
  if (!isSharedMemory(type) || !type.getLayout().isIdentity() ||
      rowBytes != info.swizzle->getSpanBytes())
    return op->emitOpError()
           << "expected " << (mnMajor ? "MN" : "K")
           << "-major rows of exactly the " << info.swizzle->getSpanBytes()
           << "-byte swizzle span, got " << rowBytes << "-byte rows in " << type
           << " (T-WGMMA-1)";
  if (mnMajor && (type.getRank() < 3 || type.getShape().take_back(2)[0] % 8))
    return op->emitOpError()
           << "expected an MN-major tile as (MN chunks, K rows, span) with K "
              "rows a multiple of 8, got "
           << type << " (T-WGMMA-1)";
  return success();
}

LogicalResult WgmmaDescriptorOp::verify() {
  MemRefType type = getBuffer().getType();
  if (int64_t(getIndices().size()) != type.getRank())
    return emitOpError() << "expected one index per dimension of " << type;
  // T-WGMMA-6: row groups are (G, C, 8, span), the 8-row groups along G.
  if (getRowGroups() &&
      (type.getRank() < 4 || type.getShape().take_back(2)[0] != 8))
    return emitOpError() << "expected a tile of 8-row groups as (groups, "
                            "chunks, 8 rows, span), got "
                         << type << " (T-WGMMA-6)";
  // The groups' stride is the 14-bit stride byte offset field, in 16 bytes.
  if (getRowGroups() && type.getLayout().isIdentity()) {
    int64_t groupBytes = getRowGroupStrideBytes(type);
    if (groupBytes % 16 || groupBytes >> 4 >= (1 << 14))
      return emitOpError() << "the groups' stride of " << groupBytes
                           << " bytes does not fit the descriptor's stride "
                              "byte offset (a multiple of 16 below 2^18) "
                              "(T-WGMMA-6)";
  }
  return verifyWgmmaTile(*this, getBuffer(), getMnMajor());
}

LogicalResult WgmmaOp::verify() {
  // T-WGMMA-2: m64nNkK, N a multiple of 8 in [8, 256]; f16 x f16 or bf16 x
  // bf16 (K = 16), or e4m3/e5m2 x e4m3/e5m2 (K = 32, both K-major); N/2 f32
  // accumulators per thread.
  int64_t n = getN();
  if (n < 8 || n > 256 || n % 8)
    return emitOpError() << "N must be a multiple of 8 in [8, 256], got " << n
                         << " (T-WGMMA-2)";
  Type a = getInputType(), b = getTypeB();
  std::optional<int64_t> k = getWgmmaInstructionK(a, b);
  if (!k)
    return emitOpError() << "multiplies f16 x f16, bf16 x bf16 or 8-bit "
                            "floats (f8E4M3FN, f8E5M2) in any pair, got "
                         << a << " x " << b << " (T-WGMMA-2)";
  if (isWgmmaFp8(a) && (getTransposeA() || getTransposeB()))
    return emitOpError() << "8-bit float operands must be K-major: PTX "
                            "transposes only f16/bf16 tiles (T-WGMMA-2)";
  Type acc = getAcc().getType().getElementType();
  if (!isWgmmaAccumulatorType(acc, a, b))
    return emitOpError() << "accumulates " << a << " x " << b
                         << " in f32, or in f16 for f16 and 8-bit float "
                            "inputs; got "
                         << acc << " (T-WGMMA-2)";
  if (getAcc().getType().getNumElements() != n / 2)
    return emitOpError() << "m64n" << n << "k" << *k << " needs " << n / 2
                         << (acc.isF16() ? " f16" : " f32")
                         << " accumulators per thread, got "
                         << getAcc().getType() << " (T-WGMMA-2)";
  return success();
}

LogicalResult WgmmaRsOp::verify() {
  // T-WGMMA-4: m64nNk16 with A's 8 16-bit elements per thread in registers,
  // or m64nNk32 with 16 8-bit floats; B of A's type; N/2 accumulators per
  // thread.
  int64_t n = getN();
  if (n < 8 || n > 256 || n % 8)
    return emitOpError() << "N must be a multiple of 8 in [8, 256], got " << n
                         << " (T-WGMMA-4)";
  VectorType a = getA().getType();
  Type input = a.getElementType();
  int64_t k = *getWgmmaInstructionK(input, input);
  if (a.getNumElements() != k / 2)
    return emitOpError() << "a thread holds " << k / 2
                         << " elements of the 64x" << k << " " << input
                         << " A tile, got " << a << " (T-WGMMA-4)";
  if (isWgmmaFp8(input) && getTransposeB())
    return emitOpError() << "an 8-bit float B must be K-major: PTX "
                            "transposes only f16/bf16 tiles (T-WGMMA-4)";
  Type acc = getAcc().getType().getElementType();
  if (!isWgmmaAccumulatorType(acc, input, input))
    return emitOpError() << "accumulates " << input
                         << " in f32, or in f16 for f16 and 8-bit float "
                            "inputs; got "
                         << acc << " (T-WGMMA-4)";
  if (getAcc().getType().getNumElements() != n / 2)
    return emitOpError() << "m64n" << n << "k" << k << " needs " << n / 2
                         << " accumulators per thread, got "
                         << getAcc().getType() << " (T-WGMMA-4)";
  return success();
}

LogicalResult WgmmaWaitGroupOp::verify() {
  return verifyPendingGroups(*this, getPendingAttr());
}

LogicalResult WgmmaFenceOperandOp::verify() {
  VectorType type = getValue().getType();
  if (type.getElementType().isF16() && type.getNumElements() % 2 != 0)
    return emitOpError() << "f16 accumulators are two to a register "
                            "(T-WGMMA-2), got "
                         << type;
  return success();
}
