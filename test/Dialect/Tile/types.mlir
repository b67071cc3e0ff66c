// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// Round trip of the tile types and attributes; defaults are elided.

// CHECK-LABEL: func.func private @mbarriers(
// CHECK-SAME: !tile.mbarrier,
// CHECK-SAME: !tile.mbarrier,
// CHECK-SAME: !tile.mbarrier<count = 4>,
// CHECK-SAME: !tile.mbarrier<scope = cluster>,
// CHECK-SAME: !tile.mbarrier<count = 6, scope = cluster>)
func.func private @mbarriers(!tile.mbarrier, !tile.mbarrier<count = 1, scope = cta>,
                             !tile.mbarrier<count = 4>, !tile.mbarrier<scope = cluster>,
                             !tile.mbarrier<scope = cluster, count = 6>)

// CHECK-LABEL: func.func private @async_group(!tile.async_group)
func.func private @async_group(!tile.async_group)

// CHECK-LABEL: func.func private @tma_descs(
// CHECK-SAME: !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>,
// CHECK-SAME: !tile.tma_desc<memref<1024xf32>, box = [256], l2promo = b128, oob = nan>,
// CHECK-SAME: !tile.tma_desc<memref<64x32xbf16>, box = [64, 32], swizzle = b64>,
// CHECK-SAME: !tile.tma_desc<memref<64x16xi8>, box = [64, 16], swizzle = b32>,
// CHECK-SAME: !tile.tma_desc<memref<8x8x64xf16>, box = [8, 8, 64], interleave = b32>,
// CHECK-SAME: !tile.tma_desc<memref<?x?xf32>, box = [32, 8]>)
func.func private @tma_descs(
  !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>,
  !tile.tma_desc<memref<1024xf32>, box = [256], l2promo = b128, oob = nan>,
  // A swizzle given as an attribute prints as its TMA alias.
  !tile.tma_desc<memref<64x32xbf16>, box = [64, 32], swizzle = #tile.swizzle<2, 4, 3>>,
  // Boxes narrower than the swizzle span are legal (T-TMA-6 is <=).
  !tile.tma_desc<memref<64x16xi8>, box = [64, 16], swizzle = b32>,
  !tile.tma_desc<memref<8x8x64xf16>, box = [8, 8, 64], interleave = b32>,
  !tile.tma_desc<memref<?x?xf32>, box = [32, 8], swizzle = none, l2promo = none, oob = zero, interleave = none>)

// CHECK-LABEL: func.func private @swizzles()
// CHECK-SAME: a = #tile.swizzle<b128>
// CHECK-SAME: b = #tile.swizzle<b64>
// CHECK-SAME: c = #tile.swizzle<b32>
// CHECK-SAME: d = #tile.swizzle<none>
// CHECK-SAME: e = #tile.swizzle<3, 3, 3>
// CHECK-SAME: f = #tile.swizzle<0, 3, 3>
// CHECK-SAME: g = #tile.swizzle<2, 0, -4>
// CHECK-SAME: h = #tile.swizzle<b128>
func.func private @swizzles() attributes {
  a = #tile.swizzle<b128>, b = #tile.swizzle<b64>, c = #tile.swizzle<b32>,
  d = #tile.swizzle<none>,
  // CuTe's Swizzle<3, 3, 3> on f16 element offsets, kept as written.
  e = #tile.swizzle<3, 3, 3>,
  // An identity swizzle other than <0, 4, 3> keeps its numbers.
  f = #tile.swizzle<0, 3, 3>,
  g = #tile.swizzle<2, 0, -4>,
  h = #tile.swizzle<3, 4, 3>}

// im2col descriptors: box = [pixels, channels] and the pixel box corners.
// CHECK-LABEL: func.func private @tma_im2col(
// CHECK-SAME: !tile.tma_desc<memref<2x8x8x64xf16>, box = [128, 64], im2col_lower = [-1, -1], im2col_upper = [-1, -1], swizzle = b128>,
// CHECK-SAME: !tile.tma_desc<memref<4x32x16xf32>, box = [32, 16], im2col_lower = [-2], im2col_upper = [0]>)
func.func private @tma_im2col(
  !tile.tma_desc<memref<2x8x8x64xf16>, box = [128, 64], swizzle = b128, im2col_lower = [-1, -1], im2col_upper = [-1, -1]>,
  !tile.tma_desc<memref<4x32x16xf32>, box = [32, 16], im2col_lower = [-2], im2col_upper = [0]>)
