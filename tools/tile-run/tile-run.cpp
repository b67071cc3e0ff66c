//===- tile-run.cpp - JIT-run lowered tile modules on the GPU -------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"

int main(int argc, char **argv) { return tile::tileRunMain(argc, argv); }
