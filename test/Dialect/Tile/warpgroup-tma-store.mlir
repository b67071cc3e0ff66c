// tile.warpgroup_tma_store: round trip and T-TILE-4.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>

// CHECK-LABEL: func.func @epilogue
// CHECK: tile.warpgroup_tma_store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 64, 256>} : vector<128xf32>, memref<2x2x64x64xf16, 3>, !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @epilogue(%acc: vector<128xf32>, %c: !dc, %wg: index, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xf16, 3>
  tile.warpgroup_tma_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x2x64x64xf16, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @accumulators(%acc: vector<64xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xf16, 3>
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j and vector<(M/64 * N/2) x f32> accumulators, got 'vector<64xf32>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<64xf32>, memref<2x64x64xf16, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf16>, box = [32, 64], swizzle = b128>
func.func @box_rows(%acc: vector<128xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x32x64xf16, 3>
  // expected-error @below {{stores 64-row chunks with stmatrix: expected a rank-2 descriptor of 16-bit floats with box [64, W], W a multiple of 16 dividing N = 256, got '!tile.tma_desc<memref<?x?xf16>, box = [32, 64], swizzle = b128>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x32x64xf16, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf32>, box = [64, 32], swizzle = b128>
func.func @f32_result(%acc: vector<128xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x32xf32, 3>
  // expected-error @below {{stores 64-row chunks with stmatrix: expected a rank-2 descriptor of 16-bit floats}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x32xf32, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @staging_box(%acc: vector<128xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x32xf16, 3>
  // expected-error @below {{staging ring 'memref<2x64x32xf16, 3>' does not end with the box shape [64, 64] (T-TMA-17)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x32xf16, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @staging_rank(%acc: vector<128xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
  // expected-error @below {{expected a staging ring whose last dimensions are (buffers, 64, W), got 'memref<64x64xf16, 3>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<64x64xf16, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @chunks_per_buffer(%acc: vector<96xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xf16, 3>
  // expected-error @below {{the 3 chunks of a call must be a multiple of the 2 staging buffers, so that every call starts at buffer 0 (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 192>}
      : vector<96xf32>, memref<2x64x64xf16, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
func.func @unswizzled_staging(%acc: vector<128xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {alignment = 1024} : memref<2x64x64xf16, 3>
  // expected-error @below {{T-SWZ-5}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xf16, 3>, !dc
  return
}
