//===- TileLevelOps.cpp - Verifiers of the tile-level ops -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "VerifierUtils.h"

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
