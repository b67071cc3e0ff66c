//===- Diagnostics.h - Diagnostics that do not print whole bodies -*- C++
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Operation::emitError attaches the op to the diagnostic, and MLIR prints an
// attached op after the message (-mlir-print-op-on-diagnostic, on by
// default): for a module, a kernel, a loop or a branch that is its whole
// body, pages of IR after a one-line error. The passes name such ops by
// their location only; ops without regions are attached as usual.
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_DIAGNOSTICS_H
#define TILE_IR_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"

namespace mlir::tile {

/// An error at `op`, which is attached only when it has no regions.
InFlightDiagnostic emitConciseError(Operation *op);

/// The same, prefixed "'<op name>' op " as Operation::emitOpError does.
InFlightDiagnostic emitConciseOpError(Operation *op);

/// A warning at `op`, which is attached only when it has no regions.
InFlightDiagnostic emitConciseWarning(Operation *op);

} // namespace mlir::tile

#endif // TILE_IR_DIAGNOSTICS_H
