//===- tile-opt.cpp - The tile optimizer driver ---------------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"

int main(int argc, char **argv) { return tile::tileOptMain(argc, argv); }
