// B tiles of row groups (T-WGMMA-6): tile.warpgroup_mma and
// tile.warpgroup_mma_rs with `b_row_groups` over a (groups, chunks, rows,
// span) buffer, and tile.wgmma_descriptor's `row_groups`: round trip and
// the invalid forms.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A D = 128 key block as 16 groups of 8 rows, each holding both 64-column
// chunks (one TMA box of a 16-token page fills two groups): S = Q K^T
// (K-major, N = 128 over the groups, K = 128 over the chunks) and O += P V
// (MN-major, K = 128 over the groups, N = 128 over the chunks); the plain
// layout is one group of 128 rows.
// CHECK-LABEL: func.func @paged_block
// CHECK: tile.warpgroup_mma {{.*}} {b_row_groups, shape = array<i64: 64, 128, 128>, wait = 1 : i32} : memref<2x128x64xbf16, 3>, memref<2x16x2x8x64xbf16, 3>, vector<64xf32>
// CHECK: tile.warpgroup_mma_rs {{.*}} {b_row_groups, shape = array<i64: 64, 128, 128>, transpose_b, wait = 0 : i32} : vector<64xbf16>, memref<2x16x2x8x64xbf16, 3>, vector<64xf32>
// CHECK: tile.warpgroup_mma {{.*}} {b_row_groups, shape = array<i64: 64, 128, 128>, wait = 1 : i32} : memref<2x128x64xbf16, 3>, memref<2x1x2x128x64xbf16, 3>, vector<64xf32>
// CHECK: tile.wgmma_descriptor {{.*}} {mn_major, row_groups} : memref<2x16x2x8x64xbf16, 3>
func.func @paged_block(%s: index, %p: vector<64xbf16>, %acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %q = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  %k = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x16x2x8x64xbf16, 3>
  %dense = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x1x2x128x64xbf16, 3>
  %scores = tile.warpgroup_mma %q[%c0, %c0, %c0], %k[%s, %c0, %c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 128>, wait = 1 : i32, b_row_groups}
      : memref<2x128x64xbf16, 3>, memref<2x16x2x8x64xbf16, 3>, vector<64xf32>
  %o = tile.warpgroup_mma_rs %p, %k[%s, %c0, %c0, %c0, %c0], %scores
      {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b, b_row_groups}
      : vector<64xbf16>, memref<2x16x2x8x64xbf16, 3>, vector<64xf32>
  %plain = tile.warpgroup_mma %q[%c0, %c0, %c0], %dense[%s, %c0, %c0, %c0, %c0], %o
      {shape = array<i64: 64, 128, 128>, wait = 1 : i32, b_row_groups}
      : memref<2x128x64xbf16, 3>, memref<2x1x2x128x64xbf16, 3>, vector<64xf32>
  %d = tile.wgmma_descriptor %k[%s, %c0, %c0, %c0, %c0] {mn_major, row_groups} : memref<2x16x2x8x64xbf16, 3>
  return
}

// -----

func.func @rank_three(%acc: vector<64xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  // expected-error @below {{expected B of row groups as (groups, chunks, rows, span), got 'memref<2x128x64xbf16, 3>' (T-WGMMA-6)}}
  %0 = tile.warpgroup_mma %a[%c0, %c0], %b[%c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 64>, wait = 1 : i32, b_row_groups}
      : memref<128x64xbf16, 3>, memref<2x128x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @rows_not_whole_groups(%acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<16x2x12x64xbf16, 3>
  // expected-error @below {{B's row groups hold 12 rows: expected a multiple of 8 (of 16 when MN-major and more than 8) (T-WGMMA-6)}}
  %0 = tile.warpgroup_mma %a[%c0, %c0], %b[%c0, %c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 64>, wait = 1 : i32, b_row_groups}
      : memref<128x64xbf16, 3>, memref<16x2x12x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// An MN-major K step of 16 rows must lie in one group of more than 8.
func.func @mn_major_rows_of_24(%p: vector<64xbf16>, %acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<8x2x24x64xbf16, 3>
  // expected-error @below {{B's row groups hold 24 rows: expected a multiple of 8 (of 16 when MN-major and more than 8) (T-WGMMA-6)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%c0, %c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b, b_row_groups}
      : vector<64xbf16>, memref<8x2x24x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @row_index_in_a_group(%acc: vector<64xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<16x2x8x64xbf16, 3>
  // expected-error @below {{B of row groups is indexed at row 0 of a group (T-WGMMA-6)}}
  %0 = tile.warpgroup_mma %a[%c0, %c0], %b[%c0, %c0, %r, %c0], %acc
      {shape = array<i64: 64, 128, 64>, wait = 1 : i32, b_row_groups}
      : memref<128x64xbf16, 3>, memref<16x2x8x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// 8 groups of 8 rows hold N = 64, not 128.
func.func @too_few_groups(%acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<8x2x8x64xbf16, 3>
  // expected-error @below {{B 'memref<8x2x8x64xbf16, 3>' of row groups cannot hold 128x128 K-major tiles from its indexed group and chunk (T-WGMMA-3, T-WGMMA-6)}}
  %0 = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 128>, wait = 1 : i32, b_row_groups}
      : memref<2x128x64xbf16, 3>, memref<8x2x8x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// Groups of 64 rows: a K-major N of 128 would cross from one to the next,
// which no descriptor's stride spans.
func.func @n_across_large_groups(%p: vector<64xbf16>, %acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xbf16, 3>
  // expected-error @below {{B 'memref<2x2x64x64xbf16, 3>' of row groups cannot hold 128x128 K-major tiles from its indexed group and chunk (T-WGMMA-5, T-WGMMA-6)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%c0, %c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 128>, wait = 0 : i32, b_row_groups}
      : vector<64xbf16>, memref<2x2x64x64xbf16, 3>, vector<64xf32>
  return
}

// -----

func.func @descriptor_rows(%i: index) {
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x16x64xbf16, 3>
  // expected-error @below {{expected a tile of 8-row groups as (groups, chunks, 8 rows, span), got 'memref<2x2x16x64xbf16, 3>' (T-WGMMA-6)}}
  %d = tile.wgmma_descriptor %b[%i, %i, %i, %i] {row_groups} : memref<2x2x16x64xbf16, 3>
  return
}

// -----

// From group 8 of 16, N = 128 would read groups 8 .. 23.
func.func @groups_past_the_buffer(%acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<16x2x8x64xbf16, 3>
  // expected-error @below {{B 'memref<16x2x8x64xbf16, 3>' of row groups cannot hold 128x128 K-major tiles from its indexed group and chunk (T-WGMMA-3, T-WGMMA-6)}}
  %0 = tile.warpgroup_mma %a[%c0, %c0, %c0], %b[%c8, %c0, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 128>, wait = 1 : i32, b_row_groups}
      : memref<2x128x64xbf16, 3>, memref<16x2x8x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// From chunk 1 of 2, an MN-major N of 128 would read chunks 1 and 2.
func.func @chunks_past_the_buffer(%p: vector<64xbf16>, %acc: vector<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<16x2x8x64xbf16, 3>
  // expected-error @below {{B 'memref<16x2x8x64xbf16, 3>' of row groups cannot hold 128x128 (B MN-major) tiles from its indexed group and chunk (T-WGMMA-5, T-WGMMA-6)}}
  %0 = tile.warpgroup_mma_rs %p, %b[%c0, %c1, %c0, %c0], %acc
      {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b, b_row_groups}
      : vector<64xbf16>, memref<16x2x8x64xbf16, 3>, vector<64xf32>
  return
}

// -----

// 256 chunks of 1 KB: a group stride of 256 KB, past the 14-bit stride
// byte offset.
func.func @group_stride_too_large(%b: memref<1x256x8x64xbf16, 3>, %i: index) {
  // expected-error @below {{the groups' stride of 262144 bytes does not fit the descriptor's stride byte offset (a multiple of 16 below 2^18) (T-WGMMA-6)}}
  %d = tile.wgmma_descriptor %b[%i, %i, %i, %i] {row_groups} : memref<1x256x8x64xbf16, 3>
  return
}
