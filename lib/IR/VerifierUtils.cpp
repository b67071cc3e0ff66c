//===- VerifierUtils.cpp - Checks shared by several op verifiers ----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "VerifierUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult tile::verifyPendingGroups(Operation *op, IntegerAttr pending) {
  int64_t value = pending.getValue().getSExtValue();
  if (value < 0)
    return op->emitOpError() << "expected a non-negative number of pending "
                                "groups, got "
                             << value << " (T-CPASYNC-7)";
  return success();
}

LogicalResult tile::verifyBarrierIndex(Operation *op, MBarrierType type,
                                       Value index) {
  std::optional<int64_t> value = getConstantIntValue(index);
  if (value && (*value < 0 || *value >= int64_t(type.getCount())))
    return op->emitOpError()
           << "barrier index " << *value << " is out of range for " << type
           << " (T-MBAR-4)";
  return success();
}
