// RUN: tile-opt %s -tile-lower-tile-ops | FileCheck %s --implicit-check-not=tile.tma_copy --implicit-check-not="tile.mma %"

// tile-lower-tile-ops expands every tile-level op it reaches in a walk, not
// only those a rewrite driver would keep: ops in unreachable blocks, and a
// tile.mma whose result is unused (it only reads memory, so it is trivially
// dead to a driver that erases dead ops).
!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>
// CHECK-LABEL: gpu.func @unreachable
//       CHECK:   tile.tma_load
//       CHECK:   gpu.return
//       CHECK: ^bb1:
//       CHECK:   tile.tma_load
//       CHECK:   gpu.return
//       CHECK: ^bb2:
//       CHECK:   tile.tma_load
//       CHECK:   cf.br ^bb1
gpu.module @walk {
  gpu.func @unreachable(%d: !desc, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !bars
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c0] : !desc, memref<64x64xf16, 3>, !bars
    gpu.return
  ^bb1:
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c0] : !desc, memref<64x64xf16, 3>, !bars
    gpu.return
  ^bb2:
    tile.tma_copy %d[%i, %c0] to %s, %bars[%c0] : !desc, memref<64x64xf16, 3>, !bars
    cf.br ^bb1
  }

// CHECK-LABEL: gpu.func @unused_mma
//       CHECK:   tile.ldmatrix
//       CHECK:   tile.mma_sync
  gpu.func @unused_mma(%sa: memref<64x32xf16, 3>, %sb: memref<64x32xf16, 3>,
                       %acc: vector<2x4x2x2xf32>) kernel {
    %0 = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>}
        : memref<64x32xf16, 3>, memref<64x32xf16, 3>, vector<2x4x2x2xf32>
    gpu.return
  }
}
