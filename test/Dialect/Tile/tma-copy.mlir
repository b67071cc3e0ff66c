// tile.tma_copy: round trip and the TMA tile rules it shares with
// tile.tma_load and tile.tma_store (T-TMA-16, T-TMA-17, T-TMA-18,
// T-MBAR-4), including T-TMA-17's leading unit box extents, which a shared
// tile may leave out (and no other extent).
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
// CHECK-LABEL: gpu.func @copy
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>, memref<64x64xf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>, memref<3x64x64xf16, 3>, !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @copy(%d: !desc, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %ring = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<3x64x64xf16, 3>
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c0] : !desc, memref<64x64xf16, 3>, !bars
    tile.tma_copy %d[%i, %c0] to %ring[%i], %bars[%c0] : !desc, memref<3x64x64xf16, 3>, !bars
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @coordinates(%d: !desc, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    // expected-error @below {{expected 2 coordinates (one per tensor dimension), got 1 (T-TMA-16)}}
    tile.tma_copy %d[%i] to %s, %bars[%c0] : !desc, memref<64x64xf16, 3>, !bars
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @box(%d: !desc, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x64xf16, 3>
    // expected-error @below {{destination 'memref<32x64xf16, 3>' does not end with the box shape [64, 64] (T-TMA-17)}}
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c0] : !desc, memref<32x64xf16, 3>, !bars
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @alignment(%d: !desc, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc : memref<64x64xf16, 3>
    // expected-error @below {{swizzle b128 needs the destination 1024-byte aligned, got 128}}
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c0] : !desc, memref<64x64xf16, 3>, !bars
    gpu.return
  }
}

// -----

!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @barrier(%d: !desc, %i: index) kernel {
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    // expected-error @below {{T-MBAR-4}}
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c2] : !desc, memref<64x64xf16, 3>, !bars
    gpu.return
  }
}

// -----

// A [1, 1, 128, 64] box of a (batch, heads, rows, columns) tensor fills a
// 128x64 tile: the box's leading extents of 1 may be left out of the tile
// (then its dimensions before the box are all indexed), or kept, all of
// them or some (a ring of (stages, 1, 128, 64) indexed by its stage).
!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
// CHECK-LABEL: gpu.func @leading_unit_box_dims
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>, memref<128x64xbf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>, memref<2x128x64xbf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>, memref<2x2x128x64xbf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>, memref<1x1x128x64xbf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>, memref<2x128x64xbf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>, memref<2x1x128x64xbf16, 3>, !tile.mbarrier<count = 2>
// CHECK: tile.tma_store %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x128x64xbf16, 3>, !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
gpu.module @k {
  gpu.func @leading_unit_box_dims(%d: !d4, %b: index, %h: index, %m: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %bars = tile.mbarrier_alloc : !bars
    %tile = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
    %chunks = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    %ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x128x64xbf16, 3>
    %full = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x1x128x64xbf16, 3>
    tile.tma_copy %d[%b, %h, %m, %c0] to %tile, %bars[%c0] : !d4, memref<128x64xbf16, 3>, !bars
    tile.tma_copy %d[%b, %h, %m, %c0] to %chunks[%c1], %bars[%c0] : !d4, memref<2x128x64xbf16, 3>, !bars
    tile.tma_copy %d[%b, %h, %m, %c0] to %ring[%c1, %c0], %bars[%c1] : !d4, memref<2x2x128x64xbf16, 3>, !bars
    tile.tma_copy %d[%b, %h, %m, %c0] to %full, %bars[%c0] : !d4, memref<1x1x128x64xbf16, 3>, !bars
    tile.tma_load %d[%b, %h, %m, %c0] to %chunks[%c0], %bars[%c0] : !d4, memref<2x128x64xbf16, 3>, !bars
    %unit_ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x1x128x64xbf16, 3>
    tile.tma_copy %d[%b, %h, %m, %c0] to %unit_ring[%c1], %bars[%c0] : !d4, memref<2x1x128x64xbf16, 3>, !bars
    tile.tma_store %chunks[%c0] to %d[%b, %h, %m, %c0] : memref<2x128x64xbf16, 3>, !d4
    gpu.return
  }
}

// -----

// Only leading extents of 1 may be left out: the 2 of a [1, 2, 128, 64]
// box may not.
!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 2, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @omitted_non_unit_box_dim(%d: !d4, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
    // expected-error @below {{destination 'memref<128x64xbf16, 3>' does not end with the box shape [1, 2, 128, 64] (T-TMA-17)}}
    tile.tma_copy %d[%i, %i, %i, %c0] to %s, %bars[%c0] : !d4, memref<128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// A [1, 2, 128, 64] box fills a 2x128x64 tile (its leading 1 left out).
!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 2, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
// CHECK-LABEL: gpu.func @kept_non_unit_box_dim
// CHECK: tile.tma_copy {{.*}} memref<2x128x64xbf16, 3>
gpu.module @k {
  gpu.func @kept_non_unit_box_dim(%d: !d4, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    tile.tma_copy %d[%i, %i, %i, %c0] to %s, %bars[%c0] : !d4, memref<2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// A unit extent after a non-unit one is not leading: [2, 1, 128, 64] needs
// the whole box.
!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [2, 1, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @inner_unit_box_dim(%d: !d4, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    // expected-error @below {{destination 'memref<2x128x64xbf16, 3>' does not end with the box shape [2, 1, 128, 64] (T-TMA-17)}}
    tile.tma_copy %d[%i, %i, %i, %c0] to %s, %bars[%c0] : !d4, memref<2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// With the unit extents left out, the tile's dimensions before the 128x64
// box are indexed.
!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
gpu.module @k {
  gpu.func @trimmed_box_indices(%d: !d4, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    // expected-error @below {{expected 1 destination indices (one per dimension before the box), got 0 (T-TMA-17)}}
    tile.tma_copy %d[%i, %i, %i, %c0] to %s, %bars[%c0] : !d4, memref<2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// The source of a TMA store follows the same rule.
!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
gpu.module @k {
  gpu.func @store_trimmed_rows(%d: !d4, %i: index) kernel {
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xbf16, 3>
    // expected-error @below {{source 'memref<2x64x64xbf16, 3>' does not end with the box shape [1, 1, 128, 64] (T-TMA-17)}}
    tile.tma_store %s[%i] to %d[%i, %i, %i, %i] : memref<2x64x64xbf16, 3>, !d4
    gpu.return
  }
}
