//===- ReduceOps.cpp - tile.reduce: format and verifier -------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tile;

ParseResult tile::parseReduceKind(OpAsmParser &parser,
                                  gpu::AllReduceOperationAttr &kind) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<gpu::AllReduceOperation> value =
      gpu::symbolizeAllReduceOperation(keyword);
  if (!value)
    return parser.emitError(loc)
           << "expected a reduction kind (add, mul, minui, minsi, minnumf, "
              "maxui, maxsi, maxnumf, and, or, xor, minimumf, maximumf), got '"
           << keyword << "'";
  kind = gpu::AllReduceOperationAttr::get(parser.getContext(), *value);
  return success();
}

void tile::printReduceKind(OpAsmPrinter &printer, Operation *,
                           gpu::AllReduceOperationAttr kind) {
  printer << gpu::stringifyAllReduceOperation(kind.getValue());
}

/// Whether `kind` combines integers (else floats); `add` and `mul` do both.
static bool isIntegerKind(gpu::AllReduceOperation kind) {
  using gpu::AllReduceOperation;
  switch (kind) {
  case AllReduceOperation::MINUI:
  case AllReduceOperation::MINSI:
  case AllReduceOperation::MAXUI:
  case AllReduceOperation::MAXSI:
  case AllReduceOperation::AND:
  case AllReduceOperation::OR:
  case AllReduceOperation::XOR:
    return true;
  default:
    return false;
  }
}

static bool isFloatKind(gpu::AllReduceOperation kind) {
  using gpu::AllReduceOperation;
  switch (kind) {
  case AllReduceOperation::MINNUMF:
  case AllReduceOperation::MAXNUMF:
  case AllReduceOperation::MINIMUMF:
  case AllReduceOperation::MAXIMUMF:
    return true;
  default:
    return false;
  }
}

int64_t ReduceOp::getGroupThreads() {
  switch (getScope()) {
  case ReduceScope::warp:
    return getLanes().value_or(32);
  case ReduceScope::warpgroup:
    return kWarpgroupThreads;
  case ReduceScope::block:
    return 0;
  }
  llvm_unreachable("unknown reduce scope");
}

std::optional<std::array<int64_t, 3>> ReduceOp::getKnownBlockShape() {
  if (auto func = (*this)->getParentOfType<gpu::GPUFuncOp>()) {
    if (std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize())
      return std::array<int64_t, 3>{(*known)[0], (*known)[1], (*known)[2]};
    return std::nullopt;
  }
  auto launch = (*this)->getParentOfType<gpu::LaunchOp>();
  if (!launch)
    return std::nullopt;
  std::array<int64_t, 3> shape;
  for (auto [i, size] : llvm::enumerate(ValueRange{launch.getBlockSizeX(),
                                                   launch.getBlockSizeY(),
                                                   launch.getBlockSizeZ()})) {
    APInt value;
    if (!matchPattern(size, m_ConstantInt(&value)))
      return std::nullopt;
    shape[i] = value.getSExtValue();
  }
  return shape;
}

LogicalResult ReduceOp::verifyBlockShape(std::array<int64_t, 3> shape) {
  int64_t threads = shape[0] * shape[1] * shape[2];
  int64_t unit = getScope() == ReduceScope::warpgroup ? kWarpgroupThreads : 32;
  if (threads % unit)
    return emitOpError() << "scope " << stringifyReduceScope(getScope())
                         << " needs a block of a multiple of " << unit
                         << " threads, got " << shape[0] << "x" << shape[1]
                         << "x" << shape[2] << " = " << threads << " (T-RED-5)";
  return success();
}

LogicalResult ReduceOp::verify() {
  Type type = getValue().getType();
  gpu::AllReduceOperation kind = getKind();
  StringRef kindName = gpu::stringifyAllReduceOperation(kind);
  // T-RED-1: a scalar f32 or i32.
  if (auto vector = dyn_cast<VectorType>(type))
    return emitOpError() << "reduces a scalar over threads, got " << type
                         << "; reduce the thread's vector with "
                            "vector.reduction first (T-RED-1)";
  if (isa<Float16Type, BFloat16Type>(type))
    return emitOpError() << "reduces f32, got " << type
                         << "; extend the values to f32 with arith.extf first "
                            "(16-bit sums lose precision; tl.sum accumulates "
                            "in f32 too) (T-RED-1)";
  if (!type.isF32() && !type.isSignlessInteger(32))
    return emitOpError() << "reduces f32 or i32 values, got " << type
                         << " (T-RED-1)";
  // T-RED-2: the kind combines values of the type.
  if (type.isF32() && isIntegerKind(kind))
    return emitOpError() << "integer reduction '" << kindName
                         << "' on f32; use add, mul, minnumf, maxnumf, "
                            "minimumf or maximumf (T-RED-2)";
  if (type.isInteger() && isFloatKind(kind))
    return emitOpError() << "float reduction '" << kindName << "' on " << type
                         << "; use add, mul, minsi, minui, maxsi, maxui, and, "
                            "or or xor (T-RED-2)";
  // T-RED-3: lane groups are powers of two within the warp.
  if (std::optional<uint32_t> lanes = getLanes()) {
    if (getScope() != ReduceScope::warp)
      return emitOpError() << "'lanes " << *lanes << "' needs scope warp, got "
                           << stringifyReduceScope(getScope()) << " (T-RED-3)";
    if (*lanes < 2 || *lanes > 32 || !llvm::isPowerOf2_32(*lanes))
      return emitOpError() << "'lanes' must be a power of two in 2..32, got "
                           << *lanes << " (T-RED-3)";
  }
  // T-RED-4: device code.
  Operation *op = getOperation();
  if (!op->getParentOfType<gpu::GPUFuncOp>() &&
      !op->getParentOfType<gpu::LaunchOp>() &&
      !op->getParentOfType<gpu::GPUModuleOp>())
    return emitOpError() << "reduces over the threads of a GPU kernel: it "
                            "must be in a gpu.func, a gpu.launch body or a "
                            "gpu.module, not host code (T-RED-4)";
  if (getScope() != ReduceScope::warp &&
      !op->getParentOfType<gpu::GPUFuncOp>() &&
      !op->getParentOfType<gpu::LaunchOp>())
    return emitOpError() << "a " << stringifyReduceScope(getScope())
                         << " reduction must be in a gpu.func or a gpu.launch "
                            "body: its scratch is the kernel's static shared "
                            "memory (T-RED-4)";
  // T-RED-5: the scope is made of whole warps (warpgroups).
  if (std::optional<std::array<int64_t, 3>> shape = getKnownBlockShape())
    return verifyBlockShape(*shape);
  return success();
}
