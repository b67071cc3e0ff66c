//===- TileTypes.cpp - Types of the tile dialect --------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileTypes.h"
#include "Tile/IR/EnumParsing.h"
#include "Tile/IR/HardwareLimits.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/TensorMap/TensorMapContract.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::tile;
namespace tma = ::tile_tma;

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileOpsTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Tile/IR/TileOpsTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MBarrierType
//===----------------------------------------------------------------------===//

/// `!tile.mbarrier` or `!tile.mbarrier<count = N, scope = cta|cluster>`,
/// either key optional.
Type MBarrierType::parse(AsmParser &parser) {
  int64_t count = 1;
  MBarrierScope scope = MBarrierScope::cta;
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess())) {
    auto parseEntry = [&]() -> ParseResult {
      StringRef key;
      SMLoc keyLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&key) || parser.parseEqual())
        return failure();
      if (key == "count")
        return parser.parseInteger(count);
      if (key == "scope")
        return parseEnumKeyword(parser, "scope cta or cluster", scope,
                                symbolizeMBarrierScope);
      return parser.emitError(keyLoc) << "unknown mbarrier parameter '" << key
                                      << "', expected 'count' or 'scope'";
    };
    if (parser.parseCommaSeparatedList(parseEntry) || parser.parseGreater())
      return {};
  }
  // Out of the unsigned range: report here, the verifier covers the rest.
  if (count < 0 || count > int64_t(std::numeric_limits<unsigned>::max())) {
    parser.emitError(loc) << "mbarrier count must be in [1, " << kMaxMBarriers
                          << "], got " << count << " (T-MBAR-1)";
    return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    unsigned(count), scope);
}

void MBarrierType::print(AsmPrinter &printer) const {
  SmallVector<std::string> entries;
  if (getCount() != 1)
    entries.push_back("count = " + std::to_string(getCount()));
  if (getScope() != MBarrierScope::cta)
    entries.push_back("scope = " + stringifyMBarrierScope(getScope()).str());
  if (entries.empty())
    return;
  printer << '<' << llvm::join(entries, ", ") << '>';
}

LogicalResult MBarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   unsigned count, MBarrierScope) {
  // T-MBAR-1: N barriers take 8*N bytes of shared memory.
  if (count < 1 || int64_t(count) > kMaxMBarriers)
    return emitError() << "mbarrier count must be in [1, " << kMaxMBarriers
                       << "] so that 8-byte barriers fit in "
                       << kMaxSharedMemoryBytes
                       << " bytes of shared memory, got " << count
                       << " (T-MBAR-1)";
  return success();
}

//===----------------------------------------------------------------------===//
// TmaDescType
//===----------------------------------------------------------------------===//

/// `!tile.tma_desc<memref<...>, box = [d0, ...] (, key = value)*>` with keys
/// swizzle (none|b32|b64|b128|#tile.swizzle<...>), l2promo, oob, interleave.
Type TmaDescType::parse(AsmParser &parser) {
  MLIRContext *ctx = parser.getContext();
  SMLoc loc = parser.getCurrentLocation();
  MemRefType tensor;
  SmallVector<int64_t> box;
  SwizzleAttr swizzle = SwizzleAttr::get(ctx, TmaSwizzleMode::none);
  TmaL2Promotion l2promo = TmaL2Promotion::none;
  TmaOobFill oob = TmaOobFill::zero;
  TmaInterleave interleave = TmaInterleave::none;
  SmallVector<int64_t> im2colLower, im2colUpper;
  auto parseIntList = [&](SmallVectorImpl<int64_t> &list) -> ParseResult {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          return parser.parseInteger(list.emplace_back());
        });
  };
  if (parser.parseLess() || parser.parseType(tensor) || parser.parseComma() ||
      parser.parseKeyword("box") || parser.parseEqual() ||
      parser.parseLSquare())
    return {};
  if (failed(parser.parseOptionalRSquare())) {
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          return parser.parseInteger(box.emplace_back());
        }) ||
        parser.parseRSquare())
      return {};
  }
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    ParseResult result = success();
    if (key == "swizzle") {
      // A TMA mode keyword, or a full #tile.swizzle<...> attribute.
      StringRef keyword;
      if (succeeded(parser.parseOptionalKeyword(&keyword))) {
        std::optional<TmaSwizzleMode> parsed = symbolizeTmaSwizzleMode(keyword);
        if (!parsed)
          return parser.emitError(keyLoc)
                     << "unknown swizzle '" << keyword
                     << "', expected none, b32, b64, b128 or a #tile.swizzle",
                 Type();
        swizzle = SwizzleAttr::get(ctx, *parsed);
      } else {
        Attribute attr;
        if (parser.parseAttribute(attr))
          return {};
        swizzle = dyn_cast<SwizzleAttr>(attr);
        if (!swizzle)
          return parser.emitError(keyLoc, "expected a #tile.swizzle, got ")
                     << attr,
                 Type();
      }
    } else if (key == "l2promo") {
      result = parseEnumKeyword(parser, "l2promo none, b64, b128 or b256",
                                l2promo, symbolizeTmaL2Promotion);
    } else if (key == "oob") {
      result =
          parseEnumKeyword(parser, "oob zero or nan", oob, symbolizeTmaOobFill);
    } else if (key == "interleave") {
      result = parseEnumKeyword(parser, "interleave none, b16 or b32",
                                interleave, symbolizeTmaInterleave);
    } else if (key == "im2col_lower") {
      result = parseIntList(im2colLower);
    } else if (key == "im2col_upper") {
      result = parseIntList(im2colUpper);
    } else {
      return parser.emitError(keyLoc)
                 << "unknown tma_desc parameter '" << key
                 << "', expected swizzle, l2promo, oob, interleave, "
                    "im2col_lower or im2col_upper",
             Type();
    }
    if (failed(result))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, ctx, tensor, box,
                    swizzle, l2promo, oob, interleave, im2colLower,
                    im2colUpper);
}

void TmaDescType::print(AsmPrinter &printer) const {
  printer << '<' << getTensor() << ", box = [";
  llvm::interleaveComma(getBox(), printer);
  printer << ']';
  if (isIm2col()) {
    printer << ", im2col_lower = [";
    llvm::interleaveComma(getIm2colLower(), printer);
    printer << "], im2col_upper = [";
    llvm::interleaveComma(getIm2colUpper(), printer);
    printer << ']';
  }
  SwizzleAttr swizzle = getSwizzle();
  if (!swizzle.isIdentity()) {
    std::optional<TmaSwizzleMode> mode = swizzle.getTmaMode();
    printer << ", swizzle = ";
    if (mode && SwizzleAttr::get(getContext(), *mode) == swizzle)
      printer << stringifyTmaSwizzleMode(*mode);
    else
      printer << swizzle;
  }
  if (getL2promo() != TmaL2Promotion::none)
    printer << ", l2promo = " << stringifyTmaL2Promotion(getL2promo());
  if (getOob() != TmaOobFill::zero)
    printer << ", oob = " << stringifyTmaOobFill(getOob());
  if (getInterleave() != TmaInterleave::none)
    printer << ", interleave = " << stringifyTmaInterleave(getInterleave());
  printer << '>';
}

// The IR's enums spell the driver's values (the lowering passes them on).
static_assert(int(TmaL2Promotion::b256) == int(tma::L2Promotion::b256));
static_assert(int(TmaOobFill::nan) == int(tma::OobFill::nan));
static_assert(int(TmaInterleave::b32) == int(tma::Interleave::b32));
static_assert(int(TmaSwizzleMode::b128) == int(tma::Swizzle::b128));

std::optional<tma::DataType> mlir::tile::getTensorMapDataType(Type type) {
  // Integers by width: a map moves bits, signed, unsigned or signless alike.
  if (auto integer = dyn_cast<IntegerType>(type))
    return tma::lookupDataType("i" + std::to_string(integer.getWidth()));
  std::string name;
  llvm::raw_string_ostream(name) << type;
  return tma::lookupDataType(name);
}

LogicalResult TmaDescType::verify(function_ref<InFlightDiagnostic()> emitError,
                                  MemRefType tensor, ArrayRef<int64_t> box,
                                  SwizzleAttr swizzle, TmaL2Promotion,
                                  TmaOobFill oob, TmaInterleave interleave,
                                  ArrayRef<int64_t> im2colLower,
                                  ArrayRef<int64_t> im2colUpper) {
  // The contract's rules (TensorMapContract.h) on what the type fixes; the
  // runtime checks the same rules on every value when it encodes the map.
  auto fail = [&](const std::string &message) {
    return emitError() << message;
  };
  int64_t rank = tensor.getRank();
  bool interleaved = interleave != TmaInterleave::none;
  bool im2col = !im2colLower.empty() || !im2colUpper.empty();
  if (tma::RuleViolation broken = tma::checkRank(rank, interleaved, im2col))
    return fail(*broken);
  if (im2col) {
    // T-TMA-21: corners for every spatial dimension, box = [pixels, channels].
    int64_t spatial = rank - 2;
    if (int64_t(im2colLower.size()) != spatial ||
        int64_t(im2colUpper.size()) != spatial)
      return emitError() << "im2col corners need " << spatial
                         << " entries (one per spatial dimension of the rank-"
                         << rank << " tensor), got " << im2colLower.size()
                         << " and " << im2colUpper.size() << " (T-TMA-21)";
    if (box.size() != 2)
      return emitError() << "an im2col box is [pixels, channels], got "
                         << box.size() << " extents (T-TMA-21)";
    for (int64_t corner : llvm::concat<const int64_t>(im2colLower, im2colUpper))
      if (tma::RuleViolation broken = tma::checkIm2colCorner(corner, rank))
        return fail(*broken);
    if (tma::RuleViolation broken = tma::checkIm2colBox(box[0], box[1]))
      return fail(*broken);
  } else {
    // T-TMA-2: one box extent per tensor dimension.
    if (int64_t(box.size()) != rank)
      return emitError() << "box rank " << box.size()
                         << " does not match tensor rank " << rank
                         << " (T-TMA-2)";
    for (auto [i, extent] : llvm::enumerate(box))
      if (tma::RuleViolation broken = tma::checkBoxDim(i, extent))
        return fail(*broken);
  }
  // T-TMA-4: the element type is a CUtensorMapDataType.
  Type elementType = tensor.getElementType();
  std::optional<tma::DataType> dataType = getTensorMapDataType(elementType);
  if (!dataType)
    return emitError() << "element type " << elementType
                       << " is not a TMA data type (i8/i16/i32/i64, f16, bf16, "
                          "f8E4M3FN/f8E5M2, "
                          "f32, f64) (T-TMA-4)";
  // T-TMA-7: the swizzle is one the tensor map can encode.
  std::optional<TmaSwizzleMode> mode = swizzle.getTmaMode();
  if (!mode)
    return emitError() << "swizzle " << swizzle
                       << " is not a TMA swizzle mode (none, b32, b64, b128) "
                          "(T-TMA-7)";
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;
  if (tma::RuleViolation broken = tma::checkInnerBoxBytes(
          box.back() * elementBytes, tma::Interleave(interleave),
          tma::Swizzle(*mode)))
    return fail(*broken);
  std::string elementName;
  llvm::raw_string_ostream(elementName) << elementType;
  if (tma::RuleViolation broken = tma::checkOobFill(
          tma::OobFill(oob), tma::isFloatDataType(int(*dataType)),
          elementName))
    return fail(*broken);
  // T-TMA-9: static global sizes and strides the tensor map can encode.
  for (auto [i, size] : llvm::enumerate(tensor.getShape()))
    if (!ShapedType::isDynamic(size))
      if (tma::RuleViolation broken = tma::checkGlobalDim(i, size))
        return fail(*broken);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(tensor.getStridesAndOffset(strides, offset)))
    return emitError() << "tensor " << tensor
                       << " has no strided layout (T-TMA-9)";
  if (!ShapedType::isDynamic(strides.back()))
    if (tma::RuleViolation broken = tma::checkInnermostStride(strides.back()))
      return fail(*broken);
  for (auto [i, stride] : llvm::enumerate(ArrayRef(strides).drop_back()))
    if (!ShapedType::isDynamic(stride))
      if (tma::RuleViolation broken = tma::checkGlobalStride(
              i, stride * elementBytes, tma::Interleave(interleave)))
        return fail(*broken);
  return success();
}

int64_t TmaDescType::getBoxBytes() const {
  int64_t elements = 1;
  for (int64_t extent : getBox())
    elements *= extent;
  return elements * (getElementType().getIntOrFloatBitWidth() / 8);
}

SmallVector<int64_t> TmaDescType::getSharedTileShape() const {
  SmallVector<int64_t> shape(getBox());
  if (!getSwizzle().isIdentity()) {
    int64_t elementBytes = getElementType().getIntOrFloatBitWidth() / 8;
    shape.back() =
        std::max(shape.back(), getSwizzle().getSpanBytes() / elementBytes);
  }
  return shape;
}

MemRefType TmaDescType::getSharedTileType() const {
  return MemRefType::get(getSharedTileShape(), getElementType(),
                         MemRefLayoutAttrInterface(),
                         IntegerAttr::get(IntegerType::get(getContext(), 64),
                                          kSharedAddressSpace));
}
