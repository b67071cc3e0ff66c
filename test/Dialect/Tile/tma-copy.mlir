// tile.tma_copy: round trip and the TMA tile rules it shares with
// tile.tma_load (T-TMA-16, T-TMA-17, T-TMA-18, T-MBAR-4).
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
