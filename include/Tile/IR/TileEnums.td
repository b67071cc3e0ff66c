//===- TileEnums.td - Enumerations of the tile dialect -----*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#ifndef TILE_IR_TILEENUMS_TD
#define TILE_IR_TILEENUMS_TD

include "Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

/// cp.async cache operator (PTX ISA, "cp.async"): `.ca` caches at
/// all levels (L1 and L2), `.cg` caches in L2 only and requires cp-size 16.
def Tile_CacheModeCA : I32EnumAttrCase<"ca", 0>;
def Tile_CacheModeCG : I32EnumAttrCase<"cg", 1>;
def Tile_CacheMode : I32EnumAttr<"CacheMode", "cp.async cache operator",
    [Tile_CacheModeCA, Tile_CacheModeCG]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_CacheModeAttr : EnumAttr<Tile_Dialect, Tile_CacheMode, "cache_mode">;

/// `.level::prefetch_size` of cp.async / L2 promotion of a TMA descriptor:
/// fetch this many extra bytes into L2.
def Tile_L2Size64 : I32EnumAttrCase<"b64", 64>;
def Tile_L2Size128 : I32EnumAttrCase<"b128", 128>;
def Tile_L2Size256 : I32EnumAttrCase<"b256", 256>;
def Tile_L2PrefetchSize : I32EnumAttr<"L2PrefetchSize", "L2 prefetch size in bytes",
    [Tile_L2Size64, Tile_L2Size128, Tile_L2Size256]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_L2PrefetchSizeAttr
    : EnumAttr<Tile_Dialect, Tile_L2PrefetchSize, "l2_prefetch_size">;

/// CUtensorMapL2promotion.
def Tile_L2PromoNone : I32EnumAttrCase<"none", 0>;
def Tile_L2Promo64 : I32EnumAttrCase<"b64", 1>;
def Tile_L2Promo128 : I32EnumAttrCase<"b128", 2>;
def Tile_L2Promo256 : I32EnumAttrCase<"b256", 3>;
def Tile_TmaL2Promotion : I32EnumAttr<"TmaL2Promotion", "TMA L2 promotion",
    [Tile_L2PromoNone, Tile_L2Promo64, Tile_L2Promo128, Tile_L2Promo256]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

/// CUtensorMapFloatOOBfill: what a TMA load writes for out-of-bounds elements.
def Tile_OobZero : I32EnumAttrCase<"zero", 0>;
def Tile_OobNan : I32EnumAttrCase<"nan", 1>;
def Tile_TmaOobFill : I32EnumAttr<"TmaOobFill", "TMA out-of-bounds fill",
    [Tile_OobZero, Tile_OobNan]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

/// CUtensorMapInterleave.
def Tile_InterleaveNone : I32EnumAttrCase<"none", 0>;
def Tile_Interleave16 : I32EnumAttrCase<"b16", 1>;
def Tile_Interleave32 : I32EnumAttrCase<"b32", 2>;
def Tile_TmaInterleave : I32EnumAttr<"TmaInterleave", "TMA interleave",
    [Tile_InterleaveNone, Tile_Interleave16, Tile_Interleave32]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

/// The TMA swizzle modes (CUtensorMapSwizzle) that a `#tile.swizzle` may name.
def Tile_TmaSwizzleNone : I32EnumAttrCase<"none", 0>;
def Tile_TmaSwizzle32 : I32EnumAttrCase<"b32", 1>;
def Tile_TmaSwizzle64 : I32EnumAttrCase<"b64", 2>;
def Tile_TmaSwizzle128 : I32EnumAttrCase<"b128", 3>;
def Tile_TmaSwizzleMode : I32EnumAttr<"TmaSwizzleMode", "TMA swizzle mode",
    [Tile_TmaSwizzleNone, Tile_TmaSwizzle32, Tile_TmaSwizzle64, Tile_TmaSwizzle128]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

/// Scope of an mbarrier: the barrier is used by one CTA, or by the CTAs of a
/// cluster (remote arrives through DSMEM).
def Tile_ScopeCta : I32EnumAttrCase<"cta", 0>;
def Tile_ScopeCluster : I32EnumAttrCase<"cluster", 1>;
def Tile_MBarrierScope : I32EnumAttr<"MBarrierScope", "mbarrier scope",
    [Tile_ScopeCta, Tile_ScopeCluster]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}

/// The state space a `fence.proxy.async` orders: shared::cta, global, or
/// all of them.
def Tile_ProxySpaceSharedCta : I32EnumAttrCase<"shared_cta", 0>;
def Tile_ProxySpaceGlobal : I32EnumAttrCase<"global", 1>;
def Tile_ProxySpaceAll : I32EnumAttrCase<"all", 2>;
def Tile_ProxySpace : I32EnumAttr<"ProxySpace", "state space of a proxy fence",
    [Tile_ProxySpaceSharedCta, Tile_ProxySpaceGlobal, Tile_ProxySpaceAll]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ProxySpaceAttr : EnumAttr<Tile_Dialect, Tile_ProxySpace, "proxy_space">;

// TMA tensor reductions (PTX ISA, "cp.reduce.async.bulk.tensor").
def Tile_TmaReduceAdd : I32EnumAttrCase<"add", 0>;
def Tile_TmaReduceMin : I32EnumAttrCase<"min", 1>;
def Tile_TmaReduceMax : I32EnumAttrCase<"max", 2>;
def Tile_TmaReduceInc : I32EnumAttrCase<"inc", 3>;
def Tile_TmaReduceDec : I32EnumAttrCase<"dec", 4>;
def Tile_TmaReduceAnd : I32EnumAttrCase<"bitAnd", 5, "and">;
def Tile_TmaReduceOr : I32EnumAttrCase<"bitOr", 6, "or">;
def Tile_TmaReduceXor : I32EnumAttrCase<"bitXor", 7, "xor">;
def Tile_TmaReduceKind : I32EnumAttr<"TmaReduceKind", "TMA reduction",
    [Tile_TmaReduceAdd, Tile_TmaReduceMin, Tile_TmaReduceMax, Tile_TmaReduceInc,
     Tile_TmaReduceDec, Tile_TmaReduceAnd, Tile_TmaReduceOr, Tile_TmaReduceXor]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_TmaReduceKindAttr
    : EnumAttr<Tile_Dialect, Tile_TmaReduceKind, "tma_reduce_kind"> {
  let assemblyFormat = "$value";
}


/// How a persistent kernel's workers (CTAs) share the tiles of a GEMM and
/// their K iterations (`tile.work_count`, `tile.work_unit`).
def Tile_ScheduleDataParallel : I32EnumAttrCase<"data_parallel", 0>;
def Tile_ScheduleStreamK : I32EnumAttrCase<"stream_k", 1>;
def Tile_ScheduleSplitK : I32EnumAttrCase<"split_k", 2>;
def Tile_WorkSchedule : I32EnumAttr<"WorkSchedule", "persistent work schedule",
    [Tile_ScheduleDataParallel, Tile_ScheduleStreamK, Tile_ScheduleSplitK]> {
  let cppNamespace = "::mlir::tile";
}

/// The threads that `tile.reduce` combines: a warp (or `lanes` consecutive
/// lanes of it), a warpgroup of 128 consecutive threads, or the CTA.
def Tile_ReduceScopeWarp : I32EnumAttrCase<"warp", 0>;
def Tile_ReduceScopeWarpgroup : I32EnumAttrCase<"warpgroup", 1>;
def Tile_ReduceScopeBlock : I32EnumAttrCase<"block", 2>;
def Tile_ReduceScope : I32EnumAttr<"ReduceScope", "threads of a reduction",
    [Tile_ReduceScopeWarp, Tile_ReduceScopeWarpgroup, Tile_ReduceScopeBlock]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceScopeAttr
    : EnumAttr<Tile_Dialect, Tile_ReduceScope, "reduce_scope"> {
  let assemblyFormat = "$value";
}

def Tile_ActivationIdentity : I32EnumAttrCase<"identity", 0>;
def Tile_ActivationRelu : I32EnumAttrCase<"relu", 1>;
def Tile_ActivationSilu : I32EnumAttrCase<"silu", 2>;
def Tile_ActivationGelu : I32EnumAttrCase<"gelu", 3>;
def Tile_ActivationGeluTanh : I32EnumAttrCase<"gelu_tanh", 4>;
def Tile_Activation : I32EnumAttr<"Activation",
    "an elementwise activation of a GEMM epilogue",
    [Tile_ActivationIdentity, Tile_ActivationRelu, Tile_ActivationSilu,
     Tile_ActivationGelu, Tile_ActivationGeluTanh]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ActivationAttr : EnumAttr<Tile_Dialect, Tile_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TILE_IR_TILEENUMS_TD
