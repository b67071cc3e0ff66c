//===- TileLevelOps.cpp - Verifiers of the tile-level ops -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "VerifierUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::tile;

/// The extent of a rank-2 layout's mode `i` (1 for missing modes).
static int64_t modeSize(const Layout &layout, size_t i) {
  return i < layout.rank() ? layout[i].size() : 1;
}

std::pair<int64_t, int64_t> CopyOp::getTilerShape() {
  Layout threads = getThreads().getLayout(), values = getValues().getLayout();
  return {modeSize(threads, 0) * modeSize(values, 0),
          modeSize(threads, 1) * modeSize(values, 1)};
}

llvm::Expected<Layout> CopyOp::getThreadValueLayout() {
  Layout threads = getThreads().getLayout(), values = getValues().getLayout();
  llvm::Expected<Layout> mn = rakedProduct(threads, values);
  if (!mn)
    return mn.takeError();
  return withShape(rightInverse(*mn), IntTuple({threads.size(), values.size()}));
}

LogicalResult CopyOp::verify() {
  MemRefType src = getSrc().getType(), dst = getDst().getType();
  Layout threads = getThreads().getLayout(), values = getValues().getLayout();
  auto fail = [&]() {
    return emitOpError();
  };
  // T-TILE-1: rank-2 tiles and layouts, global -> shared, a whole number of
  // tilers, contiguous values of a cp.async size.
  if (src.getRank() != 2 || dst.getRank() != 2 ||
      int64_t(getIndices().size()) != 2)
    return fail() << "copies rank-2 tiles with one index per source "
                     "dimension (T-TILE-1)";
  if (!isGlobalMemory(src) || !isSharedMemory(dst) ||
      !dst.getLayout().isIdentity() || !hasContiguousInnerDim(src) ||
      src.getElementType() != dst.getElementType())
    return fail() << "expected a global source and a dense shared destination "
                     "of one element type, got "
                  << src << " and " << dst << " (T-TILE-1)";
  if (threads.rank() != 2 || values.rank() != 2)
    return fail() << "threads and values must be rank-2 (m, n) layouts, got "
                  << threads.str() << " and " << values.str() << " (T-TILE-1)";
  auto [tileM, tileN] = getTilerShape();
  if (dst.getShape()[0] % tileM || dst.getShape()[1] % tileN)
    return fail() << "destination " << dst << " is not a whole number of "
                  << tileM << "x" << tileN << " tilers (T-TILE-1)";
  llvm::Expected<Layout> tv = getThreadValueLayout();
  if (!tv)
    return fail() << "thread/value layouts do not compose: "
                  << llvm::toString(tv.takeError()) << " (T-TILE-1)";
  int64_t numThreads = threads.size(), numValues = values.size();
  for (int64_t t = 0; t < numThreads; ++t)
    for (int64_t v = 1; v < numValues; ++v)
      if ((*tv)(t + numThreads * v) != (*tv)(t) + v * tileM)
        return fail() << "thread " << t << "'s values are not contiguous along "
                         "the rows, so one cp.async cannot copy them (T-TILE-1)";
  int64_t bytes = numValues * dst.getElementTypeBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return fail() << "each thread copies " << bytes
                  << " bytes; cp.async copies 4, 8 or 16 (T-TILE-1)";
  return success();
}

unsigned TmaCopyOp::getMinSmVersion() { return 90; }

LogicalResult TmaCopyOp::verify() {
  TmaDescType desc = getDescriptor().getType();
  if (failed(verifyTmaCoordinates(*this, desc, getCoordinates())) ||
      failed(verifyTmaSharedTile(*this, desc, getDst(), getDstIndices(),
                                 "destination")))
    return failure();
  return verifyBarrierIndex(*this, getBarriers().getType(), getBarrierIndex());
}

unsigned WarpSpecializeOp::getMinSmVersion() { return 90; }
bool WarpSpecializeOp::requiresArchSpecificTarget() { return true; }

LogicalResult WarpSpecializeOp::verify() {
  // T-WS-1: register counts setmaxnreg accepts.
  for (auto [role, count] : {std::pair<StringRef, int64_t>{"producer", getProducerRegisters()},
                             {"consumer", getConsumerRegisters()}})
    if (count < 24 || count > 256 || count % 8)
      return emitOpError() << role
                           << " register count must be a multiple of 8 in "
                              "[24, 256], got "
                           << count << " (T-WS-1)";
  int64_t consumers = getConsumers();
  if (consumers < 1)
    return emitOpError() << "needs at least one consumer warpgroup, got "
                         << consumers << " (T-WS-2)";
  Block &consumer = getConsumer().front();
  if (!getProducer().front().args_empty() || consumer.getNumArguments() != 1 ||
      !consumer.getArgument(0).getType().isIndex())
    return emitOpError() << "the producer region takes no arguments and the "
                            "consumer region one index (the consumer number)";
  // T-WS-2: the kernel runs exactly the producer and consumer warpgroups.
  auto func = (*this)->getParentOfType<gpu::GPUFuncOp>();
  std::optional<ArrayRef<int32_t>> block =
      func ? func.getKnownBlockSize() : std::nullopt;
  int64_t threads = kWarpgroupThreads * (1 + consumers);
  if (!block || (*block)[0] != threads || (*block)[1] != 1 || (*block)[2] != 1) {
    InFlightDiagnostic diag = emitOpError()
                              << "needs its kernel's known_block_size to be ["
                              << threads << ", 1, 1] (1 producer and "
                              << consumers << " consumer warpgroups of "
                              << kWarpgroupThreads << " threads), got ";
    if (block) {
      diag << "[";
      llvm::interleaveComma(*block, diag);
      diag << "]";
    } else
      diag << "none";
    return diag << " (T-WS-2)";
  }
  // T-WS-3: the warpgroups' registers fit the register file.
  int64_t registers = kWarpgroupThreads * (getProducerRegisters() +
                                           consumers * getConsumerRegisters());
  if (registers > kRegistersPerSm)
    return emitOpError() << "asks for " << kWarpgroupThreads << " x ("
                         << getProducerRegisters() << " + " << consumers
                         << " x " << getConsumerRegisters() << ") = "
                         << registers << " registers, more than the "
                         << kRegistersPerSm << " of an SM (T-WS-3)";
  return success();
}
