//===- Diagnostics.cpp - Diagnostics that do not print whole bodies -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/Diagnostics.h"

using namespace mlir;

InFlightDiagnostic tile::emitConciseError(Operation *op) {
  if (op->getNumRegions() != 0)
    return mlir::emitError(op->getLoc());
  return op->emitError();
}

InFlightDiagnostic tile::emitConciseOpError(Operation *op) {
  if (op->getNumRegions() != 0)
    return mlir::emitError(op->getLoc()) << "'" << op->getName() << "' op ";
  return op->emitOpError();
}

InFlightDiagnostic tile::emitConciseWarning(Operation *op) {
  if (op->getNumRegions() != 0)
    return mlir::emitWarning(op->getLoc());
  return op->emitWarning();
}
