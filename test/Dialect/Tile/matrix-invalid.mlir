// The matrix-op rules T-MMA-1..3 and T-WS-1, the ldmatrix/stmatrix count
// keyword (T-MMA-1) and the rank of tile.warpgroup_mma's shape (T-WGMMA-3).
// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @three_matrices(%s: memref<64x64xf16, 3>, %i: index) {
  // expected-error @below {{loads or stores x1, x2 or x4 matrices, got x3 (T-MMA-1)}}
  %a = tile.ldmatrix %s[%i, %i] x3 : memref<64x64xf16, 3> -> vector<3x2xf16>
  return
}

// -----

func.func @fragment_shape(%s: memref<64x64xf16, 3>, %i: index) {
  // expected-error @below {{x4 needs fragments of type 'vector<4x2xf16>', got 'vector<2x2xf16>' (T-MMA-1)}}
  %a = tile.ldmatrix %s[%i, %i] x4 : memref<64x64xf16, 3> -> vector<2x2xf16>
  return
}

// -----

func.func @global_source(%g: memref<64x64xf16>, %i: index) {
  // expected-error @below {{expected a shared-memory memref, got 'memref<64x64xf16>' (T-MMA-2)}}
  %a = tile.ldmatrix %g[%i, %i] x4 : memref<64x64xf16> -> vector<4x2xf16>
  return
}

// -----

func.func @element_type(%s: memref<64x64xbf16, 3>, %i: index) {
  // expected-error @below {{memref element type 'bf16' differs from the fragments' 'f16' (T-MMA-2)}}
  %a = tile.ldmatrix %s[%i, %i] x4 : memref<64x64xbf16, 3> -> vector<4x2xf16>
  return
}

// -----

func.func @row_alignment(%s: memref<64x64xf16, 3>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @below {{row address at byte offset 8 is not 16-byte aligned (T-MMA-2)}}
  %a = tile.ldmatrix %s[%c0, %c4] x4 : memref<64x64xf16, 3> -> vector<4x2xf16>
  return
}

// -----

func.func @short_rows(%s: memref<64x4xf16, 3>, %i: index, %v: vector<1x2xf16>) {
  // expected-error @below {{rows of 8 contiguous elements need a contiguous innermost dimension of at least 8, got 'memref<64x4xf16, 3>' (T-MMA-2)}}
  tile.stmatrix %v, %s[%i, %i] x1 : vector<1x2xf16>, memref<64x4xf16, 3>
  return
}

// -----

func.func @mma_shape(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  // expected-error @below {{supports m16n8k16 and m16n8k8 (T-MMA-3)}}
  %d = tile.mma_sync %a, %b, %c {shape = array<i64: 16, 8, 32>} : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>
  return
}

// -----

func.func @mma_fragments(%a: vector<2x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) {
  // expected-error @below {{m16n8k16 takes fragments A vector<4x2xT>, B vector<2x2xT>, C vector<2x2xT>; got 'vector<2x2xf16>', 'vector<2x2xf16>', 'vector<2x2xf32>' (T-MMA-3)}}
  %d = tile.mma_sync %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf32>
  return
}

// -----

func.func @mma_mixed(%a: vector<4x2xf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) {
  // expected-error @below {{A and B element types differ: 'f16' and 'bf16' (T-MMA-3)}}
  %d = tile.mma_sync %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<4x2xf16>, vector<2x2xbf16>, vector<2x2xf32>
  return
}

// -----

func.func @mma_bf16_into_f16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf16>) {
  // expected-error @below {{an f16 accumulator needs f16 inputs (T-MMA-3)}}
  %d = tile.mma_sync %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf16>
  return
}

// -----

func.func @registers() {
  // expected-error @below {{register count must be a multiple of 8 in [24, 256], got 100 (T-WS-1)}}
  tile.setmaxnreg inc 100
  return
}

// -----

func.func @registers_direction() {
  // expected-error @below {{needs exactly one of inc and dec (T-WS-1)}}
  tile.setmaxnreg 240
  return
}

// -----

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
