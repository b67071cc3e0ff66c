//===- TileLevelOps.cpp - Verifiers of the tile-level ops -----------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/MemorySpace.h"
#include "Tile/IR/TileOps.h"
#include "Tile/IR/WgmmaTypes.h"
#include "VerifierUtils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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
  return withShape(rightInverse(*mn),
                   IntTuple({threads.size(), values.size()}));
}

/// T-TILE-5: a tile-level op is expanded into straight-line code, so its
/// instructions per thread (warp, warpgroup) are bounded: far above any
/// tile that fits in shared memory, far below what takes the compiler
/// seconds to expand.
static constexpr int64_t kMaxExpandedInstructions = 4096;

static LogicalResult verifyExpansion(Operation *op, int64_t count,
                                     StringRef what) {
  if (count <= kMaxExpandedInstructions)
    return success();
  return op->emitOpError() << "expands into " << count << " " << what
                           << "; at most " << kMaxExpandedInstructions
                           << ": loop over smaller tiles (T-TILE-5)";
}

LogicalResult CopyOp::verify() {
  auto src = cast<MemRefType>(getSrc().getType());
  auto dst = cast<MemRefType>(getDst().getType());
  Layout threads = getThreads().getLayout(), values = getValues().getLayout();
  auto fail = [&]() { return emitOpError(); };
  // T-TILE-1: one global and one dense shared memref of one element type; a
  // rank-2 global origin; a tile of whole tilers with its leading indices;
  // contiguous values of a cp.async (vector) size.
  bool load = isSharedMemory(dst) && isGlobalMemory(src);
  bool store = isSharedMemory(src) && isGlobalMemory(dst);
  auto global = cast<MemRefType>(getGlobal().getType());
  auto tile = cast<MemRefType>(getTile().getType());
  if ((!load && !store) || !tile.getLayout().isIdentity() ||
      !hasContiguousInnerDim(global) ||
      src.getElementType() != dst.getElementType() ||
      !getElementSizeInBytes(src.getElementType()))
    return fail() << "expected a global and a dense shared memref of one "
                     "integer or float element type of whole bytes, got "
                  << src << " and " << dst << " (T-TILE-1)";
  if (global.getRank() != 2 || getGlobalIndices().size() != 2 ||
      tile.getRank() < 2 ||
      int64_t(getTileIndices().size()) != tile.getRank() - 2)
    return fail() << "copies rank-2 tiles: a rank-2 global memref with its "
                     "(row, column) and a shared tile indexed in its leading "
                     "dimensions (T-TILE-1)";
  if (!getBounds().empty() && getBounds().size() != 2)
    return fail() << "takes 2 bounds [rows, columns] of the global matrix, "
                     "got "
                  << getBounds().size() << " (T-TILE-1)";
  if (threads.rank() != 2 || values.rank() != 2)
    return fail() << "threads and values must be rank-2 (m, n) layouts, got "
                  << threads.str() << " and " << values.str() << " (T-TILE-1)";
  auto [tileM, tileN] = getTilerShape();
  ArrayRef<int64_t> tileShape = tile.getShape().take_back(2);
  if (tileShape[0] % tileM || tileShape[1] % tileN)
    return fail() << "tile " << tile << " is not a whole number of " << tileM
                  << "x" << tileN << " tilers (T-TILE-1)";
  if (failed(verifyExpansion(*this,
                             (tileShape[0] / tileM) * (tileShape[1] / tileN),
                             "copies per thread")))
    return failure();
  llvm::Expected<Layout> tv = getThreadValueLayout();
  if (!tv)
    return fail() << "thread/value layouts do not compose: "
                  << llvm::toString(tv.takeError()) << " (T-TILE-1)";
  int64_t numThreads = threads.size(), numValues = values.size();
  for (int64_t t = 0; t < numThreads; ++t)
    for (int64_t v = 1; v < numValues; ++v)
      if ((*tv)(t + numThreads * v) != (*tv)(t) + v * tileM)
        return fail() << "thread " << t
                      << "'s values are not contiguous along "
                         "the rows, so one "
                      << (load ? "cp.async" : "vector access")
                      << " cannot copy them (T-TILE-1)";
  int64_t bytes = numValues * tile.getElementTypeBitWidth() / 8;
  if (bytes != 4 && bytes != 8 && bytes != 16)
    return fail() << "each thread copies " << bytes
                  << " bytes; cp.async copies 4, 8 or 16 (T-TILE-1)";
  return success();
}

LogicalResult TmaCopyOp::verify() {
  TmaDescType desc = getDescriptor().getType();
  if (failed(verifyTmaCoordinates(*this, desc, getCoordinates())) ||
      failed(verifyTmaSharedTile(*this, desc, getDst(), getDstIndices(),
                                 "destination", /*allowsRowRange=*/true)))
    return failure();
  return verifyBarrierIndex(*this, getBarriers().getType(), getBarrierIndex());
}

LogicalResult WarpSpecializeOp::verify() {
  // T-WS-1: register counts setmaxnreg accepts.
  for (auto [role, count] :
       {std::pair<StringRef, int64_t>{"producer", getProducerRegisters()},
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
  if (!block || (*block)[0] != threads || (*block)[1] != 1 ||
      (*block)[2] != 1) {
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
  // T-WS-3: setmaxnreg.inc draws on the registers the CTA was launched with,
  // which setmaxnreg.dec released: the warpgroups' new counts fit in what
  // ptxas gives each thread of a block of this size (65536 / threads,
  // rounded down to a multiple of 8).
  int64_t registers = kWarpgroupThreads * (getProducerRegisters() +
                                           consumers * getConsumerRegisters());
  int64_t launched = kRegistersPerSm / threads / 8 * 8;
  if (registers > launched * threads)
    return emitOpError() << "asks for " << kWarpgroupThreads << " x ("
                         << getProducerRegisters() << " + " << consumers
                         << " x " << getConsumerRegisters()
                         << ") = " << registers << " registers, more than the "
                         << threads << " x " << launched << " = "
                         << launched * threads << " its " << threads
                         << " threads are launched with: setmaxnreg.inc would "
                            "wait forever (T-WS-3)";
  return success();
}

//===----------------------------------------------------------------------===//
// Tiled MMA (T-TILE-3)
//===----------------------------------------------------------------------===//

std::array<int64_t, 3> MmaOp::getTileShape() {
  ArrayRef<int64_t> a = getA().getType().getShape().take_back(2);
  ArrayRef<int64_t> b = getB().getType().getShape().take_back(2);
  int64_t n = getTransposeB() ? b[1] : b[0];
  return {a[0], n, a[1]};
}

std::pair<int64_t, int64_t> MmaOp::getWarpShape() {
  std::array<int64_t, 3> tile = getTileShape();
  ArrayRef<int64_t> warps = getWarps();
  return {tile[0] / warps[0], tile[1] / warps[1]};
}

/// The accumulator type of a warp part of `rows` x `columns`.
static VectorType getAccumulatorType(MLIRContext *context, int64_t rows,
                                     int64_t columns) {
  return VectorType::get({rows / 16, columns / 8, 2, 2},
                         Float32Type::get(context));
}

/// T-TILE-3: a 2-D grid of warps.
static LogicalResult verifyWarps(Operation *op, ArrayRef<int64_t> warps) {
  if (warps.size() != 2 || warps[0] < 1 || warps[1] < 1)
    return op->emitOpError()
           << "warps must be a positive (M, N) grid of warps (T-TILE-3)";
  return success();
}

LogicalResult MmaOp::verify() {
  if (failed(verifyWarps(*this, getWarps())))
    return failure();
  MemRefType a = getA().getType(), b = getB().getType();
  auto tileOperand = [&](MemRefType type, ValueRange indices,
                         StringRef name) -> LogicalResult {
    if (!isSharedMemory(type) || !type.getLayout().isIdentity() ||
        type.getRank() < 2)
      return emitOpError() << "expected " << name
                           << " to be a dense shared memref of rank >= 2, got "
                           << type << " (T-TILE-3)";
    if (int64_t(indices.size()) != type.getRank() - 2)
      return emitOpError() << "expected " << type.getRank() - 2 << " " << name
                           << " indices (one per dimension before the tile), "
                              "got "
                           << indices.size() << " (T-TILE-3)";
    return success();
  };
  if (failed(tileOperand(a, getAIndices(), "A")) ||
      failed(tileOperand(b, getBIndices(), "B")))
    return failure();
  Type element = a.getElementType();
  if (!isa<Float16Type, BFloat16Type>(element) || b.getElementType() != element)
    return emitOpError() << "mma.sync m16n8k16 multiplies f16 or bf16 tiles of "
                            "one type, got "
                         << element << " and " << b.getElementType()
                         << " (T-TILE-3)";
  auto [bm, bn, bk] = getTileShape();
  int64_t bkOfB =
      getTransposeB() ? b.getShape().take_back(2)[0] : b.getShape().back();
  if (bkOfB != bk)
    return emitOpError() << "A has K = " << bk << " but B has K = " << bkOfB
                         << (getTransposeB() ? " (B is K x N)"
                                             : " (B is N x K)")
                         << " (T-TILE-3)";
  ArrayRef<int64_t> warps = getWarps();
  if (bm % (16 * warps[0]) || bn % (16 * warps[1]) || bk % 16)
    return emitOpError() << "the " << bm << "x" << bn << "x" << bk
                         << " tile does not split into " << warps[0] << "x"
                         << warps[1]
                         << " warps of 16-row, 16-column parts and 16-wide K "
                            "steps (T-TILE-3)";
  auto [wm, wn] = getWarpShape();
  if (failed(verifyExpansion(*this, (wm / 16) * (wn / 8) * (bk / 16),
                             "mma.sync m16n8k16 per warp")))
    return failure();
  VectorType want = getAccumulatorType(getContext(), wm, wn);
  if (getAcc().getType() != want || getResult().getType() != want)
    return emitOpError() << "a warp's " << wm << "x" << wn
                         << " part accumulates in " << want << ", got "
                         << getAcc().getType() << " (T-TILE-3)";
  return success();
}

/// T-TILE-3 for the stores of accumulator fragments.
/// With `leading`, dimensions before the tile's (rows, columns) are indexed
/// as given.
static LogicalResult verifyFragmentStore(Operation *op, MemRefType dst,
                                         ValueRange indices, ValueRange bounds,
                                         bool leading = false) {
  bool rankOk = leading ? dst.getRank() >= 2 : dst.getRank() == 2;
  if (!rankOk || int64_t(indices.size()) != dst.getRank() ||
      !hasContiguousInnerDim(dst))
    return op->emitOpError()
           << "stores to a rank-2 memref"
           << (leading ? " (or its last two dimensions)" : "")
           << " with contiguous rows, one index per dimension, got " << dst
           << " (T-TILE-3)";
  if (!bounds.empty() && bounds.size() != 2)
    return op->emitOpError() << "takes 2 bounds (rows, columns), got "
                             << bounds.size() << " (T-TILE-3)";
  if (!isa<FloatType>(dst.getElementType()))
    return op->emitOpError()
           << "stores f32 accumulators to a float memref, got " << dst
           << " (T-TILE-3)";
  return success();
}

/// stmatrix needs sm_90.
unsigned MmaStoreOp::getMinSmVersion() {
  return getStmatrix() ? kSm90 : kMinSmVersion;
}

LogicalResult MmaStoreOp::verify() {
  if (failed(verifyWarps(*this, getWarps())))
    return failure();
  // T-TILE-3: a warp's fragments, (M/16) x (N/8) x 2 x 2; T-TILE-5: bounded.
  ArrayRef<int64_t> fragments = getAcc().getType().getShape();
  if (fragments[2] != 2 || fragments[3] != 2)
    return emitOpError() << "expected mma.sync accumulator fragments "
                            "vector<(M/16) x (N/8) x 2 x 2 x f32>, got "
                         << getAcc().getType() << " (T-TILE-3)";
  uint64_t count =
      llvm::SaturatingMultiply(uint64_t(fragments[0]), uint64_t(fragments[1]));
  if (failed(verifyExpansion(*this,
                             int64_t(std::min<uint64_t>(count, INT64_MAX)),
                             "fragment stores per thread")))
    return failure();
  MemRefType dst = getDst().getType();
  if (getStmatrix() &&
      (!isSharedMemory(dst) ||
       getElementSizeInBytes(dst.getElementType()) != 2 ||
       !getBounds().empty() || getAcc().getType().getShape()[1] % 2))
    return emitOpError() << "stmatrix stores pairs of fragments to a 16-bit "
                            "shared memref without bounds; got "
                         << dst << (getBounds().empty() ? "" : " with bounds")
                         << " and " << getAcc().getType() << " (T-TILE-3)";
  return verifyFragmentStore(*this, getDst().getType(), getIndices(),
                             getBounds());
}

/// The accumulators of an M x N warpgroup tile (f32 unless `element`).
static VectorType getWarpgroupAccumulatorType(MLIRContext *context, int64_t m,
                                              int64_t n, Type element = {}) {
  return VectorType::get({m / 64 * n / 2},
                         element ? element : Float32Type::get(context));
}

/// The (M, N) shape and the accumulators of a warpgroup tile's store
/// (`rule` names the invariant).
static LogicalResult verifyWarpgroupTile(Operation *op, ArrayRef<int64_t> shape,
                                         VectorType acc, StringRef rule) {
  if (shape.size() != 2 || shape[0] < 64 || shape[0] % 64 || shape[1] < 8 ||
      shape[1] % 8 ||
      acc != getWarpgroupAccumulatorType(op->getContext(), shape[0], shape[1]))
    return op->emitOpError()
           << "expected shape (M, N) with M = 64 i, N = 8 j and "
              "vector<(M/64 * N/2) x f32> accumulators, got "
           << acc << " (" << rule << ")";
  return success();
}

int64_t WarpgroupMmaStoreOp::getColumnSpans() {
  MemRefType dst = getDst().getType();
  int64_t width = dst.getShape().back();
  if (dst.getRank() < 4 || !getBounds().empty() || getTranspose() ||
      ShapedType::isDynamic(width) || width <= 0 || getShape()[1] <= width)
    return 1;
  return llvm::divideCeil(getShape()[1], width);
}

LogicalResult WarpgroupMmaStoreOp::verify() {
  if (failed(verifyWarpgroupTile(*this, getShape(), getAcc().getType(),
                                 "T-TILE-3")))
    return failure();
  MemRefType dst = getDst().getType();
  if (failed(verifyFragmentStore(*this, dst, getIndices(), getBounds(),
                                 /*leading=*/true)))
    return failure();
  // Without bounds, a static destination holds the tile (transposed: its
  // transpose) from the indices where they are constants, else from 0; a
  // tile wider than its spans, span by span from column 0.
  if (!getBounds().empty())
    return success();
  ArrayRef<int64_t> shape = getShape();
  int64_t rank = dst.getRank();
  int64_t spans = getColumnSpans();
  if (spans > 1) {
    int64_t width = dst.getShape().back();
    if (width % 8 || shape[1] % width ||
        getConstantIntValue(getIndices()[rank - 1]) != int64_t(0))
      return emitOpError() << "writes " << shape[1] << " columns in spans of "
                           << width << ": expected spans of a multiple of 8 "
                           << "columns and a multiple of " << width
                           << " columns from column 0 (T-TILE-3)";
    int64_t size = dst.getDimSize(rank - 3);
    int64_t start =
        getConstantIntValue(getIndices()[rank - 3]).value_or(int64_t(0));
    if (start < 0 || (!ShapedType::isDynamic(size) && start > size - spans))
      return emitOpError() << "writes " << spans << " spans from index "
                           << start << " of a destination dimension of " << size
                           << " (T-TILE-3)";
  }
  int64_t rows = getTranspose() ? shape[1] : shape[0];
  int64_t columns = (getTranspose() ? shape[0] : shape[1]) / spans;
  for (auto [dim, extent] : {std::pair(rank - 2, rows), {rank - 1, columns}}) {
    int64_t size = dst.getDimSize(dim);
    if (ShapedType::isDynamic(size))
      continue;
    int64_t start = getConstantIntValue(getIndices()[dim]).value_or(int64_t(0));
    if (start + extent > size)
      return emitOpError() << "writes " << extent << " "
                           << (dim == rank - 2 ? "rows" : "columns")
                           << " from index " << start
                           << " of a destination dimension of " << size
                           << " (T-TILE-3)";
  }
  return success();
}

/// T-TILE-8: a non-empty memref of factors (a thread loads its own).
static LogicalResult verifyFactors(Operation *op, Value factors) {
  auto type = cast<MemRefType>(factors.getType());
  if (type.getShape()[0] == 0)
    return op->emitOpError() << "expected a non-empty memref of factors, got "
                             << type << " (T-TILE-8)";
  return success();
}

LogicalResult WarpgroupRowsOp::verify() {
  // T-TILE-8: a warpgroup tile; a thread holds 2 M / 64 rows.
  ArrayRef<int64_t> shape = getShape();
  if (shape.size() != 2 || shape[0] < 64 || shape[0] % 64 || shape[1] < 8 ||
      shape[1] % 8)
    return emitOpError() << "expected shape (M, N) with M = 64 i, N = 8 j "
                            "(T-TILE-8)";
  if (getResult().getType().getNumElements() != 2 * shape[0] / 64)
    return emitOpError() << "a thread holds " << 2 * shape[0] / 64
                         << " rows of a " << shape[0] << "-row tile, got "
                         << getResult().getType() << " (T-TILE-8)";
  return verifyFactors(*this, getSrc());
}

LogicalResult WarpgroupScaleOp::verify() {
  // T-TILE-8: a warpgroup tile, and at least one factor: memrefs with their
  // origins, or the thread's row factors in registers.
  if (failed(verifyWarpgroupTile(*this, getShape(), getAcc().getType(),
                                 "T-TILE-8")))
    return failure();
  if (!getRows() && !getRowFactors() && !getColumns())
    return emitOpError() << "scales by rows, columns or both: give at least "
                            "one (T-TILE-8)";
  if (getRows() && getRowFactors())
    return emitOpError() << "takes row factors from a memref or from "
                            "registers, not both (T-TILE-8)";
  if (bool(getRows()) != bool(getRow()) ||
      bool(getColumns()) != bool(getColumn()))
    return emitOpError() << "expected an origin index with each factor "
                            "memref (T-TILE-8)";
  int64_t rowsHeld = 2 * getShape()[0] / 64;
  if (getRowFactors() && getRowFactors().getType().getNumElements() != rowsHeld)
    return emitOpError() << "a thread holds " << rowsHeld
                         << " rows of the tile: expected that many row "
                            "factors, got "
                         << getRowFactors().getType() << " (T-TILE-8)";
  for (Value factors : {getRows(), getColumns()})
    if (factors && failed(verifyFactors(*this, factors)))
      return failure();
  return success();
}

LogicalResult WarpgroupTmaStoreOp::verify() {
  // T-TILE-4: the accumulators, the box and the staging ring agree.
  ArrayRef<int64_t> shape = getShape();
  if (failed(verifyWarpgroupTile(*this, shape, getAcc().getType(), "T-TILE-4")))
    return failure();
  TmaDescType desc = getDescriptor().getType();
  ArrayRef<int64_t> box = desc.getBox();
  Type element = desc.getElementType();
  size_t rank = box.size();
  if (rank < 2 || box[rank - 2] != 64 || box[rank - 1] % 16 ||
      shape[1] % box[rank - 1] ||
      llvm::any_of(
          box.drop_back(2), [](int64_t e) { return e != 1; }) ||
      !llvm::is_contained({8u, 16u, 32u}, element.getIntOrFloatBitWidth()) ||
      !isa<FloatType>(element))
    return emitOpError() << "stores 64-row chunks through shared memory: "
                            "expected a descriptor of 32-, 16- or 8-bit "
                            "floats with box [64, W] "
                            "(after leading 1s), W a multiple of 16 dividing "
                            "N = "
                         << shape[1] << ", got " << desc << " (T-TILE-4)";
  if (std::optional<TmaReduceKind> kind = getReduce();
      kind && !isTmaReducible(*kind, element))
    return emitOpError() << "reduction " << stringifyTmaReduceKind(*kind)
                         << " does not exist for " << element << " (T-TMA-20)";
  if (failed(verifyTmaCoordinates(*this, desc, getCoordinates())))
    return failure();
  MemRefType staging = getStaging().getType();
  if (staging.getRank() < 3)
    return emitOpError() << "expected a staging ring whose last dimensions are "
                            "(buffers, 64, W), got "
                         << staging << " (T-TILE-4)";
  // The staging buffer index is the lowering's; its place is taken by a
  // coordinate here, only the count matters.
  SmallVector<Value> tileIndices(getIndices());
  tileIndices.push_back(getCoordinates().front());
  if (failed(verifyTmaSharedTile(*this, desc, getStaging(), tileIndices,
                                 "staging ring")))
    return failure();
  // A valid tile may keep the box's leading 1s; the ring is indexed
  // before its (buffers, 64, W) dimensions.
  if (staging.getRank() != int64_t(getIndices().size()) + 3)
    return emitOpError() << "expected a staging ring whose last dimensions are "
                            "(buffers, 64, W), got "
                         << staging << " (T-TILE-4)";
  int64_t buffers = staging.getShape().take_back(3)[0];
  int64_t chunks = shape[0] / 64 * (shape[1] / box.back());
  if (buffers < 1 || chunks % buffers)
    return emitOpError() << "the " << chunks
                         << " chunks of a call must be a "
                            "multiple of the "
                         << buffers
                         << " staging buffers, so that every call starts at "
                            "buffer 0 (T-TILE-4)";
  return success();
}

LogicalResult WarpgroupCoalescedStoreOp::verify() {
  // T-TILE-11: the accumulators, the staging ring and the destination agree.
  ArrayRef<int64_t> shape = getShape();
  if (failed(
          verifyWarpgroupTile(*this, shape, getAcc().getType(), "T-TILE-11")))
    return failure();
  MemRefType dst = getDst().getType();
  Type element = dst.getElementType();
  if (!isGlobalMemory(dst) || dst.getRank() != 2 || !isa<FloatType>(element) ||
      !llvm::is_contained({8u, 16u, 32u}, element.getIntOrFloatBitWidth()))
    return emitOpError() << "expected a global matrix of 32-, 16- or 8-bit "
                            "floats, got "
                         << dst << " (T-TILE-11)";
  MemRefType staging = getStaging().getType();
  int64_t rank = staging.getRank();
  // Dense and static: stmatrix writes 16-byte row pieces at the buffer's
  // 16-byte aligned rows.
  if (!isSharedMemory(staging) || !staging.hasStaticShape() ||
      !staging.getLayout().isIdentity())
    return emitOpError() << "expected a dense shared staging ring of static "
                            "shape, got "
                         << staging << " (T-TILE-11)";
  if (staging.getElementType() != element)
    return emitOpError() << "staging element type " << staging.getElementType()
                         << " differs from the destination's " << element
                         << " (T-TILE-11)";
  if (rank != int64_t(getIndices().size()) + 3)
    return emitOpError() << "expected a staging ring whose last dimensions are "
                            "(buffers, 64, W), indexed before them: "
                         << rank - 3 << " indices for " << staging << ", got "
                         << getIndices().size() << " (T-TILE-11)";
  ArrayRef<int64_t> chunk = staging.getShape().take_back(3);
  if (chunk[0] < 1 || chunk[1] != 64 || chunk[2] < 32 || chunk[2] % 32 ||
      shape[1] % chunk[2])
    return emitOpError() << "stores 64-row chunks of W columns through at "
                            "least one buffer, W a multiple of 32 dividing N = "
                         << shape[1] << ": got " << chunk[0]
                         << " staging buffers of " << chunk[1] << "x"
                         << chunk[2] << " (T-TILE-11)";
  return success();
}

/// The accumulators of an M x N warpgroup MMA (`rule` names the
/// invariant): vector<(M/64 * N/2) x T> of the element type they have.
static LogicalResult verifyMmaAccumulators(Operation *op, int64_t m, int64_t n,
                                           VectorType acc, StringRef rule) {
  VectorType want =
      getWarpgroupAccumulatorType(op->getContext(), m, n, acc.getElementType());
  if (acc == want)
    return success();
  return op->emitOpError() << "a " << m << "x" << n
                           << " warpgroup tile accumulates in " << want
                           << ", got " << acc << " (" << rule << ")";
}

/// T-WGMMA-3: a K-major operand whose K spans several swizzle spans starts
/// at column 0 of its first span (the lowering steps K over the spans by
/// its static offsets).
static LogicalResult verifyKSpansOrigin(Operation *op, MemRefType type,
                                        ValueRange indices, int64_t k,
                                        StringRef name, StringRef rule) {
  if (k <= type.getShape().back() || indices.empty() ||
      getConstantIntValue(indices.back()) == 0)
    return success();
  return op->emitOpError() << name << "'s K of " << k
                           << " continues over several swizzle spans: its "
                              "column index must be 0 ("
                           << rule << ")";
}

/// The K extent of a K-major warpgroup MMA operand: its rows' span, or,
/// for a K of more than one span, the spans of the dimension before the
/// rows (`... x C x R x span` holds C spans of K: a head dimension of 128
/// 16-bit elements as two 64-element TMA boxes).
static int64_t getKMajorExtent(MemRefType type, int64_t k) {
  ArrayRef<int64_t> shape = type.getShape();
  if (k > shape.back() && type.getRank() >= 3)
    return shape.back() * shape.take_back(3)[0];
  return shape.back();
}

/// T-WGMMA-6: a B tile of row groups (`b_row_groups`) is (G, C, R, span)
/// with R a multiple of 8 (16 when MN-major and R > 8, a K step's rows in
/// one group), indexed at row 0 of a group; its rows hold N (K-major: in
/// one group unless R = 8, where they continue over G) or K (MN-major, over
/// G), its chunks K spans (K-major) or N chunks (MN-major).
static LogicalResult verifyRowGroupsB(Operation *op, MemRefType b,
                                      ValueRange indices, int64_t n, int64_t k,
                                      bool transposeB, StringRef rule) {
  ArrayRef<int64_t> shape = b.getShape();
  if (b.getRank() < 4)
    return op->emitOpError()
           << "expected B of row groups as (groups, chunks, rows, span), got "
           << b << " (T-WGMMA-6)";
  int64_t groups = shape.take_back(4)[0], chunks = shape.take_back(3)[0],
          rows = shape.take_back(2)[0], span = shape.back();
  if (rows % 8 || (transposeB && rows != 8 && rows % 16))
    return op->emitOpError()
           << "B's row groups hold " << rows
           << " rows: expected a multiple of 8 (of 16 when MN-major and more "
              "than 8) (T-WGMMA-6)";
  std::optional<int64_t> row = getConstantIntValue(indices.take_back(2)[0]);
  if (!row || *row != 0)
    return op->emitOpError() << "B of row groups is indexed at row 0 of a "
                                "group (T-WGMMA-6)";
  // From a constant origin group and chunk, the groups and chunks after it.
  auto after = [&](int64_t extent, Value index) {
    std::optional<int64_t> origin = getConstantIntValue(index);
    return origin ? extent - *origin : extent;
  };
  groups = after(groups, indices.take_back(4)[0]);
  chunks = after(chunks, indices.take_back(3)[0]);
  int64_t bRows = rows == 8 || transposeB ? groups * rows : rows;
  int64_t bN = transposeB ? chunks * span : bRows;
  int64_t bK = transposeB ? bRows : (k > span ? chunks * span : span);
  if (bN < n || bK < k)
    return op->emitOpError()
           << "B " << b << " of row groups cannot hold " << n << "x" << k
           << (transposeB ? " (B MN-major)" : " K-major")
           << " tiles from its indexed group and chunk (" << rule
           << ", T-WGMMA-6)";
  return success();
}

/// The B tile of a warpgroup MMA holds N x K: N x K rows (N may continue
/// over the dimension before them when fewer than N, e.g. halves that two
/// CTAs multicast; K over it when more than one span), or with
/// `transposeB` (N chunks, K rows, N span).
static LogicalResult verifyWarpgroupB(Operation *op, MemRefType b, int64_t n,
                                      int64_t k, bool transposeB,
                                      StringRef rule) {
  ArrayRef<int64_t> bShape = b.getShape();
  int64_t bN = bShape.take_back(2)[0], bK = getKMajorExtent(b, k);
  bool nContinues = !transposeB && bN < n && b.getRank() >= 3 && bN % 8 == 0;
  if (nContinues && k > bShape.back())
    return op->emitOpError()
           << "B " << b << " continues over the dimension before its rows "
           << "either along N or along K, not both (" << rule << ")";
  if (nContinues)
    bN *= bShape.take_back(3)[0];
  if (transposeB) {
    bN = bShape.take_back(3)[0] * bShape.back();
    bK = bShape.take_back(2)[0];
  }
  if (bN < n || bK < k)
    return op->emitOpError() << "B " << b << " cannot hold " << n << "x" << k
                             << (transposeB ? " (B MN-major)" : " K-major")
                             << " tiles (" << rule << ")";
  return success();
}

LogicalResult WarpgroupMmaOp::verify() {
  // T-WGMMA-3: the tiles, the shape and the accumulators agree.
  ArrayRef<int64_t> shape = getShape();
  MemRefType a = getA().getType(), b = getB().getType();
  if (int64_t(getAIndices().size()) != a.getRank() ||
      int64_t(getBIndices().size()) != b.getRank())
    return emitOpError() << "expected one index per dimension of A and B "
                            "(T-WGMMA-3)";
  if (shape.size() != 3)
    return emitOpError() << "shape must be (M, N, K) (T-WGMMA-3)";
  int64_t m = shape[0], n = shape[1], k = shape[2];
  std::optional<int64_t> step =
      getWgmmaInstructionK(a.getElementType(), b.getElementType());
  if (!step)
    return emitOpError() << "wgmma multiplies f16 or bf16 tiles of one type, "
                            "or 8-bit float tiles (f8E4M3FN, f8E5M2), got "
                         << a.getElementType() << " and " << b.getElementType()
                         << " (T-WGMMA-3)";
  if (m < 64 || m % 64 || n < 8 || n > 256 || n % 8 || k < *step || k % *step)
    return emitOpError() << "shape " << m << "x" << n << "x" << k
                         << " is not M = 64 i, N a multiple of 8 in [8, 256], "
                            "K = "
                         << *step << " j (T-WGMMA-3)";
  if (isWgmmaFp8(a.getElementType()) && (getTransposeA() || getTransposeB()))
    return emitOpError() << "8-bit float tiles must be K-major: wgmma "
                            "transposes only f16/bf16 tiles (T-WGMMA-3)";
  if (failed(verifyExpansion(*this, (m / 64) * (k / *step),
                             "wgmma instructions per warpgroup")))
    return failure();
  if (failed(verifyWgmmaTile(*this, getA(), getTransposeA())) ||
      failed(verifyWgmmaTile(*this, getB(), getTransposeB())))
    return failure();
  // A's M and K extents: M x K rows (K may continue over the dimension
  // before them), or (M chunks, K rows, M span).
  ArrayRef<int64_t> aShape = a.getShape();
  int64_t aM = aShape.take_back(2)[0], aK = getKMajorExtent(a, k);
  if (getTransposeA()) {
    aM = aShape.take_back(3)[0] * aShape.back();
    aK = aShape.take_back(2)[0];
  }
  if (aM < m || aK < k)
    return emitOpError() << "A " << a << " cannot hold " << m << "x" << k
                         << (getTransposeA() ? " (A MN-major)" : " K-major")
                         << " tiles (T-WGMMA-3)";
  if (failed(getBRowGroups()
                 ? verifyRowGroupsB(*this, b, getBIndices(), n, k,
                                    getTransposeB(), "T-WGMMA-3")
                 : verifyWarpgroupB(*this, b, n, k, getTransposeB(),
                                    "T-WGMMA-3")) ||
      (!getTransposeA() && failed(verifyKSpansOrigin(*this, a, getAIndices(), k,
                                                     "A", "T-WGMMA-3"))) ||
      (!getTransposeB() && failed(verifyKSpansOrigin(*this, b, getBIndices(), k,
                                                     "B", "T-WGMMA-3"))))
    return failure();
  Type accElement = getAcc().getType().getElementType();
  if (!isWgmmaAccumulatorType(accElement, a.getElementType(),
                              b.getElementType()))
    return emitOpError() << "accumulates " << a.getElementType() << " x "
                         << b.getElementType()
                         << " tiles in f32, or in f16 for f16 and 8-bit "
                            "float tiles; got "
                         << accElement << " (T-WGMMA-3)";
  if (failed(
          verifyMmaAccumulators(*this, m, n, getAcc().getType(), "T-WGMMA-3")))
    return failure();
  return verifyPendingGroups(*this, getWaitAttr());
}

LogicalResult WarpgroupMmaRsOp::verify() {
  // T-WGMMA-5: A's fragments in registers, B a T-WGMMA-1 tile of A's type
  // (16-bit, or 8-bit floats K-major); the shape and the accumulators agree.
  ArrayRef<int64_t> shape = getShape();
  MemRefType b = getB().getType();
  if (int64_t(getBIndices().size()) != b.getRank())
    return emitOpError() << "expected one index per dimension of B "
                            "(T-WGMMA-5)";
  if (shape.size() != 3)
    return emitOpError() << "shape must be (M, N, K) (T-WGMMA-5)";
  int64_t m = shape[0], n = shape[1], k = shape[2];
  Type element = getA().getType().getElementType();
  if (b.getElementType() != element)
    return emitOpError() << "A in registers and B are of the same type (f16, "
                            "bf16, f8E4M3FN or f8E5M2), got "
                         << element << " and " << b.getElementType()
                         << " (T-WGMMA-5)";
  int64_t step = *getWgmmaInstructionK(element, element);
  if (m < 64 || m % 64 || n < 8 || n > 256 || n % 8 || k < step || k % step)
    return emitOpError() << "shape " << m << "x" << n << "x" << k
                         << " is not M = 64 i, N a multiple of 8 in [8, 256], "
                            "K = "
                         << step << " j (T-WGMMA-5)";
  if (isWgmmaFp8(element) && getTransposeB())
    return emitOpError() << "an 8-bit float B must be K-major: wgmma "
                            "transposes only f16/bf16 tiles (T-WGMMA-5)";
  VectorType a = getA().getType();
  if (a.getNumElements() != m / 64 * k / 2)
    return emitOpError() << "a thread holds " << m / 64 * k / 2
                         << " elements of the " << m << "x" << k
                         << " A tile (the accumulator layout of that tile), "
                            "got "
                         << a << " (T-WGMMA-5)";
  if (failed(verifyExpansion(*this, (m / 64) * (k / step),
                             "wgmma instructions per warpgroup")) ||
      failed(verifyWgmmaTile(*this, getB(), getTransposeB())) ||
      failed(getBRowGroups()
                 ? verifyRowGroupsB(*this, b, getBIndices(), n, k,
                                    getTransposeB(), "T-WGMMA-5")
                 : verifyWarpgroupB(*this, b, n, k, getTransposeB(),
                                    "T-WGMMA-5")) ||
      (!getTransposeB() && failed(verifyKSpansOrigin(*this, b, getBIndices(), k,
                                                     "B", "T-WGMMA-5"))))
    return failure();
  Type accElement = getAcc().getType().getElementType();
  if (!isWgmmaAccumulatorType(accElement, element, element))
    return emitOpError() << "accumulates " << element
                         << " in f32, or in f16 for f16 and 8-bit float "
                            "tiles; got "
                         << accElement << " (T-WGMMA-5)";
  if (failed(
          verifyMmaAccumulators(*this, m, n, getAcc().getType(), "T-WGMMA-5")))
    return failure();
  return verifyPendingGroups(*this, getWaitAttr());
}

LogicalResult SplitKReduceOp::verify() {
  // T-TILE-6: one workspace column per accumulator element (static: the
  // lowering's row stride), in global memory; counters in global memory.
  MemRefType workspace = getWorkspace().getType();
  int64_t elements = getAcc().getType().getNumElements();
  int64_t columns = workspace.getShape()[1];
  if (columns != elements)
    return emitOpError() << "the workspace holds one column per accumulator "
                            "element: expected "
                         << elements << " columns, got " << workspace
                         << " (T-TILE-6)";
  if (isSharedMemory(workspace) || isSharedMemory(getCounters().getType()))
    return emitOpError() << "the workspace and the counters are shared by "
                            "the CTAs of a launch: they must be in global "
                            "memory, got "
                         << workspace << " and " << getCounters().getType()
                         << " (T-TILE-6)";
  if (!workspace.getLayout().isIdentity())
    return emitOpError() << "expected a row-major workspace, got " << workspace
                         << " (T-TILE-6)";
  std::optional<int64_t> slots =
      getSlots() ? getConstantIntValue(getSlots()) : std::nullopt;
  std::optional<int64_t> splits = getConstantIntValue(getSplits());
  if (slots && splits && *slots < *splits)
    return emitOpError() << "a tile's " << *splits
                         << " splits need as many workspace slots, got slots "
                         << *slots << " (T-TILE-6)";
  // T-TILE-6: a prefetching fixup keeps four vectors of the accumulators'
  // size live.
  if (getPrefetch() && elements > kMaxPrefetchedFixupElements)
    return emitOpError() << "prefetch keeps four accumulator vectors live "
                            "(acc, the sums, the current and the next "
                            "split's): at most "
                         << kMaxPrefetchedFixupElements
                         << " accumulators a thread, got " << elements
                         << " (T-TILE-6)";
  return success();
}
