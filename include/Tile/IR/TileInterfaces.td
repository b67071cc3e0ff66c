//===- TileInterfaces.td - Op interfaces of the tile dialect -*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEINTERFACES_TD
#define TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_TargetDependentOpInterface : OpInterface<"TargetDependentOpInterface"> {
  let description = [{
    An op whose PTX exists only from some SM version on. `tile-check-target`
    rejects it for older chips (T-TARGET-3) instead of letting ptxas or the
    driver fail later.
  }];
  let cppNamespace = "::mlir::tile";
  let methods = [
    InterfaceMethod<"the smallest SM version (80 for sm_80) the op runs on",
                    "unsigned", "getMinSmVersion", (ins)>,
    InterfaceMethod<"the oldest PTX ISA version (times ten, 83 for 8.3) "
                    "that has the op's instruction; 0 when the chip's "
                    "minimum suffices",
                    "unsigned", "getMinPtxVersion", (ins), "",
                    "return 0;">,
    InterfaceMethod<"whether the op needs an arch-specific target (sm_90a)",
                    "bool", "requiresArchSpecificTarget", (ins), "",
                    "return false;">,
    InterfaceMethod<"whether the op is only meaningful in a kernel launched "
                    "with a cluster (T-CLUSTER-1)",
                    "bool", "requiresClusterLaunch", (ins), "",
                    "return false;">,
  ];
}

#endif // TILE_IR_TILEINTERFACES_TD
