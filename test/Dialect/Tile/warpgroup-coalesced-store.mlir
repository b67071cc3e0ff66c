// tile.warpgroup_coalesced_store: round trip and T-TILE-11 (a C whose rows
// TMA cannot write: the staging ring's chunks, stored back by the warps).
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

!c = memref<?x?xbf16, strided<[?, 1], offset: ?>>

// CHECK-LABEL: func.func @epilogue
// CHECK: tile.warpgroup_coalesced_store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 64, 256>} : vector<128xf32>, memref<2x2x64x64xbf16, 3>, memref<?x?xbf16, strided<[?, 1], offset: ?>>
func.func @epilogue(%acc: vector<128xf32>, %c: !c, %wg: index, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xbf16, 3>
  tile.warpgroup_coalesced_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x2x64x64xbf16, 3>, !c
  return
}

// -----

// 128 rows (a ping-pong consumer's tile) in 64x32 chunks of one buffer, an
// 8-bit C.
// CHECK-LABEL: func.func @fp8_rows
// CHECK: tile.warpgroup_coalesced_store {{.*}} {shape = array<i64: 128, 96>} : vector<96xf32>, memref<1x64x32xf8E4M3FN, 3>, memref<?x?xf8E4M3FN>
func.func @fp8_rows(%acc: vector<96xf32>, %c: memref<?x?xf8E4M3FN>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<1x64x32xf8E4M3FN, 3>
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 128, 96>}
      : vector<96xf32>, memref<1x64x32xf8E4M3FN, 3>, memref<?x?xf8E4M3FN>
  return
}

// -----

func.func @accumulators(%acc: vector<64xf32>, %c: memref<?x?xf16>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x64x64xf16, 3>
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j and vector<(M/64 * N/2) x f32> accumulators, got 'vector<64xf32>' (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<64xf32>, memref<2x64x64xf16, 3>, memref<?x?xf16>
  return
}

// -----

func.func @integer_destination(%acc: vector<128xf32>, %c: memref<?x?xi16>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x64x64xi16, 3>
  // expected-error @below {{expected a global matrix of 32-, 16- or 8-bit floats, got 'memref<?x?xi16>' (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xi16, 3>, memref<?x?xi16>
  return
}

// -----

func.func @shared_destination(%acc: vector<128xf32>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x64x64xf16, 3>
  %c = tile.shared_alloc : memref<64x256xf16, 3>
  // expected-error @below {{expected a global matrix of 32-, 16- or 8-bit floats, got 'memref<64x256xf16, 3>' (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xf16, 3>, memref<64x256xf16, 3>
  return
}

// -----

func.func @staging_element(%acc: vector<128xf32>, %c: memref<?x?xbf16>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x64x64xf16, 3>
  // expected-error @below {{staging element type 'f16' differs from the destination's 'bf16' (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xf16, 3>, memref<?x?xbf16>
  return
}

// -----

func.func @staging_indices(%acc: vector<128xf32>, %c: memref<?x?xf16>, %wg: index, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x64x64xf16, 3>
  // expected-error @below {{expected a staging ring whose last dimensions are (buffers, 64, W), indexed before them: 0 indices for 'memref<2x64x64xf16, 3>', got 1 (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xf16, 3>, memref<?x?xf16>
  return
}

// -----

func.func @chunk_width(%acc: vector<128xf32>, %c: memref<?x?xf16>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x64x48xf16, 3>
  // expected-error @below {{stores 64-row chunks of W columns through at least one buffer, W a multiple of 32 dividing N = 256: got 2 staging buffers of 64x48 (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x48xf16, 3>, memref<?x?xf16>
  return
}

// -----

func.func @chunk_rows(%acc: vector<128xf32>, %c: memref<?x?xf16>, %m: index, %n: index) {
  %staging = tile.shared_alloc : memref<2x32x64xf16, 3>
  // expected-error @below {{stores 64-row chunks of W columns through at least one buffer, W a multiple of 32 dividing N = 256: got 2 staging buffers of 32x64 (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x32x64xf16, 3>, memref<?x?xf16>
  return
}

// -----

// Empty chunks and no buffers (the verifier must not divide by them).
func.func @empty_chunks(%acc: vector<128xf32>, %c: memref<?x?xf16>, %staging: memref<2x64x0xf16, 3>, %m: index, %n: index) {
  // expected-error @below {{stores 64-row chunks of W columns through at least one buffer, W a multiple of 32 dividing N = 256: got 2 staging buffers of 64x0 (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x0xf16, 3>, memref<?x?xf16>
  return
}

// -----

func.func @no_buffers(%acc: vector<128xf32>, %c: memref<?x?xf16>, %staging: memref<0x64x64xf16, 3>, %m: index, %n: index) {
  // expected-error @below {{stores 64-row chunks of W columns through at least one buffer, W a multiple of 32 dividing N = 256: got 0 staging buffers of 64x64 (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<0x64x64xf16, 3>, memref<?x?xf16>
  return
}

// -----

// A view one element into a buffer: stmatrix's rows would not be 16-byte
// aligned.
func.func @strided_staging(%acc: vector<128xf32>, %c: memref<?x?xf16>, %m: index, %n: index) {
  %ring = tile.shared_alloc : memref<2x64x72xf16, 3>
  %staging = memref.subview %ring[0, 0, 1] [2, 64, 64] [1, 1, 1]
      : memref<2x64x72xf16, 3> to memref<2x64x64xf16, strided<[4608, 72, 1], offset: 1>, 3>
  // expected-error @below {{expected a dense shared staging ring of static shape, got 'memref<2x64x64xf16, strided<[4608, 72, 1], offset: 1>, 3>' (T-TILE-11)}}
  tile.warpgroup_coalesced_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xf16, strided<[4608, 72, 1], offset: 1>, 3>, memref<?x?xf16>
  return
}
