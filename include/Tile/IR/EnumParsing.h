//===- EnumParsing.h - Parse enum keywords in custom formats ----*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_ENUMPARSING_H
#define TILE_IR_ENUMPARSING_H

#include "mlir/IR/OpImplementation.h"

namespace mlir::tile {

/// Parses one keyword into `value` with a generated `symbolize*` function;
/// on an unknown keyword reports "expected <expected>, got '<keyword>'".
template <typename EnumT>
ParseResult parseEnumKeyword(AsmParser &parser, StringRef expected,
                             EnumT &value,
                             std::optional<EnumT> (*symbolize)(StringRef)) {
  StringRef keyword;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<EnumT> parsed = symbolize(keyword);
  if (!parsed)
    return parser.emitError(loc)
           << "expected " << expected << ", got '" << keyword << "'";
  value = *parsed;
  return success();
}

} // namespace mlir::tile

#endif // TILE_IR_ENUMPARSING_H
