// T-TMA-24: the row at which a TMA load's box lands in a taller tile keeps
// the swizzle's phase (a multiple of 8 rows of 128 bytes for b128). The op
// verifier checks constant rows; tile-check-target checks the others with
// the divisibility analysis: provable multiples pass, others are errors.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target

// Rows i * 16 (a page of 16 tokens each), i * 8 by a shift, and a loop's
// induction variable stepping by 32 are multiples of 8.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @provable(%k: !kv16, %page: index, %h: index, %s: index, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    %r16 = arith.muli %i, %c16 : index
    tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r16], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    %r8 = arith.shli %i, %c3 : index
    tile.tma_load %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r8], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    scf.for %r = %c0 to %c128 step %c32 {
      tile.tma_copy %k[%page, %h, %r, %c0] to %sk[%s, %c0, %r], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    }
    gpu.return
  }
}

// -----

// A kernel argument may be any row.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @argument_row(%k: !kv16, %page: index, %h: index, %s: index, %r: index) kernel {
    %c0 = arith.constant 0 : index
    %full = tile.mbarrier_alloc : !bars
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
    // expected-error @below {{'tile.tma_copy' op the box's 16 rows land at a row of the 128-row tile that is not provably a multiple of 8 (1024-byte swizzle repeat of 128-byte rows) (T-TMA-24)}}
    tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r], %full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
    gpu.return
  }
}

// -----

// i * 4 is a multiple of 4 only: half the repeat.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
gpu.module @k {
  gpu.func @half_repeat(%k: !kv16, %page: index, %h: index, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %full = tile.mbarrier_alloc : !bars
    %block = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x64xbf16, 3>
    %r = arith.muli %i, %c4 : index
    // expected-error @below {{'tile.tma_load' op the box's 16 rows land at a row of the 128-row tile that is not provably a multiple of 8 (1024-byte swizzle repeat of 128-byte rows) (T-TMA-24)}}
    tile.tma_load %k[%page, %h, %c0, %c0] to %block[%r], %full[%c0] : !kv16, memref<128x64xbf16, 3>, !bars
    gpu.return
  }
}
