// T-TMA-24: a TMA load's box may fill a row range of a taller shared tile
// (several 16-token pages of a paged KV cache into one 128-row key block),
// after one index per leading dimension and one more, the row at which the
// box lands. Round trip of tile.tma_copy and tile.tma_load in that form
// (next to the full and trimmed forms, which the index count tells apart),
// and the rule's errors: the row keeps the swizzle's phase (a multiple of 8
// 128-byte rows for b128) and the tile; the box's rows divide the tile's
// and are a multiple of that atom; stores and reductions take no row range.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!kv128 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
// CHECK-LABEL: gpu.func @row_range
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %[[SK:.*]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>, memref<3x2x128x64xbf16, 3>, !tile.mbarrier<count = 8>
// CHECK: tile.tma_copy %{{.*}} to %[[SK]][%{{.*}}, %{{.*}}, %{{.*}}], {{.*}} memref<3x2x128x64xbf16, 3>
// CHECK: tile.tma_copy %{{.*}} to %{{.*}}[%{{.*}}], {{.*}} memref<128x64xbf16, 3>
// CHECK: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %[[SK]][%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>, memref<3x2x128x64xbf16, 3>, !tile.mbarrier<count = 8>
// CHECK: tile.tma_copy %{{.*}} to %[[SK]][%{{.*}}, %{{.*}}], {{.*}} !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
gpu.module @k {
  gpu.func @row_range(%k: !kv16, %kb: !kv128, %page: index, %h: index, %s: index, %r: index) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c112 = arith.constant 112 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    %block = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
    // The last 16 rows; rows 8..23 (8 rows keep the 1024-byte phase); a
    // row known only at run time (tile-check-target checks it).
    tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %c112], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %c8], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    tile.tma_copy %k[%page, %h, %c0, %c0] to %block[%r], %full[%c0] : !kv16, memref<128x64xbf16, 3>, !bars
    tile.tma_load %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    // The whole block, as before.
    tile.tma_copy %kb[%page, %h, %c0, %c0] to %sk[%s, %c0], %full[%s] : !kv128, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// Without swizzle TMA needs 128 bytes: rows of 64 bytes land at even rows.
!d = !tile.tma_desc<memref<?x32xf16>, box = [2, 32]>
!bars = !tile.mbarrier<count = 4>
// CHECK-LABEL: gpu.func @unswizzled
// CHECK: tile.tma_load {{.*}} memref<8x32xf16, 3>
gpu.module @k {
  gpu.func @unswizzled(%d: !d, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c6 = arith.constant 6 : index
    %full = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc : memref<8x32xf16, 3>
    tile.tma_load %d[%i, %c0] to %s[%c6], %full[%c0] : !d, memref<8x32xf16, 3>, !bars
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<?x32xf16>, box = [2, 32]>
!bars = !tile.mbarrier<count = 4>
gpu.module @k {
  gpu.func @unswizzled_odd_row(%d: !d, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %full = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc : memref<8x32xf16, 3>
    // expected-error @below {{the box's 2 rows at row 3 of the 8-row tile: the row must be a multiple of 2 (128-byte TMA alignment of 64-byte rows) (T-TMA-24)}}
    tile.tma_load %d[%i, %c0] to %s[%c3], %full[%c0] : !d, memref<8x32xf16, 3>, !bars
    gpu.return
  }
}

// -----

!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @row_off_phase(%k: !kv16, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{'tile.tma_copy' op the box's 16 rows at row 4 of the 128-row tile: the row must be a multiple of 8 (1024-byte swizzle repeat of 128-byte rows) (T-TMA-24)}}
    tile.tma_copy %k[%i, %i, %i, %c0] to %sk[%s, %c0, %c4], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @row_past_tile(%k: !kv16, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c120 = arith.constant 120 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{the box's 16 rows at row 120 of the 128-row tile: the row must be in [0, 112] (T-TMA-24)}}
    tile.tma_load %k[%i, %i, %i, %c0] to %sk[%s, %c0, %c120], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @negative_row(%k: !kv16, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %cm8 = arith.constant -8 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{the box's 16 rows at row -8 of the 128-row tile: the row must be in [0, 112] (T-TMA-24)}}
    tile.tma_copy %k[%i, %i, %i, %c0] to %sk[%s, %c0, %cm8], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// 48-row boxes do not tile a 128-row block.
!kv48 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 48, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @rows_not_dividing(%k: !kv48, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{the box's 48 rows do not divide the destination's 128-row tile (T-TMA-24)}}
    tile.tma_copy %k[%i, %i, %i, %c0] to %sk[%s, %c0, %c0], %full[%s] : !kv48, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// 4 rows of 128 bytes are half a 1024-byte swizzle repeat: the next box
// could not start in phase.
!kv4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 4, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @rows_below_atom(%k: !kv4, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{the box's 4 rows are not a multiple of 8 (1024-byte swizzle repeat of 128-byte rows), so they cannot fill a row range of the 128-row tile (T-TMA-24)}}
    tile.tma_copy %k[%i, %i, %i, %c0] to %sk[%s, %c0, %c0], %full[%s] : !kv4, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// A row-range tile takes its row: one index per leading dimension, then it.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @missing_row(%k: !kv16, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{expected 3 destination indices (one per dimension before the 128-row tile, then the row where the box's 16 rows land), got 2 (T-TMA-24)}}
    tile.tma_copy %k[%i, %i, %i, %c0] to %sk[%s, %c0], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// A tile whose rows equal the box's takes no row index.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @row_of_exact_tile(%k: !kv16, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x16x64xbf16, 3>
    // expected-error @below {{expected 1 destination indices (one per dimension before the box), got 2 (T-TMA-17)}}
    tile.tma_copy %k[%i, %i, %i, %c0] to %sk[%s, %c0], %full[%s] : !kv16, memref<3x16x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// Stores (and reductions) read whole tiles: no row range.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
gpu.module @k {
  gpu.func @store_row_range(%k: !kv16, %i: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{source 'memref<3x2x128x64xbf16, 3>' does not end with the box shape [1, 1, 16, 64] (T-TMA-17); only loads may fill a row range of a taller tile (T-TMA-24)}}
    tile.tma_store %sk[%s, %c0, %c16] to %k[%i, %i, %i, %c0] : memref<3x2x128x64xbf16, 3>, !kv16
    gpu.return
  }
}

// -----

// A row range of groups: a 16-token page of a D = 128 cache as a 5-D box
// (page x H_b + head, 8-row group, chunk, row, 64) of [1, 2, 2, 8, 64]
// fills two 8-row groups, each with both chunks, of a (2, 16, 2, 8, 64)
// ring: one index for the stage, then the group where the box lands (a
// group of 2 KB keeps the swizzle's phase whatever it is).
!page = !tile.tma_desc<memref<?x?x?x?x?xbf16>, box = [1, 2, 2, 8, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
// CHECK-LABEL: gpu.func @group_range
// CHECK: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?x?xbf16>, box = [1, 2, 2, 8, 64], swizzle = b128>, memref<2x16x2x8x64xbf16, 3>, !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @group_range(%k: !page, %slot: index, %s: index, %g: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x16x2x8x64xbf16, 3>
    tile.tma_load %k[%slot, %c0, %c0, %c0, %c0] to %ring[%s, %g], %full[%s] : !page, memref<2x16x2x8x64xbf16, 3>, !bars
    gpu.return
  }
}
