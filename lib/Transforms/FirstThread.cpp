//===- FirstThread.cpp - The thread that issues single-thread work --------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "FirstThread.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;

Value mlir::tile::isFirstThread(OpBuilder &builder, Location loc) {
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value result;
  for (gpu::Dimension dim :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    Value id = gpu::ThreadIdOp::create(builder, loc, dim);
    Value isZero =
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, id, zero);
    result =
        result ? arith::AndIOp::create(builder, loc, result, isZero) : isZero;
  }
  return result;
}
