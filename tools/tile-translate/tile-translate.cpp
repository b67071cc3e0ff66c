//===- tile-translate.cpp - Translations out of lowered tile modules ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"

int main(int argc, char **argv) { return tile::tileTranslateMain(argc, argv); }
