// Matrix ops: the ldmatrix/stmatrix matrix count keyword (T-MMA-1) and the
// rank of tile.warpgroup_mma's shape (T-WGMMA-3).
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-MMA-1: the count of 8x8 matrices is spelled x1, x2 or x4.
func.func @count_keyword(%s: memref<64x64xf16, 3>, %i: index) {
  // expected-error @+1 {{expected x1, x2 or x4}}
  %a = tile.ldmatrix %s[%i, %i] four : memref<64x64xf16, 3> -> vector<4x2xf16>
  return
}

// -----

// T-WGMMA-3: shape is the triple (M, N, K).
func.func @wgmma_shape_rank(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @+1 {{shape must be (M, N, K) (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256>, wait = 1 : i32}
      : memref<128x64xf16, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}
