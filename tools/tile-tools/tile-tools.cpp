//===- tile-tools.cpp - tile-opt, tile-translate and tile-run in one ------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// A multi-call executable for the GPU machine: called as (a link named)
// tile-opt, tile-translate or tile-run it is that tool; `tile-tools TOOL
// ARGS...` works too. One static binary shares the LLVM/MLIR code that three
// separate tools would each carry (see scripts/device-pack.sh).
//===----------------------------------------------------------------------===//

#include "../ToolMains.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace {
/// Runs the tool called `name`, or returns -1 if there is none.
int dispatch(const std::string &name, int argc, char **argv) {
  if (name == "tile-opt")
    return tile::tileOptMain(argc, argv);
  if (name == "tile-translate")
    return tile::tileTranslateMain(argc, argv);
  if (name == "tile-run")
    return tile::tileRunMain(argc, argv);
  return -1;
}
} // namespace

int main(int argc, char **argv) {
  std::string self = argv[0];
  std::string base = self.substr(self.find_last_of('/') + 1);
  int result = dispatch(base, argc, argv);
  if (result == -1 && argc > 1)
    result = dispatch(argv[1], argc - 1, argv + 1);
  if (result != -1)
    return result;
  std::fprintf(stderr, "usage: tile-tools {tile-opt|tile-translate|tile-run} "
                       "ARGS..., or call it through a link of that name\n");
  return 1;
}
