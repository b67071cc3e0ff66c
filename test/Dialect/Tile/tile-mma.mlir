// tile.mma, tile.mma_store, the warpgroup forms (tile.warpgroup_mma with K
// over several swizzle spans, tile.warpgroup_mma_rs with A in registers),
// tile.split_k_reduce and tile.warpgroup_scale: round trip, T-TILE-3,
// T-WGMMA-1/3/5, T-TILE-6 and T-TILE-8.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @hgemm_step
// CHECK: tile.mma %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}], %{{.*}} {warps = array<i64: 2, 2>} : memref<3x128x32xf16, 3>, memref<3x128x32xf16, 3>, vector<4x8x2x2xf32>
// CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} {transpose_b, warps = array<i64: 2, 2>} : memref<128x32xbf16, 3>, memref<32x128xbf16, 3>, vector<4x8x2x2xf32>
// CHECK: tile.mma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] bounds{{ ?}}[%{{.*}}, %{{.*}}] {warps = array<i64: 2, 2>} : vector<4x8x2x2xf32>, memref<?x?xf16>
func.func @hgemm_step(%a: memref<3x128x32xf16, 3>, %b: memref<3x128x32xf16, 3>,
                      %at: memref<128x32xbf16, 3>, %bt: memref<32x128xbf16, 3>,
                      %acc: vector<4x8x2x2xf32>, %c: memref<?x?xf16>, %s: index) {
  %0 = tile.mma %a[%s], %b[%s], %acc {warps = array<i64: 2, 2>}
      : memref<3x128x32xf16, 3>, memref<3x128x32xf16, 3>, vector<4x8x2x2xf32>
  %1 = tile.mma %at, %bt, %0 {warps = array<i64: 2, 2>, transpose_b}
      : memref<128x32xbf16, 3>, memref<32x128xbf16, 3>, vector<4x8x2x2xf32>
  tile.mma_store %1, %c[%s, %s] bounds [%s, %s] {warps = array<i64: 2, 2>}
      : vector<4x8x2x2xf32>, memref<?x?xf16>
  return
}

// -----

func.func @accumulator(%a: memref<128x32xf16, 3>, %b: memref<128x32xf16, 3>, %acc: vector<4x4x2x2xf32>) {
  // expected-error @below {{a warp's 64x64 part accumulates in 'vector<4x8x2x2xf32>', got 'vector<4x4x2x2xf32>' (T-TILE-3)}}
  %0 = tile.mma %a, %b, %acc {warps = array<i64: 2, 2>}
      : memref<128x32xf16, 3>, memref<128x32xf16, 3>, vector<4x4x2x2xf32>
  return
}

// -----

func.func @split(%a: memref<128x24xf16, 3>, %b: memref<128x24xf16, 3>, %acc: vector<4x8x2x2xf32>) {
  // expected-error @below {{the 128x128x24 tile does not split into 2x2 warps of 16-row, 16-column parts and 16-wide K steps (T-TILE-3)}}
  %0 = tile.mma %a, %b, %acc {warps = array<i64: 2, 2>}
      : memref<128x24xf16, 3>, memref<128x24xf16, 3>, vector<4x8x2x2xf32>
  return
}

// -----

func.func @k_mismatch(%a: memref<128x32xf16, 3>, %b: memref<64x128xf16, 3>, %acc: vector<4x8x2x2xf32>) {
  // expected-error @below {{A has K = 32 but B has K = 64 (B is K x N) (T-TILE-3)}}
  %0 = tile.mma %a, %b, %acc {warps = array<i64: 2, 2>, transpose_b}
      : memref<128x32xf16, 3>, memref<64x128xf16, 3>, vector<4x8x2x2xf32>
  return
}

// -----

func.func @types(%a: memref<128x32xf32, 3>, %b: memref<128x32xf32, 3>, %acc: vector<4x8x2x2xf32>) {
  // expected-error @below {{mma.sync m16n8k16 multiplies f16 or bf16 tiles of one type, got 'f32' and 'f32' (T-TILE-3)}}
  %0 = tile.mma %a, %b, %acc {warps = array<i64: 2, 2>}
      : memref<128x32xf32, 3>, memref<128x32xf32, 3>, vector<4x8x2x2xf32>
  return
}

// -----

func.func @global_tile(%a: memref<128x32xf16>, %b: memref<128x32xf16, 3>, %acc: vector<4x8x2x2xf32>) {
  // expected-error @below {{expected A to be a dense shared memref of rank >= 2, got 'memref<128x32xf16>' (T-TILE-3)}}
  %0 = tile.mma %a, %b, %acc {warps = array<i64: 2, 2>}
      : memref<128x32xf16>, memref<128x32xf16, 3>, vector<4x8x2x2xf32>
  return
}

// -----

func.func @warps(%acc: vector<4x8x2x2xf32>, %c: memref<?x?xf16>, %i: index) {
  // expected-error @below {{warps must be a positive (M, N) grid of warps (T-TILE-3)}}
  tile.mma_store %acc, %c[%i, %i] {warps = array<i64: 4>} : vector<4x8x2x2xf32>, memref<?x?xf16>
  return
}

// -----

// CHECK-LABEL: gpu.func @warpgroup
// CHECK: tile.warpgroup_mma %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {shape = array<i64: 64, 256, 64>, wait = 1 : i32} : memref<4x128x64xf16, 3>, memref<4x256x64xf16, 3>, vector<128xf32>
// CHECK: tile.warpgroup_mma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 64, 256>} : vector<128xf32>, memref<?x?xf16>
gpu.module @k {
  gpu.func @warpgroup(%c: memref<?x?xf16>, %acc: vector<128xf32>, %s: index) kernel {
    %ra = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
    %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x256x64xf16, 3>
    %0 = tile.warpgroup_mma %ra[%s, %s, %s], %rb[%s, %s, %s], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
        : memref<4x128x64xf16, 3>, memref<4x256x64xf16, 3>, vector<128xf32>
    tile.warpgroup_mma_store %0, %c[%s, %s] {shape = array<i64: 64, 256>} : vector<128xf32>, memref<?x?xf16>
    gpu.return
  }
}

// -----

func.func @wgmma_shape(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @below {{shape 32x256x64 is not M = 64 i, N a multiple of 8 in [8, 256], K = 16 j (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 32, 256, 64>, wait = 1 : i32}
      : memref<128x64xf16, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_types(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @below {{wgmma multiplies f16 or bf16 tiles of one type, or 8-bit float tiles (f8E4M3FN, f8E5M2), got 'f8E4M3FN' and 'f16' (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
      : memref<128x128xf8E4M3FN, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_fp8_k(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x128xf8E5M2, 3>
  // expected-error @below {{shape 64x256x48 is not M = 64 i, N a multiple of 8 in [8, 256], K = 32 j (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 48>, wait = 1 : i32}
      : memref<128x128xf8E4M3FN, 3>, memref<256x128xf8E5M2, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_fp8_mn_major(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x128xf8E4M3FN, 3>
  // expected-error @below {{8-bit float tiles must be K-major: wgmma transposes only f16/bf16 tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i, %i], %acc {shape = array<i64: 64, 256, 128>, wait = 1 : i32, transpose_b}
      : memref<128x128xf8E4M3FN, 3>, memref<2x128x128xf8E4M3FN, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_bf16_f16_accumulators(%acc: vector<128xf16>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xbf16, 3>
  // expected-error @below {{accumulates 'bf16' x 'bf16' tiles in f32, or in f16 for f16 and 8-bit float tiles; got 'f16' (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
      : memref<128x64xbf16, 3>, memref<256x64xbf16, 3>, vector<128xf16>
  return
}

// -----

func.func @wgmma_f16_accumulator_count(%acc: vector<128xf16>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x128xf8E4M3FN, 3>
  // expected-error @below {{a 128x256 warpgroup tile accumulates in 'vector<256xf16>', got 'vector<128xf16>' (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 128, 256, 128>, wait = 1 : i32}
      : memref<128x128xf8E4M3FN, 3>, memref<256x128xf8E4M3FN, 3>, vector<128xf16>
  return
}

// -----

func.func @wgmma_accumulator(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @below {{a 128x256 warpgroup tile accumulates in 'vector<256xf32>', got 'vector<128xf32>' (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 128, 256, 64>, wait = 1 : i32}
      : memref<128x64xf16, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_tiles(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  // expected-error @below {{B 'memref<128x64xf16, 3>' cannot hold 256x64 K-major tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
      : memref<128x64xf16, 3>, memref<128x64xf16, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_wait(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @below {{T-CPASYNC-7}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = -1 : i32}
      : memref<128x64xf16, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}

// -----

func.func @wgmma_store_shape(%acc: vector<128xf32>, %c: memref<?x?xf16>, %i: index) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j and vector<(M/64 * N/2) x f32> accumulators, got 'vector<128xf32>' (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %c[%i, %i] {shape = array<i64: 64, 128>} : vector<128xf32>, memref<?x?xf16>
  return
}

// -----

func.func @wgmma_unswizzled(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @below {{needs a tile.shared_alloc buffer with a 32B, 64B or 128B swizzle (T-WGMMA-1)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
      : memref<128x64xf16, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}

// -----

func.func @stmatrix_global(%acc: vector<4x8x2x2xf32>, %c: memref<?x?xf16>, %i: index) {
  // expected-error @below {{stmatrix stores pairs of fragments to a 16-bit shared memref without bounds; got 'memref<?x?xf16>' and 'vector<4x8x2x2xf32>' (T-TILE-3)}}
  tile.mma_store %acc, %c[%i, %i] {warps = array<i64: 2, 2>, stmatrix} : vector<4x8x2x2xf32>, memref<?x?xf16>
  return
}

// -----

func.func @wgmma_mn_major_tiles(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xf16, 3>
  // expected-error @below {{B 'memref<2x64x64xf16, 3>' cannot hold 256x64 (B MN-major) tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32, transpose_b}
      : memref<128x64xf16, 3>, memref<2x64x64xf16, 3>, vector<128xf32>
  return
}

// -----

// The decode form: A MN-major (transpose_a), the C^T tile stored transposed.
// CHECK-LABEL: gpu.func @decode
// CHECK: tile.warpgroup_mma {{.*}} {shape = array<i64: 64, 16, 64>, transpose_a, wait = 1 : i32} : memref<4x1x64x64xf16, 3>, memref<4x16x64xf16, 3>, vector<8xf32>
// CHECK: tile.warpgroup_mma_store {{.*}} {shape = array<i64: 64, 16>, transpose} : vector<8xf32>, memref<?x?xf16>
gpu.module @k {
  gpu.func @decode(%c: memref<?x?xf16>, %acc: vector<8xf32>, %s: index, %m: index, %n: index) kernel {
    %rb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x1x64x64xf16, 3>
    %ra = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x16x64xf16, 3>
    %0 = tile.warpgroup_mma %rb[%s, %s, %s, %s], %ra[%s, %s, %s], %acc {shape = array<i64: 64, 16, 64>, wait = 1 : i32, transpose_a}
        : memref<4x1x64x64xf16, 3>, memref<4x16x64xf16, 3>, vector<8xf32>
    tile.warpgroup_mma_store %0, %c[%s, %s] bounds [%m, %n] {shape = array<i64: 64, 16>, transpose} : vector<8xf32>, memref<?x?xf16>
    gpu.return
  }
}

// -----

func.func @wgmma_mn_major_a(%acc: vector<8xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x32x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x64xf16, 3>
  // expected-error @below {{A 'memref<1x32x64xf16, 3>' cannot hold 64x64 (A MN-major) tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 16, 64>, wait = 1 : i32, transpose_a}
      : memref<1x32x64xf16, 3>, memref<16x64xf16, 3>, vector<8xf32>
  return
}

// -----

func.func @wgmma_mn_major_a_rank(%acc: vector<8xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x64xf16, 3>
  // expected-error @below {{expected an MN-major tile as (MN chunks, K rows, span) with K rows a multiple of 8, got 'memref<64x64xf16, 3>' (T-WGMMA-1)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 16, 64>, wait = 1 : i32, transpose_a}
      : memref<64x64xf16, 3>, memref<16x64xf16, 3>, vector<8xf32>
  return
}

// -----

func.func @wgmma_mn_major_rank(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<256x64xf16, 3>
  // expected-error @below {{expected an MN-major tile as (MN chunks, K rows, span) with K rows a multiple of 8, got 'memref<256x64xf16, 3>' (T-WGMMA-1)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32, transpose_b}
      : memref<128x64xf16, 3>, memref<256x64xf16, 3>, vector<128xf32>
  return
}

// -----

// B's N rows continue over the dimension before them: two 128-row halves
// (as two CTAs multicast them) hold the 256 rows of an N = 256 tile.
// CHECK-LABEL: func.func @wgmma_b_halves
// CHECK: tile.warpgroup_mma {{.*}} : memref<4x128x64xf16, 3>, memref<4x2x128x64xf16, 3>, vector<128xf32>
func.func @wgmma_b_halves(%acc: vector<128xf32>, %i: index) -> vector<128xf32> {
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x2x128x64xf16, 3>
  %0 = tile.warpgroup_mma %a[%i, %i, %i], %b[%i, %i, %i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
      : memref<4x128x64xf16, 3>, memref<4x2x128x64xf16, 3>, vector<128xf32>
  return %0 : vector<128xf32>
}

// -----

func.func @wgmma_b_halves_short(%acc: vector<128xf32>, %i: index) {
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x2x64x64xf16, 3>
  // expected-error @below {{B 'memref<4x2x64x64xf16, 3>' cannot hold 256x64 K-major tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i, %i], %b[%i, %i, %i, %i], %acc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
      : memref<4x128x64xf16, 3>, memref<4x2x64x64xf16, 3>, vector<128xf32>
  return
}

// -----

// T-TILE-5: a 4096-deep K step of 64x64 warp parts is 8192 mma.sync per warp.
func.func @too_deep(%a: memref<128x4096xf16, 3>, %b: memref<128x4096xf16, 3>, %acc: vector<4x8x2x2xf32>) {
  // expected-error @below {{expands into 8192 mma.sync m16n8k16 per warp; at most 4096: loop over smaller tiles (T-TILE-5)}}
  %0 = tile.mma %a, %b, %acc {warps = array<i64: 2, 2>}
      : memref<128x4096xf16, 3>, memref<128x4096xf16, 3>, vector<4x8x2x2xf32>
  return
}

// -----

// Found by scripts/fuzz: a huge accumulator made tile-lower-tile-ops run
// out of time and memory (T-TILE-5), a malformed one is T-TILE-3.
func.func @huge_store(%acc: vector<1099511627776x4x2x2xf32>, %c: memref<?x?xf16>, %i: index) {
  // expected-error @below {{expands into 4398046511104 fragment stores per thread; at most 4096: loop over smaller tiles (T-TILE-5)}}
  tile.mma_store %acc, %c[%i, %i] {warps = array<i64: 2, 2>} : vector<1099511627776x4x2x2xf32>, memref<?x?xf16>
  return
}

// -----

func.func @not_fragments(%acc: vector<4x8x4x2xf32>, %c: memref<?x?xf16>, %i: index) {
  // expected-error @below {{expected mma.sync accumulator fragments vector<(M/16) x (N/8) x 2 x 2 x f32>, got 'vector<4x8x4x2xf32>' (T-TILE-3)}}
  tile.mma_store %acc, %c[%i, %i] {warps = array<i64: 2, 2>} : vector<4x8x4x2xf32>, memref<?x?xf16>
  return
}

// -----

// T-TILE-5: a 262208-row warpgroup tile is 4097 M steps of one K step.
func.func @too_tall(%a: memref<262208x64xf16, 3>, %b: memref<256x64xf16, 3>, %acc: vector<524416xf32>, %i: index) {
  // expected-error @below {{expands into 4097 wgmma instructions per warpgroup; at most 4096: loop over smaller tiles (T-TILE-5)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i], %acc {shape = array<i64: 262208, 256, 16>, wait = 1 : i32}
      : memref<262208x64xf16, 3>, memref<256x64xf16, 3>, vector<524416xf32>
  return
}

// -----

// CHECK-LABEL: gpu.func @split_k
// CHECK: %{{.*}}, %{{.*}} = tile.split_k_reduce %{{.*}}, %{{.*}}, %{{.*}}, tile %{{.*}}, split %{{.*}} of %{{.*}} : vector<8xf32>, memref<?x8xf32>, memref<?xi32>
// CHECK: tile.split_k_reduce %{{.*}}, %{{.*}}, %{{.*}}, tile %{{.*}}, split %{{.*}} of %{{.*}} prefetch : vector<8xf32>, memref<?x8xf32>, memref<?xi32>
gpu.module @k {
  gpu.func @split_k(%acc: vector<8xf32>, %ws: memref<?x8xf32>, %counters: memref<?xi32>, %t: index, %s: index, %n: index) kernel {
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n : vector<8xf32>, memref<?x8xf32>, memref<?xi32>
    %last2, %sum2 = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n prefetch : vector<8xf32>, memref<?x8xf32>, memref<?xi32>
    gpu.return
  }
}

// -----

func.func @split_k_columns(%acc: vector<8xf32>, %ws: memref<?x16xf32>, %counters: memref<?xi32>, %i: index) {
  // expected-error @below {{the workspace holds one column per accumulator element: expected 8 columns, got 'memref<?x16xf32>' (T-TILE-6)}}
  %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %i, split %i of %i : vector<8xf32>, memref<?x16xf32>, memref<?xi32>
  return
}

// -----

func.func @split_k_prefetch_too_many(%acc: vector<64xf32>, %ws: memref<?x64xf32>, %counters: memref<?xi32>, %i: index) {
  // expected-error @below {{prefetch keeps four accumulator vectors live (acc, the sums, the current and the next split's): at most 32 accumulators a thread, got 64 (T-TILE-6)}}
  %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %i, split %i of %i prefetch : vector<64xf32>, memref<?x64xf32>, memref<?xi32>
  return
}

// -----

func.func @split_k_shared(%acc: vector<8xf32>, %ws: memref<?x8xf32>, %counters: memref<4xi32, 3>, %i: index) {
  // expected-error @below {{the workspace and the counters are shared by the CTAs of a launch: they must be in global memory, got 'memref<?x8xf32>' and 'memref<4xi32, 3>' (T-TILE-6)}}
  %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %i, split %i of %i : vector<8xf32>, memref<?x8xf32>, memref<4xi32, 3>
  return
}

// -----

// CHECK-LABEL: func.func @scale
// CHECK: tile.warpgroup_scale %{{.*}} rows %{{.*}}[%{{.*}}] : memref<?xf32> columns %{{.*}}[%{{.*}}] : memref<1xf32> {shape = array<i64: 64, 256>} : vector<128xf32>
// CHECK: tile.warpgroup_scale %{{.*}} columns %{{.*}}[%{{.*}}] : memref<1xf32> {shape = array<i64: 64, 256>} : vector<128xf32>
// CHECK: tile.warpgroup_scale %{{.*}} rows %{{.*}}[%{{.*}}] : memref<?xf32, strided<[?]>> {shape = array<i64: 128, 8>} : vector<8xf32>
// CHECK: %[[F:.*]] = tile.warpgroup_rows %{{.*}}[%{{.*}}] {shape = array<i64: 128, 8>} : memref<128xf32, 3> -> vector<4xf32>
// CHECK: tile.warpgroup_scale %{{.*}} row_factors %[[F]] : vector<4xf32> columns %{{.*}}[%{{.*}}] : memref<1xf32> {shape = array<i64: 128, 8>} : vector<8xf32>
func.func @scale(%acc: vector<128xf32>, %small: vector<8xf32>, %rows: memref<?xf32>, %one: memref<1xf32>,
                 %strided: memref<?xf32, strided<[?]>>, %shared: memref<128xf32, 3>, %i: index) {
  %0 = tile.warpgroup_scale %acc rows %rows[%i] : memref<?xf32> columns %one[%i] : memref<1xf32>
      {shape = array<i64: 64, 256>} : vector<128xf32>
  %1 = tile.warpgroup_scale %0 columns %one[%i] : memref<1xf32> {shape = array<i64: 64, 256>} : vector<128xf32>
  %2 = tile.warpgroup_scale %small rows %strided[%i] : memref<?xf32, strided<[?]>> {shape = array<i64: 128, 8>}
      : vector<8xf32>
  // Row factors from shared memory, in registers.
  %f = tile.warpgroup_rows %shared[%i] {shape = array<i64: 128, 8>} : memref<128xf32, 3> -> vector<4xf32>
  %3 = tile.warpgroup_scale %2 row_factors %f : vector<4xf32> columns %one[%i] : memref<1xf32>
      {shape = array<i64: 128, 8>} : vector<8xf32>
  return
}

// -----

func.func @scale_nothing(%acc: vector<128xf32>) {
  // expected-error @below {{scales by rows, columns or both: give at least one (T-TILE-8)}}
  %0 = tile.warpgroup_scale %acc {shape = array<i64: 64, 256>} : vector<128xf32>
  return
}

// -----

func.func @scale_shape(%acc: vector<128xf32>, %rows: memref<?xf32>, %i: index) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j and vector<(M/64 * N/2) x f32> accumulators, got 'vector<128xf32>' (T-TILE-8)}}
  %0 = tile.warpgroup_scale %acc rows %rows[%i] : memref<?xf32> {shape = array<i64: 64, 128>} : vector<128xf32>
  return
}

// -----

func.func @scale_empty(%acc: vector<128xf32>, %rows: memref<0xf32>, %i: index) {
  // expected-error @below {{expected a non-empty memref of factors, got 'memref<0xf32>' (T-TILE-8)}}
  %0 = tile.warpgroup_scale %acc columns %rows[%i] : memref<0xf32> {shape = array<i64: 64, 256>} : vector<128xf32>
  return
}

// -----

func.func @scale_both_rows(%acc: vector<128xf32>, %rows: memref<?xf32>, %f: vector<2xf32>, %i: index) {
  // expected-error @below {{takes row factors from a memref or from registers, not both (T-TILE-8)}}
  %0 = tile.warpgroup_scale %acc rows %rows[%i] : memref<?xf32> row_factors %f : vector<2xf32>
      {shape = array<i64: 64, 256>} : vector<128xf32>
  return
}

// -----

func.func @scale_row_factors(%acc: vector<128xf32>, %f: vector<4xf32>) {
  // expected-error @below {{a thread holds 2 rows of the tile: expected that many row factors, got 'vector<4xf32>' (T-TILE-8)}}
  %0 = tile.warpgroup_scale %acc row_factors %f : vector<4xf32> {shape = array<i64: 64, 256>} : vector<128xf32>
  return
}

// -----

func.func @rows_count(%src: memref<?xf32>, %i: index) {
  // expected-error @below {{a thread holds 4 rows of a 128-row tile, got 'vector<2xf32>' (T-TILE-8)}}
  %0 = tile.warpgroup_rows %src[%i] {shape = array<i64: 128, 64>} : memref<?xf32> -> vector<2xf32>
  return
}

// -----

func.func @rows_shape(%src: memref<?xf32>, %i: index) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-8)}}
  %0 = tile.warpgroup_rows %src[%i] {shape = array<i64: 32, 64>} : memref<?xf32> -> vector<2xf32>
  return
}

// -----

func.func @rows_empty(%src: memref<0xf32>, %i: index) {
  // expected-error @below {{expected a non-empty memref of factors, got 'memref<0xf32>' (T-TILE-8)}}
  %0 = tile.warpgroup_rows %src[%i] {shape = array<i64: 64, 64>} : memref<0xf32> -> vector<2xf32>
  return
}

// -----

func.func @scale_type(%acc: vector<128xf32>, %rows: memref<?xf16>, %i: index) {
  // expected-error @below {{operand #1 must be}}
  %0 = tile.warpgroup_scale %acc rows %rows[%i] : memref<?xf16> {shape = array<i64: 64, 256>} : vector<128xf32>
  return
}

// -----

// A factor memref without its origin index (only the generic form can
// build one).
func.func @scale_without_origin(%acc: vector<128xf32>, %rows: memref<?xf32>) {
  // expected-error @below {{expected an origin index with each factor memref (T-TILE-8)}}
  %0 = "tile.warpgroup_scale"(%acc, %rows) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0>,
      shape = array<i64: 64, 256>}> : (vector<128xf32>, memref<?xf32>) -> vector<128xf32>
  return
}

// -----

// K over two swizzle spans: 128-wide K of 16-bit tiles as two 64-element
// chunks in the dimension before the rows (A (chunks, M, span), B (stages,
// chunks, N, span)), as a head dimension of 128 loaded by 64-wide TMA boxes.
// CHECK-LABEL: gpu.func @wgmma_k_spans
// CHECK: tile.warpgroup_mma %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {shape = array<i64: 64, 128, 128>, wait = 1 : i32} : memref<2x128x64xbf16, 3>, memref<2x2x128x64xbf16, 3>, vector<64xf32>
gpu.module @k {
  gpu.func @wgmma_k_spans(%acc: vector<64xf32>, %s: index, %row: index) kernel {
    %c0 = arith.constant 0 : index
    %sq = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x128x64xbf16, 3>
    %0 = tile.warpgroup_mma %sq[%c0, %row, %c0], %sk[%s, %c0, %c0, %c0], %acc {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
        : memref<2x128x64xbf16, 3>, memref<2x2x128x64xbf16, 3>, vector<64xf32>
    gpu.return
  }
}

// -----

func.func @wgmma_a_one_span(%acc: vector<64xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
  // expected-error @below {{A 'memref<128x64xf16, 3>' cannot hold 64x128 K-major tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i], %b[%i, %i, %i], %acc {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
      : memref<128x64xf16, 3>, memref<2x128x64xf16, 3>, vector<64xf32>
  return
}

// -----

func.func @wgmma_b_k_chunks(%acc: vector<64xf32>, %i: index) {
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x128x64xf16, 3>
  // expected-error @below {{B 'memref<1x128x64xf16, 3>' cannot hold 128x192 K-major tiles (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i, %i], %b[%i, %i, %i], %acc {shape = array<i64: 64, 128, 192>, wait = 1 : i32}
      : memref<4x128x64xf16, 3>, memref<1x128x64xf16, 3>, vector<64xf32>
  return
}

// -----

func.func @wgmma_b_n_and_k(%acc: vector<64xf32>, %i: index) {
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x2x64x64xf16, 3>
  // expected-error @below {{B 'memref<4x2x64x64xf16, 3>' continues over the dimension before its rows either along N or along K, not both (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%i, %i, %i], %b[%i, %i, %i, %i], %acc {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
      : memref<2x128x64xf16, 3>, memref<4x2x64x64xf16, 3>, vector<64xf32>
  return
}

// -----

// tile.warpgroup_mma_rs (T-WGMMA-5): A in registers in the accumulator
// layout of the M x K tile (M/64 * K/2 16-bit elements), B a swizzled
// shared tile: MN-major (attention's P V: V as (N chunks, K rows, span)),
// K-major, or K-major with K over two spans; 8-bit floats (K = 32 j) with
// B K-major.
// CHECK-LABEL: gpu.func @warpgroup_rs
// CHECK: tile.warpgroup_mma_rs %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {shape = array<i64: 64, 128, 128>, transpose_b, wait = 1 : i32} : vector<64xbf16>, memref<2x2x128x64xbf16, 3>, vector<64xf32>
// CHECK: tile.warpgroup_mma_rs %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {shape = array<i64: 128, 64, 64>, wait = 0 : i32} : vector<64xf16>, memref<64x64xf16, 3>, vector<64xf16>
// CHECK: tile.warpgroup_mma_rs %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {shape = array<i64: 64, 128, 128>, wait = 0 : i32} : vector<64xbf16>, memref<2x128x64xbf16, 3>, vector<64xf32>
// CHECK: tile.warpgroup_mma_rs %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} {shape = array<i64: 64, 128, 128>, wait = 0 : i32} : vector<64xf8E4M3FN>, memref<2x128x128xf8E4M3FN, 3>, vector<64xf32>
gpu.module @k {
  gpu.func @warpgroup_rs(%p: vector<64xbf16>, %ph: vector<64xf16>, %o: vector<64xf32>, %oh: vector<64xf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %sv = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x128x64xbf16, 3>
    %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %sk = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    %0 = tile.warpgroup_mma_rs %p, %sv[%s, %c0, %c0, %c0], %o {shape = array<i64: 64, 128, 128>, wait = 1 : i32, transpose_b}
        : vector<64xbf16>, memref<2x2x128x64xbf16, 3>, vector<64xf32>
    %1 = tile.warpgroup_mma_rs %ph, %sb[%c0, %c0], %oh {shape = array<i64: 128, 64, 64>, wait = 0 : i32}
        : vector<64xf16>, memref<64x64xf16, 3>, vector<64xf16>
    %2 = tile.warpgroup_mma_rs %p, %sk[%c0, %c0, %c0], %0 {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
        : vector<64xbf16>, memref<2x128x64xbf16, 3>, vector<64xf32>
    %s8 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x128xf8E4M3FN, 3>
    %p8 = arith.truncf %o : vector<64xf32> to vector<64xf8E4M3FN>
    %3 = tile.warpgroup_mma_rs %p8, %s8[%s, %c0, %c0], %2 {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
        : vector<64xf8E4M3FN>, memref<2x128x128xf8E4M3FN, 3>, vector<64xf32>
    gpu.return
  }
}

// -----

func.func @rs_b_indices(%p: vector<64xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  // expected-error @below {{expected one index per dimension of B (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
      : vector<64xbf16>, memref<2x128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_shape_rank(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{shape must be (M, N, K) (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_types(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xf16, 3>
  // expected-error @below {{A in registers and B are of the same type (f16, bf16, f8E4M3FN or f8E5M2), got 'bf16' and 'f16' (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xf16, 3>, vector<64xf32>
  return
}

// -----

// A and B of one type: a 16-bit A with an 8-bit B.
func.func @rs_fp8_b(%p: vector<32xf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
  // expected-error @below {{A in registers and B are of the same type (f16, bf16, f8E4M3FN or f8E5M2), got 'f16' and 'f8E4M3FN' (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xf16>, memref<128x128xf8E4M3FN, 3>, vector<64xf32>
  return
}

// -----

// 8-bit floats: K = 32 j (wgmma's k32).
func.func @rs_fp8_k(%p: vector<24xf8E4M3FN>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
  // expected-error @below {{shape 64x128x48 is not M = 64 i, N a multiple of 8 in [8, 256], K = 32 j (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 48>, wait = 0 : i32}
      : vector<24xf8E4M3FN>, memref<128x128xf8E4M3FN, 3>, vector<64xf32>
  return
}

// -----

// 8-bit floats: B K-major only (wgmma transposes 16-bit tiles only).
func.func @rs_fp8_transposed(%p: vector<64xf8E4M3FN>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x128x128xf8E4M3FN, 3>
  // expected-error @below {{an 8-bit float B must be K-major: wgmma transposes only f16/bf16 tiles (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i, %i], %o {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b}
      : vector<64xf8E4M3FN>, memref<1x128x128xf8E4M3FN, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_shape_k(%p: vector<12xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{shape 64x128x24 is not M = 64 i, N a multiple of 8 in [8, 256], K = 16 j (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 24>, wait = 0 : i32}
      : vector<12xbf16>, memref<128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_shape_m(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{shape 96x128x64 is not M = 64 i, N a multiple of 8 in [8, 256], K = 16 j (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 96, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_shape_n(%p: vector<32xbf16>, %o: vector<136xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<272x64xbf16, 3>
  // expected-error @below {{shape 64x272x64 is not M = 64 i, N a multiple of 8 in [8, 256], K = 16 j (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 272, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<272x64xbf16, 3>, vector<136xf32>
  return
}

// -----

// A 128x64 A tile is two 64-row blocks of 32 elements a thread.
func.func @rs_a_elements(%p: vector<32xbf16>, %o: vector<128xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{a thread holds 64 elements of the 128x64 A tile (the accumulator layout of that tile), got 'vector<32xbf16>' (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 128, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<128xf32>
  return
}

// -----

// T-TILE-5: 4097 64-row blocks of one K step.
func.func @rs_too_tall(%p: vector<32776xbf16>, %o: vector<16388xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<8x64xbf16, 3>
  // expected-error @below {{expands into 4097 wgmma instructions per warpgroup; at most 4096: loop over smaller tiles (T-TILE-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 262208, 8, 16>, wait = 0 : i32}
      : vector<32776xbf16>, memref<8x64xbf16, 3>, vector<16388xf32>
  return
}

// -----

func.func @rs_unswizzled(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc : memref<128x64xbf16, 3>
  // expected-error @below {{needs a tile.shared_alloc buffer with a 32B, 64B or 128B swizzle (T-WGMMA-1)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_mn_major_rank(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
  // expected-error @below {{expected an MN-major tile as (MN chunks, K rows, span) with K rows a multiple of 8, got 'memref<64x64xbf16, 3>' (T-WGMMA-1)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32, transpose_b}
      : vector<32xbf16>, memref<64x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_b_short(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
  // expected-error @below {{B 'memref<64x64xbf16, 3>' cannot hold 128x64 K-major tiles (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<64x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// V of a 128-key block as one 64-column chunk: N = 128 needs two.
func.func @rs_b_mn_major_short(%p: vector<64xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x1x128x64xbf16, 3>
  // expected-error @below {{B 'memref<2x1x128x64xbf16, 3>' cannot hold 128x128 (B MN-major) tiles (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i, %i, %i], %o {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b}
      : vector<64xbf16>, memref<2x1x128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// B's 64 rows cannot continue over the dimension before them along N (to
// 128) and along K (to 128) at once.
func.func @rs_b_n_and_k(%p: vector<64xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xbf16, 3>
  // expected-error @below {{B 'memref<2x64x64xbf16, 3>' continues over the dimension before its rows either along N or along K, not both (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i, %i], %o {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
      : vector<64xbf16>, memref<2x64x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_bf16_f16_accumulators(%p: vector<32xbf16>, %o: vector<64xf16>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{accumulates 'bf16' in f32, or in f16 for f16 and 8-bit float tiles; got 'f16' (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<64xf16>
  return
}

// -----

func.func @rs_accumulators(%p: vector<32xbf16>, %o: vector<32xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{a 64x128 warpgroup tile accumulates in 'vector<64xf32>', got 'vector<32xf32>' (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<32xf32>
  return
}

// -----

func.func @rs_wait(%p: vector<32xbf16>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{expected a non-negative number of pending groups, got -1 (T-CPASYNC-7)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = -1 : i32}
      : vector<32xbf16>, memref<128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rs_a_type(%p: vector<32xf32>, %o: vector<64xf32>, %i: index) {
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  // expected-error @below {{operand #0 must be vector of 16-bit float or bfloat16 type or f8E4M3FN type or f8E5M2 type values of ranks 1, but got 'vector<32xf32>'}}
  %0 = tile.warpgroup_mma_rs %p, %b[%i, %i], %o {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
      : vector<32xf32>, memref<128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// K over two spans: the operand's column index must be 0 (the lowering
// steps K over the spans by static offsets).
func.func @wgmma_k_spans_column(%acc: vector<64xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
  // expected-error @below {{A's K of 128 continues over several swizzle spans: its column index must be 0 (T-WGMMA-3)}}
  %0 = tile.warpgroup_mma %a[%c0, %c0, %i], %b[%c0, %c0, %c0], %acc {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
      : memref<2x128x64xf16, 3>, memref<2x128x64xf16, 3>, vector<64xf32>
  return
}

// -----

func.func @wgmma_rs_k_spans_column(%p: vector<64xf16>, %acc: vector<64xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
  // expected-error @below {{B's K of 128 continues over several swizzle spans: its column index must be 0 (T-WGMMA-5)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%c0, %c0, %i], %acc {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
      : vector<64xf16>, memref<2x128x64xf16, 3>, vector<64xf32>
  return
}

// -----

// A stage of a shared ring (the dS^T tile of the attention backward): the
// tile lies in the last two dimensions, the leading ones indexed as given.
// CHECK-LABEL: func.func @wgmma_store_ring_stage
// CHECK: tile.warpgroup_mma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {shape = array<i64: 64, 64>} : vector<32xf32>, memref<2x1x128x64xbf16, 3>
func.func @wgmma_store_ring_stage(%acc: vector<32xf32>, %s: index, %row: index) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x1x128x64xbf16, 3>
  tile.warpgroup_mma_store %acc, %ring[%s, %c0, %row, %c0] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x1x128x64xbf16, 3>
  return
}

// -----

// A tile wider than the ring's 64-column spans (the fused attention
// backward's 64 keys x 128 queries of dS^T), written span by span.
// CHECK-LABEL: func.func @wgmma_store_spans
// CHECK: tile.warpgroup_mma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {shape = array<i64: 64, 128>} : vector<64xf32>, memref<2x2x128x64xbf16, 3>
func.func @wgmma_store_spans(%acc: vector<64xf32>, %s: index, %row: index) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x128x64xbf16, 3>
  tile.warpgroup_mma_store %acc, %ring[%s, %c0, %row, %c0] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<2x2x128x64xbf16, 3>
  return
}

// -----

func.func @wgmma_store_spans_from_a_column(%acc: vector<64xf32>, %s: index, %col: index) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc : memref<2x2x64x64xbf16, 3>
  // expected-error @below {{writes 128 columns in spans of 64: expected spans of a multiple of 8 columns and a multiple of 64 columns from column 0 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%s, %c0, %c0, %col] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<2x2x64x64xbf16, 3>
  return
}

// -----

func.func @wgmma_store_part_of_a_span(%acc: vector<48xf32>, %s: index) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc : memref<2x2x64x64xbf16, 3>
  // expected-error @below {{writes 96 columns in spans of 64: expected spans of a multiple of 8 columns and a multiple of 64 columns from column 0 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%s, %c0, %c0, %c0] {shape = array<i64: 64, 96>}
      : vector<48xf32>, memref<2x2x64x64xbf16, 3>
  return
}

// -----

func.func @wgmma_store_spans_of_4(%acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc : memref<2x32x64x4xbf16, 3>
  // expected-error @below {{writes 128 columns in spans of 4: expected spans of a multiple of 8 columns and a multiple of 4 columns from column 0 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%c0, %c0, %c0, %c0] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<2x32x64x4xbf16, 3>
  return
}

// -----

func.func @wgmma_store_spans_before_the_first(%acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %c-1 = arith.constant -1 : index
  %ring = tile.shared_alloc : memref<2x2x64x64xbf16, 3>
  // expected-error @below {{writes 2 spans from index -1 of a destination dimension of 2 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%c0, %c-1, %c0, %c0] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<2x2x64x64xbf16, 3>
  return
}

// -----

// At rank 3 the dimension before the rows is a ring's stage: no spans.
func.func @wgmma_store_spans_in_stages(%acc: vector<64xf32>, %s: index) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc : memref<4x64x64xbf16, 3>
  // expected-error @below {{writes 128 columns from index 0 of a destination dimension of 64 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%s, %c0, %c0] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<4x64x64xbf16, 3>
  return
}

// -----

func.func @wgmma_store_wider_than_rows(%acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %tile = tile.shared_alloc : memref<64x64xbf16, 3>
  // expected-error @below {{writes 128 columns from index 0 of a destination dimension of 64 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %tile[%c0, %c0] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<64x64xbf16, 3>
  return
}

// -----

func.func @wgmma_store_indices(%acc: vector<32xf32>, %s: index) {
  %ring = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  // expected-error @below {{stores to a rank-2 memref (or its last two dimensions) with contiguous rows, one index per dimension, got 'memref<2x128x64xbf16, 3>' (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%s, %s] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x128x64xbf16, 3>
  return
}

// -----

func.func @mma_store_rank3(%acc: vector<4x8x2x2xf32>, %c: memref<2x64x64xf16>, %i: index) {
  // expected-error @below {{stores to a rank-2 memref with contiguous rows, one index per dimension, got 'memref<2x64x64xf16>' (T-TILE-3)}}
  tile.mma_store %acc, %c[%i, %i, %i] {warps = array<i64: 2, 2>} : vector<4x8x2x2xf32>, memref<2x64x64xf16>
  return
}

// -----

func.func @wgmma_store_overruns_stage(%acc: vector<64xf32>, %s: index) {
  %c0 = arith.constant 0 : index
  %ring = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x1x64x64xbf16, 3>
  // expected-error @below {{writes 2 spans from index 0 of a destination dimension of 1 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %ring[%s, %c0, %c0, %c0] {shape = array<i64: 64, 128>}
      : vector<64xf32>, memref<2x1x64x64xbf16, 3>
  return
}

// -----

func.func @wgmma_store_overruns_rows(%acc: vector<32xf32>) {
  %c0 = arith.constant 0 : index
  %tile = tile.shared_alloc : memref<128x64xf16, 3>
  %c96 = arith.constant 96 : index
  // expected-error @below {{writes 64 rows from index 96 of a destination dimension of 128 (T-TILE-3)}}
  tile.warpgroup_mma_store %acc, %tile[%c96, %c0] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<128x64xf16, 3>
  return
}
