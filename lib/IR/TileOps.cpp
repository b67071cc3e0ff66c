//===- TileOps.cpp - Operations of the tile dialect -----------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileOps.h"
#include "Tile/IR/EnumParsing.h"
#include "Tile/IR/MemorySpace.h"
#include "VerifierUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// AsyncCopyOp
//===----------------------------------------------------------------------===//

/// Parses `ca|cg` followed by the optional `, l2_prefetch = b128`,
/// `, src_bytes = %n`, `, ignore_src = %p` and `, cache_policy = %pol`
/// clauses, in any order.
static ParseResult
parseCopyModifiers(OpAsmParser &parser, CacheModeAttr &cache,
                   L2PrefetchSizeAttr &l2Prefetch,
                   std::optional<OpAsmParser::UnresolvedOperand> &srcBytes,
                   std::optional<OpAsmParser::UnresolvedOperand> &ignoreSrc,
                   std::optional<OpAsmParser::UnresolvedOperand> &cachePolicy) {
  CacheMode mode;
  if (parseEnumKeyword(parser, "cache mode ca or cg", mode, symbolizeCacheMode))
    return failure();
  cache = CacheModeAttr::get(parser.getContext(), mode);
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "l2_prefetch" && !l2Prefetch) {
      L2PrefetchSize size;
      if (parseEnumKeyword(parser, "an L2 prefetch size (b64, b128, b256)",
                           size, symbolizeL2PrefetchSize))
        return failure();
      l2Prefetch = L2PrefetchSizeAttr::get(parser.getContext(), size);
    } else if (key == "src_bytes" && !srcBytes) {
      if (parser.parseOperand(srcBytes.emplace()))
        return failure();
    } else if (key == "ignore_src" && !ignoreSrc) {
      if (parser.parseOperand(ignoreSrc.emplace()))
        return failure();
    } else if (key == "cache_policy" && !cachePolicy) {
      if (parser.parseOperand(cachePolicy.emplace()))
        return failure();
    } else {
      return parser.emitError(loc)
             << "expected one of l2_prefetch, src_bytes, ignore_src, "
                "cache_policy (each at most once), got '"
             << key << "'";
    }
  }
  return success();
}

/// Prints what parseCopyModifiers parses.
static void printCopyModifiers(OpAsmPrinter &printer, AsyncCopyOp,
                               CacheModeAttr cache,
                               L2PrefetchSizeAttr l2Prefetch, Value srcBytes,
                               Value ignoreSrc, Value cachePolicy) {
  printer << stringifyCacheMode(cache.getValue());
  if (l2Prefetch)
    printer << ", l2_prefetch = "
            << stringifyL2PrefetchSize(l2Prefetch.getValue());
  if (srcBytes)
    printer << ", src_bytes = " << srcBytes;
  if (ignoreSrc)
    printer << ", ignore_src = " << ignoreSrc;
  if (cachePolicy)
    printer << ", cache_policy = " << cachePolicy;
}

int64_t AsyncCopyOp::getNumElements() {
  return getSize() * 8 / getDst().getType().getElementTypeBitWidth();
}

/// Checks one side of the copy: index count, contiguity, bounds and
/// alignment of the `size`-byte vector at `memref[indices]`.
static LogicalResult verifyCopyOperand(AsyncCopyOp op, StringRef name,
                                       MemRefType type, ValueRange indices,
                                       int64_t size, int64_t numElements) {
  if (int64_t(indices.size()) != type.getRank())
    return op.emitOpError()
           << "expected " << type.getRank() << " " << name << " indices for "
           << type << ", got " << indices.size();
  if (type.getRank() == 0)
    return op.emitOpError()
           << "expected a ranked " << name
           << " memref with at least one dimension, got " << type;
  // T-CPASYNC-5: the bytes of one copy are consecutive in memory.
  if (!hasContiguousInnerDim(type))
    return op.emitOpError()
           << "expected the innermost dimension of the " << name << " " << type
           << " to have unit stride (T-CPASYNC-5)";
  int64_t innerSize = type.getShape().back();
  std::optional<int64_t> innerIndex = getConstantIntValue(indices.back());
  if (!ShapedType::isDynamic(innerSize)) {
    if (numElements > innerSize)
      return op.emitOpError()
             << "copies " << numElements << " elements but the " << name
             << " innermost dimension has only " << innerSize
             << " (T-CPASYNC-5)";
    if (innerIndex &&
        (*innerIndex < 0 || *innerIndex + numElements > innerSize))
      return op.emitOpError() << name << " elements [" << *innerIndex << ", "
                              << *innerIndex + numElements
                              << ") are out of bounds of the innermost "
                                 "dimension of size "
                              << innerSize << " (T-CPASYNC-5)";
  }
  // T-CPASYNC-4: src and dst are aligned to cp-size; checked where the address
  // is static (a misaligned cp.async is a run-time "misaligned address" trap).
  if (std::optional<int64_t> byteOffset = getStaticByteOffset(type, indices))
    if (*byteOffset % size != 0)
      return op.emitOpError() << name << " byte offset " << *byteOffset
                              << " is not aligned to the " << size
                              << "-byte copy size (T-CPASYNC-4)";
  return success();
}

LogicalResult AsyncCopyOp::verify() {
  int64_t size = getSize();
  // T-CPASYNC-1: cp-size is 4, 8 or 16.
  if (size != 4 && size != 8 && size != 16)
    return emitOpError() << "expected a copy size of 4, 8 or 16 bytes, got "
                         << size << " (T-CPASYNC-1)";
  // T-CPASYNC-2: .cg caches in L2 only, in 16-byte units.
  if (getCache() == CacheMode::cg && size != 16)
    return emitOpError() << "cache = cg requires a 16-byte copy, got " << size
                         << " bytes (T-CPASYNC-2)";
  MemRefType srcType = getSrc().getType();
  MemRefType dstType = getDst().getType();
  // T-CPASYNC-3: cp.async copies global -> shared::cta.
  if (!isGlobalMemory(srcType))
    return emitOpError() << "expected the source in global memory, got "
                         << srcType << " (T-CPASYNC-3)";
  if (!isSharedMemory(dstType))
    return emitOpError()
           << "expected the destination in shared memory (address space 3 or "
              "#gpu.address_space<workgroup>), got "
           << dstType << " (T-CPASYNC-3)";
  Type elementType = srcType.getElementType();
  if (elementType != dstType.getElementType())
    return emitOpError() << "expected equal element types, got " << elementType
                         << " and " << dstType.getElementType();
  if (!elementType.isIntOrFloat() || elementType.getIntOrFloatBitWidth() % 8)
    return emitOpError() << "expected a byte-sized integer or float element "
                            "type, got "
                         << elementType;
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  // T-CPASYNC-4 (sizes): a copy moves whole elements.
  if (elementBytes > size || size % elementBytes != 0)
    return emitOpError() << "a " << size << "-byte copy does not hold a whole "
                         << "number of " << elementType << " elements "
                         << "(T-CPASYNC-4)";
  int64_t numElements = size / elementBytes;
  if (failed(verifyCopyOperand(*this, "source", srcType, getSrcIndices(), size,
                               numElements)) ||
      failed(verifyCopyOperand(*this, "destination", dstType, getDstIndices(),
                               size, numElements)))
    return failure();
  // T-CPASYNC-6: src-size in [0, cp-size]; src-size and ignore-src are
  // alternative forms of the instruction.
  if (getSrcBytes() && getIgnoreSrc())
    return emitOpError() << "src_bytes and ignore_src are exclusive "
                            "(T-CPASYNC-6)";
  std::optional<int64_t> srcBytes =
      getSrcBytes() ? getConstantIntValue(getSrcBytes()) : std::nullopt;
  if (srcBytes && (*srcBytes < 0 || *srcBytes > size))
    return emitOpError() << "src_bytes must be in [0, " << size << "], got "
                         << *srcBytes << " (T-CPASYNC-6)";
  return success();
}

//===----------------------------------------------------------------------===//
// FenceProxyAsyncOp (verified in MBarrierOps.cpp; its format lives here,
// where the generated parser is compiled)
//===----------------------------------------------------------------------===//

/// Parses the state space keyword of tile.fence_proxy_async.
static ParseResult parseProxySpace(OpAsmParser &parser, ProxySpaceAttr &space) {
  ProxySpace value;
  if (parseEnumKeyword(parser, "a proxy fence space (shared_cta, global, all)",
                       value, symbolizeProxySpace))
    return failure();
  space = ProxySpaceAttr::get(parser.getContext(), value);
  return success();
}

static void printProxySpace(OpAsmPrinter &printer, FenceProxyAsyncOp,
                            ProxySpaceAttr space) {
  printer << stringifyProxySpace(space.getValue());
}

//===----------------------------------------------------------------------===//
// AsyncWaitGroupOp
//===----------------------------------------------------------------------===//

LogicalResult AsyncWaitGroupOp::verify() {
  return verifyPendingGroups(*this, getPendingAttr());
}

#include "Tile/IR/TileInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.cpp.inc"
