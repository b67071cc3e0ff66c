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

def Tile_BarrierOpInterface : OpInterface<"BarrierOpInterface"> {
  let description = [{
    An op that names one mbarrier of a `!tile.mbarrier` group, `%bars[%i]`,
    and its role in that barrier's phases: initialization, arrivals,
    transaction bytes expected or completed, waits, invalidation (T-MBAR-2..6,
    T-PROTO-4..9). Counts are what one execution makes, by one thread (or,
    for ops that `isIssuedOnce()`, by all the threads that execute the op
    together); they are index attributes where the op fixes them and the
    operand otherwise (read either with `getConstantIntValue`). The defaults
    of the role methods mean "no such role"; the ops' definitions are in
    lib/IR/BarrierOpInterface.cpp.
  }];
  let cppNamespace = "::mlir::tile";
  let methods = [
    InterfaceMethod<"the group that holds the barrier",
      "::mlir::TypedValue<::mlir::tile::MBarrierType>", "getBarrierGroup",
      (ins), "", "return $_op.getBarriers();">,
    InterfaceMethod<"the operand of the group",
      "::mlir::OpOperand &", "getBarrierGroupMutable", (ins), "",
      "return $_op.getBarriersMutable();">,
    InterfaceMethod<"the barrier's index in the group",
      "::mlir::Value", "getBarrierIndex", (ins), "",
      "return $_op.getIndex();">,
    InterfaceMethod<"the operand of the index",
      "::mlir::OpOperand &", "getBarrierIndexMutable", (ins), "",
      "return $_op.getIndexMutable();">,
    InterfaceMethod<"the arrival count that an init gives each phase (i32); "
                    "null for every op but tile.mbarrier_init",
      "::mlir::Value", "getInitCount", (ins), "", "return {};">,
    InterfaceMethod<"whether the op invalidates the barrier (mbarrier_inval)",
      "bool", "isInval", (ins), "", "return false;">,
    InterfaceMethod<"the arrive-on operations one execution makes on the "
                    "current phase: 1 or the count operand for arrives, 0 "
                    "for ops that do not arrive",
      "::mlir::OpFoldResult", "getArrivalCount", (ins), "",
      "return ::mlir::Builder($_op->getContext()).getIndexAttr(0);">,
    InterfaceMethod<"the bytes one execution adds to the current phase's "
                    "expected transaction count (expect_tx); 0 if none",
      "::mlir::OpFoldResult", "getExpectedTxBytes", (ins), "",
      "return ::mlir::Builder($_op->getContext()).getIndexAttr(0);">,
    InterfaceMethod<"the transaction bytes one execution completes on each "
                    "barrier it signals (complete_tx, async copies: the "
                    "bytes copied); 0 if none",
      "::mlir::OpFoldResult", "getCompletedTxBytes", (ins), "",
      "return ::mlir::Builder($_op->getContext()).getIndexAttr(0);">,
    InterfaceMethod<"whether the op waits for, or tests, the completion of "
                    "a phase",
      "bool", "isWait", (ins), "", "return false;">,
    InterfaceMethod<"the parity (i1) of the phase a wait waits for; null "
                    "for waits on a token and for ops that do not wait",
      "::mlir::Value", "getWaitParity", (ins), "", "return {};">,
    InterfaceMethod<"whether the op may signal the barrier at the same "
                    "offset in other CTAs of the cluster (remote arrives, "
                    "multicast and shared::cluster copies): its counts then "
                    "land there, and this CTA's barrier may receive theirs",
      "bool", "signalsRemoteBarriers", (ins), "", "return false;">,
    InterfaceMethod<"whether the threads that execute the op make its "
                    "barrier operations once in all (one elected thread "
                    "issues them) rather than once each",
      "bool", "isIssuedOnce", (ins), "", "return false;">,
  ];
  let extraClassDeclaration = [{
    /// Whether `other` names the same barrier: the same group, and the same
    /// index value or equal constant indices.
    bool namesSameBarrier(BarrierOpInterface other);
  }];
}

/// The op names an mbarrier; `roles` lists the Tile_BarrierOpInterface
/// methods it defines, the others keep their defaults.
class Tile_BarrierOp<list<string> roles = []>
    : DeclareOpInterfaceMethods<Tile_BarrierOpInterface, roles>;

#endif // TILE_IR_TILEINTERFACES_TD
