//===- GridDependencyOps.cpp - Verifier of the grid dependency wait -------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;

/// Whether `op` itself (not the ops in its regions) may read or write global
/// memory: it takes a global memref, a pointer into global (or generic)
/// memory or a tensor map and is not free of memory effects, it calls a
/// function, or it is inline assembly with side effects (whose addresses may
/// be plain integers). The L2 prefetches (TMA's and the bulk one) and the
/// descriptor prefetch read global memory only into caches that the previous
/// grid's writes keep coherent.
static bool mayAccessGlobalMemory(Operation *op) {
  if (isa<TmaPrefetchOp, TmaPrefetchDescriptorOp, BulkPrefetchOp>(op))
    return false;
  if (isa<CallOpInterface>(op))
    return true;
  if (auto assembly = dyn_cast<LLVM::InlineAsmOp>(op))
    return assembly.getHasSideEffects();
  if (isMemoryEffectFree(op))
    return false;
  for (Type type : op->getOperandTypes()) {
    if (auto memref = dyn_cast<MemRefType>(type); memref && isGlobalMemory(memref))
      return true;
    if (isa<TmaDescType>(type))
      return true;
    if (auto pointer = dyn_cast<LLVM::LLVMPointerType>(type);
        pointer && pointer.getAddressSpace() <= 1)
      return true;
  }
  return false;
}

LogicalResult GridDependencyWaitOp::verify() {
  // T-PDL-1: in a kernel's entry block (not inside a region), once: a
  // gpu.func kernel's, or a gpu.launch body's (outlined into one).
  Operation *parent = (*this)->getParentOp();
  Region *body = nullptr;
  if (auto kernel = dyn_cast<gpu::GPUFuncOp>(parent); kernel && kernel.isKernel())
    body = &kernel.getBody();
  else if (auto launch = dyn_cast<gpu::LaunchOp>(parent))
    body = &launch.getBody();
  if (!body || (*this)->getBlock() != &body->front())
    return emitOpError() << "expected directly in the body of a gpu.func kernel "
                            "or a gpu.launch (its entry block, not inside a "
                            "region), so that every thread waits (T-PDL-1)";
  GridDependencyWaitOp first;
  parent->walk([&](GridDependencyWaitOp wait) {
    if (!first)
      first = wait;
  });
  if (first != *this)
    return emitOpError() << "expected once in a kernel; the first is at "
                         << first.getLoc() << " (T-PDL-1)";
  // T-PDL-2: nothing before it reads or writes global memory.
  for (Operation &before : llvm::make_range((*this)->getBlock()->begin(),
                                            Block::iterator(*this))) {
    Operation *access = nullptr;
    before.walk([&](Operation *nested) {
      if (mayAccessGlobalMemory(nested)) {
        access = nested;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (access) {
      InFlightDiagnostic diagnostic =
          emitOpError() << "expected no access to global memory before the "
                           "wait: '"
                        << access->getName()
                        << "' may read what the previous grid still writes or "
                           "write what it reads; only shared memory, barriers "
                           "and L2 prefetches go before it (T-PDL-2)";
      diagnostic.attachNote(access->getLoc()) << "the access";
      return diagnostic;
    }
  }
  return success();
}
