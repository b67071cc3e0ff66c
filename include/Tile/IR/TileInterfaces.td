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
    InterfaceMethod<"the smallest SM version (80 for sm_80) the op runs on; "
                    "by default the one of its Tile_MinSm trait",
                    "unsigned", "getMinSmVersion", (ins), "",
                    "return ConcreteOp::kMinSmVersion;">,
    InterfaceMethod<"the oldest PTX ISA version (times ten, 83 for 8.3) "
                    "that has the op's instruction; 0 when the chip's "
                    "minimum suffices",
                    "unsigned", "getMinPtxVersion", (ins), "",
                    "return 0;">,
    InterfaceMethod<"whether the op needs an arch-specific target (sm_90a); "
                    "by default whether its trait is Tile_MinSmArch",
                    "bool", "requiresArchSpecificTarget", (ins), "",
                    "return ConcreteOp::kRequiresArchSpecificTarget;">,
    InterfaceMethod<"whether the op is only meaningful in a kernel launched "
                    "with a cluster (T-CLUSTER-1)",
                    "bool", "requiresClusterLaunch", (ins), "",
                    "return false;">,
  ];
}

/// The C++ side of Tile_MinSm: MinSmVersion in Tile/IR/TileTraits.h.
class Tile_MinSmTrait<int sm, bit archSpecific>
    : ParamNativeOpTrait<"MinSmVersion", "::mlir::tile::kSm" # !cast<string>(sm)
                                         # !if(archSpecific, ", true", "")> {
  let cppNamespace = "::mlir::tile";
}

/// The op exists from sm_`sm` on (one of the kSm constants of
/// Tile/Target/Chip.h): it implements TargetDependentOpInterface, whose
/// getMinSmVersion() returns `sm`. `methods` names the interface methods the
/// op defines in C++ (a minimum that depends on operands, requiresClusterLaunch).
class Tile_MinSm<int sm, list<string> methods = [], bit archSpecific = 0>
    : TraitList<[Tile_MinSmTrait<sm, archSpecific>,
                 DeclareOpInterfaceMethods<Tile_TargetDependentOpInterface,
                                           methods>]>;

/// Tile_MinSm for an arch-specific target: sm_`sm`a (wgmma, setmaxnreg).
class Tile_MinSmArch<int sm, list<string> methods = []>
    : Tile_MinSm<sm, methods, 1>;

#endif // TILE_IR_TILEINTERFACES_TD
