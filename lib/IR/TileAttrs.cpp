//===- TileAttrs.cpp - Enums and attributes of the tile dialect -----------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Tile/IR/TileAttrs.h"
#include "Tile/IR/TileDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "Tile/IR/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.cpp.inc"

void TileDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Tile/IR/TileAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// SwizzleAttr
//===----------------------------------------------------------------------===//

/// The (B, M, S) of each TMA swizzle mode, on byte offsets: a 16-byte unit
/// (M = 4) XOR-ed with the row index taken 3 bits higher (S = 3).
static constexpr int32_t kTmaSwizzleBase = 4;
static constexpr int32_t kTmaSwizzleShift = 3;

/// Parses `<none|b32|b64|b128>` or `<B, M, S>`.
Attribute SwizzleAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword))) {
    std::optional<TmaSwizzleMode> mode = symbolizeTmaSwizzleMode(keyword);
    if (!mode) {
      parser.emitError(parser.getCurrentLocation(),
                       "expected a swizzle mode (none, b32, b64, b128) or "
                       "'B, M, S', got '")
          << keyword << "'";
      return {};
    }
    if (parser.parseGreater())
      return {};
    return SwizzleAttr::get(parser.getContext(), *mode);
  }
  int32_t bits, base, shift;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseInteger(bits) || parser.parseComma() ||
      parser.parseInteger(base) || parser.parseComma() ||
      parser.parseInteger(shift) || parser.parseGreater())
    return {};
  return SwizzleAttr::getChecked([&] { return parser.emitError(loc); },
                                 parser.getContext(), bits, base, shift);
}

void SwizzleAttr::print(AsmPrinter &printer) const {
  printer << '<';
  // Print the TMA alias only when it is exactly that swizzle: an identity
  // swizzle with another M or S keeps its numbers so it round-trips.
  std::optional<TmaSwizzleMode> mode = getTmaMode();
  if (mode && getBase() == kTmaSwizzleBase && getShift() == kTmaSwizzleShift)
    printer << stringifyTmaSwizzleMode(*mode);
  else
    printer << getBits() << ", " << getBase() << ", " << getShift();
  printer << '>';
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int32_t bits, int32_t base, int32_t shift) {
  // T-SWZ-1: the XOR source bits [M+S, M+S+B) and target bits [M, M+B) are
  // disjoint, otherwise the map is not a bijection (CuTe: |S| >= B).
  if (bits < 0 || base < 0 || std::abs(shift) < bits)
    return emitError() << "swizzle<" << bits << ", " << base << ", " << shift
                       << "> needs B >= 0, M >= 0 and |S| >= B (T-SWZ-1)";
  // T-SWZ-2: every bit involved lies inside a 32-bit shared-memory offset.
  if (bits + base + std::abs(shift) > 31)
    return emitError() << "swizzle<" << bits << ", " << base << ", " << shift
                       << "> touches bit " << bits + base + std::abs(shift) - 1
                       << ", beyond a 32-bit shared-memory offset (T-SWZ-2)";
  return success();
}

int64_t SwizzleAttr::apply(int64_t offset) const {
  int64_t mask = (int64_t(1) << getBits()) - 1;
  int32_t shift = getShift();
  // CuTe: yyy = mask << (M + max(0, S)); offset ^ shiftr(offset & yyy, S).
  int64_t yyy = mask << (getBase() + std::max(0, shift));
  int64_t moved =
      shift >= 0 ? (offset & yyy) >> shift : (offset & yyy) << -shift;
  return offset ^ moved;
}

std::optional<TmaSwizzleMode> SwizzleAttr::getTmaMode() const {
  if (isIdentity())
    return TmaSwizzleMode::none;
  if (getBase() != kTmaSwizzleBase || getShift() != kTmaSwizzleShift)
    return std::nullopt;
  switch (getBits()) {
  case 1:
    return TmaSwizzleMode::b32;
  case 2:
    return TmaSwizzleMode::b64;
  case 3:
    return TmaSwizzleMode::b128;
  default:
    return std::nullopt;
  }
}

int64_t SwizzleAttr::getRepeatBytes() const {
  if (isIdentity())
    return 1;
  return int64_t(1) << (getBits() + getBase() + std::abs(getShift()));
}

int64_t SwizzleAttr::getSpanBytes() const {
  return int64_t(1) << (getBase() + getBits());
}

//===----------------------------------------------------------------------===//
// LayoutAttr
//===----------------------------------------------------------------------===//

/// Parses an IntTuple: an integer or `(` tuple (`,` tuple)* `)`, as an
/// IntegerAttr or an ArrayAttr of them.
static ParseResult parseIntTupleAttr(AsmParser &parser, Attribute &result) {
  MLIRContext *ctx = parser.getContext();
  if (succeeded(parser.parseOptionalLParen())) {
    SmallVector<Attribute> elements;
    if (parser.parseCommaSeparatedList([&]() -> ParseResult {
          return parseIntTupleAttr(parser, elements.emplace_back());
        }) ||
        parser.parseRParen())
      return failure();
    result = ArrayAttr::get(ctx, elements);
    return success();
  }
  int64_t value;
  if (parser.parseInteger(value))
    return failure();
  result = IntegerAttr::get(IntegerType::get(ctx, 64), value);
  return success();
}

/// The IntTuple of a parsed attribute (verified to be IntegerAttr/ArrayAttr).
static IntTuple toIntTuple(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return IntTuple(integer.getInt());
  SmallVector<IntTuple> elements;
  for (Attribute element : cast<ArrayAttr>(attr))
    elements.push_back(toIntTuple(element));
  return IntTuple::tuple(elements);
}

static Attribute toAttr(MLIRContext *ctx, const IntTuple &tuple) {
  if (tuple.isInt())
    return IntegerAttr::get(IntegerType::get(ctx, 64), tuple.getInt());
  SmallVector<Attribute> elements;
  for (const IntTuple &element : tuple.getElements())
    elements.push_back(toAttr(ctx, element));
  return ArrayAttr::get(ctx, elements);
}

/// True when `attr` is an integer or a tuple of such attributes.
static bool isIntTupleAttr(Attribute attr) {
  if (isa<IntegerAttr>(attr))
    return true;
  auto array = dyn_cast<ArrayAttr>(attr);
  return array && llvm::all_of(array, isIntTupleAttr);
}

Attribute LayoutAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute shape, stride;
  if (parser.parseLess() || parseIntTupleAttr(parser, shape))
    return {};
  if (succeeded(parser.parseOptionalColon())) {
    if (parseIntTupleAttr(parser, stride))
      return {};
  } else {
    stride = toAttr(parser.getContext(), Layout(toIntTuple(shape)).getStride());
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    shape, stride);
}

void LayoutAttr::print(AsmPrinter &printer) const {
  printer << '<' << getLayout().str() << '>';
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 Attribute shape, Attribute stride) {
  if (!isIntTupleAttr(shape) || !isIntTupleAttr(stride))
    return emitError() << "layout shape and stride must be integers or "
                          "tuples of them";
  llvm::Expected<Layout> layout =
      Layout::get(toIntTuple(shape), toIntTuple(stride));
  if (!layout)
    return emitError() << "invalid layout: "
                       << llvm::toString(layout.takeError());
  return success();
}

Layout LayoutAttr::getLayout() const {
  return Layout(toIntTuple(getShape()), toIntTuple(getStride()));
}

LayoutAttr LayoutAttr::get(MLIRContext *context, const Layout &layout) {
  return get(context, toAttr(context, layout.getShape()),
             toAttr(context, layout.getStride()));
}
