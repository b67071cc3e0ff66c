// T-TMA-25: a box of more than two dimensions (after its leading 1s) fills
// the rows of a two-dimensional tile in its order, its outer extents'
// product the rows: the gate and the up rows of a weight whose 8-row blocks
// alternate ((N/16) x 2 x 8 x K), [8, 1, 8, 64] boxes, as the two 64-row
// halves of a 128x64 stage (loads: a row range, T-TMA-24) or as a whole
// 64x64 tile (stores too); the forms T-TMA-17 and T-TMA-24 name come first.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

!w = !tile.tma_desc<memref<?x2x8x?xbf16>, box = [8, 1, 8, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
// CHECK-LABEL: gpu.func @gate_up
// CHECK: tile.tma_copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to %[[RB:.*]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x2x8x?xbf16>, box = [8, 1, 8, 64], swizzle = b128>, memref<4x128x64xbf16, 3>
// CHECK: tile.tma_copy %{{.*}} to %[[RB]][%{{.*}}, %{{.*}}], {{.*}} memref<4x128x64xbf16, 3>
// CHECK: tile.tma_copy %{{.*}} to %{{.*}}[%{{.*}}], {{.*}} memref<2x64x64xbf16, 3>
// CHECK: tile.tma_store %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x64x64xbf16, 3>
gpu.module @k {
  gpu.func @gate_up(%w: !w, %j: index, %k: index, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %full = tile.mbarrier_alloc : !bars
    %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xbf16, 3>
    %half = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xbf16, 3>
    // Gate rows at row 0 of stage s, up rows at row 64.
    tile.tma_copy %w[%j, %c0, %c0, %k] to %rb[%s, %c0], %full[%s] : !w, memref<4x128x64xbf16, 3>, !bars
    tile.tma_copy %w[%j, %c1, %c0, %k] to %rb[%s, %c64], %full[%s] : !w, memref<4x128x64xbf16, 3>, !bars
    // A whole 64x64 tile, loaded and stored.
    tile.tma_copy %w[%j, %c1, %c0, %k] to %half[%c1], %full[%c0] : !w, memref<2x64x64xbf16, 3>, !bars
    tile.tma_store %half[%c0] to %w[%j, %c0, %c0, %k] : memref<2x64x64xbf16, 3>, !w
    gpu.return
  }
}

// -----

// The flattened rows still keep T-TMA-24's rules: 64 rows at row 32 leave
// the 1024-byte phase intact but not the 128-row tile.
!w = !tile.tma_desc<memref<?x2x8x?xbf16>, box = [8, 1, 8, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
gpu.module @k {
  gpu.func @past_the_tile(%w: !w, %j: index) kernel {
    %c0 = arith.constant 0 : index
    %c96 = arith.constant 96 : index
    %full = tile.mbarrier_alloc : !bars
    %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xbf16, 3>
    // expected-error @below {{the box's 64 rows at row 96 of the 128-row tile: the row must be in [0, 64] (T-TMA-24)}}
    tile.tma_copy %w[%j, %c0, %c0, %c0] to %rb[%c0, %c96], %full[%c0] : !w, memref<4x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// A tile whose rows are not the box's flattened rows.
!w = !tile.tma_desc<memref<?x2x8x?xbf16>, box = [8, 1, 8, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
gpu.module @k {
  gpu.func @other_rows(%w: !w, %j: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %rb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x48x64xbf16, 3>
    // expected-error @below {{destination 'memref<4x48x64xbf16, 3>' does not end with the box shape [8, 1, 8, 64] (T-TMA-17)}}
    tile.tma_copy %w[%j, %c0, %c0, %c0] to %rb[%c0], %full[%c0] : !w, memref<4x48x64xbf16, 3>, !bars
    gpu.return
  }
}
