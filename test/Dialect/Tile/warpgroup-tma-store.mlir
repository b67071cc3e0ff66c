// tile.warpgroup_tma_store: round trip and T-TILE-4, with rank-2
// descriptors and with rank-4 ones whose box is [1, 1, 64, W] (a (batch,
// heads, rows, columns) output: the tile's rows and columns are the last
// two coordinates).
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

// An 8-bit C: 64-column chunks of 64-byte rows.
!dc8 = !tile.tma_desc<memref<?x?xf8E5M2>, box = [64, 64], swizzle = b64>

// CHECK-LABEL: func.func @fp8_epilogue
// CHECK: tile.warpgroup_tma_store {{.*}} : vector<128xf32>, memref<2x2x64x64xf8E5M2, 3>, !tile.tma_desc<memref<?x?xf8E5M2>, box = [64, 64], swizzle = b64>
func.func @fp8_epilogue(%acc: vector<128xf32>, %c: !dc8, %wg: index, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<2x2x64x64xf8E5M2, 3>
  tile.warpgroup_tma_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x2x64x64xf8E5M2, 3>, !dc8
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xi8>, box = [64, 64], swizzle = b64>
func.func @integer_result(%acc: vector<128xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<2x64x64xi8, 3>
  // expected-error @below {{stores 64-row chunks through shared memory: expected a descriptor of 32-, 16- or 8-bit floats with box [64, W] (after leading 1s), W a multiple of 16 dividing N = 256, got '!tile.tma_desc<memref<?x?xi8>, box = [64, 64], swizzle = b64>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x64x64xi8, 3>, !dc
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
  // expected-error @below {{stores 64-row chunks through shared memory: expected a descriptor of 32-, 16- or 8-bit floats with box [64, W] (after leading 1s), W a multiple of 16 dividing N = 256, got '!tile.tma_desc<memref<?x?xf16>, box = [32, 64], swizzle = b128>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] {shape = array<i64: 64, 256>}
      : vector<128xf32>, memref<2x32x64xf16, 3>, !dc
  return
}

// -----

// An f32 tile added into a tensor (partial sums from several CTAs): 64 x 32
// chunks of 128-byte rows, reduced by TMA.
!dc = !tile.tma_desc<memref<?x?x?x?xf32>, box = [1, 1, 64, 32], swizzle = b128>

// CHECK-LABEL: func.func @f32_reduction
// CHECK: tile.warpgroup_tma_store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] reduce add {shape = array<i64: 64, 64>} : vector<32xf32>, memref<2x2x64x32xf32, 3>
func.func @f32_reduction(%acc: vector<32xf32>, %c: !dc, %wg: index, %b: index, %h: index, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x32xf32, 3>
  tile.warpgroup_tma_store %acc, %staging[%wg] to %c[%b, %h, %m, %n] reduce add {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x2x64x32xf32, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf32>, box = [64, 32], swizzle = b128>
func.func @f32_min(%acc: vector<32xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x32xf32, 3>
  // expected-error @below {{reduction min does not exist for 'f32' (T-TMA-20)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] reduce min {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x64x32xf32, 3>, !dc
  return
}

// -----

!dc = !tile.tma_desc<memref<?x?xf8E4M3FN>, box = [64, 64], swizzle = b64>
func.func @fp8_add(%acc: vector<32xf32>, %c: !dc, %m: index, %n: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<1x64x64xf8E4M3FN, 3>
  // expected-error @below {{reduction add does not exist for 'f8E4M3FN' (T-TMA-20)}}
  tile.warpgroup_tma_store %acc, %staging to %c[%m, %n] reduce add {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<1x64x64xf8E4M3FN, 3>, !dc
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

// -----

// A rank-4 descriptor with box [1, 1, 64, 64]: the staging ring leaves out
// the box's leading unit extents (T-TMA-17), its buffers are indexed as
// with a rank-2 descriptor.
!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
// CHECK-LABEL: func.func @epilogue_rank4
// CHECK: tile.warpgroup_tma_store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {shape = array<i64: 64, 64>} : vector<32xf32>, memref<2x1x64x64xbf16, 3>, !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
// CHECK: tile.warpgroup_tma_store %{{.*}}, %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {shape = array<i64: 128, 128>} : vector<128xf32>, memref<2x2x64x64xbf16, 3>, !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
// CHECK: tile.warpgroup_tma_store %{{.*}}, %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {shape = array<i64: 64, 64>} : vector<32xf32>, memref<1x64x64xbf16, 3>, !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
func.func @epilogue_rank4(%acc: vector<32xf32>, %big: vector<128xf32>, %o: !o4, %wg: index, %b: index,
                          %h: index, %m: index) {
  %c0 = arith.constant 0 : index
  %one = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x1x64x64xbf16, 3>
  tile.warpgroup_tma_store %acc, %one[%wg] to %o[%b, %h, %m, %c0] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x1x64x64xbf16, 3>, !o4
  %two = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xbf16, 3>
  tile.warpgroup_tma_store %big, %two[%wg] to %o[%b, %h, %m, %c0] {shape = array<i64: 128, 128>}
      : vector<128xf32>, memref<2x2x64x64xbf16, 3>, !o4
  %single = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xbf16, 3>
  tile.warpgroup_tma_store %acc, %single to %o[%b, %h, %m, %c0] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<1x64x64xbf16, 3>, !o4
  return
}

// -----

// Only the extents before [64, W] may be (and must be) 1.
!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [2, 1, 64, 64], swizzle = b128>
func.func @rank4_leading_not_one(%acc: vector<32xf32>, %o: !o4, %i: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xbf16, 3>
  // expected-error @below {{stores 64-row chunks through shared memory: expected a descriptor of 32-, 16- or 8-bit floats with box [64, W] (after leading 1s), W a multiple of 16 dividing N = 64, got '!tile.tma_desc<memref<?x?x?x?xbf16>, box = [2, 1, 64, 64], swizzle = b128>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %o[%i, %i, %i, %i] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x64x64xbf16, 3>, !o4
  return
}

// -----

!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
func.func @rank4_box_rows(%acc: vector<32xf32>, %o: !o4, %i: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
  // expected-error @below {{expected a descriptor of 32-, 16- or 8-bit floats with box [64, W] (after leading 1s), W a multiple of 16 dividing N = 64, got '!tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %o[%i, %i, %i, %i] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x128x64xbf16, 3>, !o4
  return
}

// -----

!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
func.func @rank4_coordinates(%acc: vector<32xf32>, %o: !o4, %i: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xbf16, 3>
  // expected-error @below {{expected 4 coordinates (one per tensor dimension), got 2 (T-TMA-16)}}
  tile.warpgroup_tma_store %acc, %staging to %o[%i, %i] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x64x64xbf16, 3>, !o4
  return
}

// -----

// The staging ring of a rank-4 descriptor still needs its buffer dimension
// before the 64 x W box.
!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
func.func @rank4_staging_rank(%acc: vector<32xf32>, %o: !o4, %i: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
  // expected-error @below {{expected a staging ring whose last dimensions are (buffers, 64, W), got 'memref<64x64xbf16, 3>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %o[%i, %i, %i, %i] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<64x64xbf16, 3>, !o4
  return
}

// -----

// A staging buffer that keeps the box's leading 1s is a valid TMA tile
// (T-TMA-17) but not a ring of (buffers, 64, W) chunks.
!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
func.func @rank4_staging_whole_box(%acc: vector<32xf32>, %o: !o4, %i: index) {
  %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x1x1x64x64xbf16, 3>
  // expected-error @below {{expected a staging ring whose last dimensions are (buffers, 64, W), got 'memref<2x1x1x64x64xbf16, 3>' (T-TILE-4)}}
  tile.warpgroup_tma_store %acc, %staging to %o[%i, %i, %i, %i] {shape = array<i64: 64, 64>}
      : vector<32xf32>, memref<2x1x1x64x64xbf16, 3>, !o4
  return
}
