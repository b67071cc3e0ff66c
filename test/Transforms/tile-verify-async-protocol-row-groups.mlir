// The protocol checker on a ring of row groups (T-WGMMA-6): a (3, 16, 1, 8,
// 64) ring whose stage (s, g) is one 8-row group, filled by sixteen TMA
// copies (a box of 8 rows each, T-TMA-17 keeping a unit dimension) on one
// full barrier; the consumer's tile.warpgroup_mma with b_row_groups reads
// N = 128 rows over all sixteen groups of its stage, each group a read of
// its own stage: clean as written. A producer that refills group 5 of a
// stage before the consumer released it is reported at stage (0, 5) (a
// read of group 0 alone would not see it).
// RUN: tile-opt %s -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null
// RUN: sed -e 's/^          tile.mbarrier_wait_parity %%k_empty\[%%s\], %%ph : !bars/          tile.tma_copy %%k[%%slot, %%c5, %%c0, %%c0, %%c0] to %%sk[%%s, %%c5], %%k_full[%%s] : !d5, memref<3x16x1x8x64xbf16, 3>, !bars\n&/' -e 's/%%copies = arith.constant 16 : i32/%%copies = arith.constant 17 : i32/' -e '/expected-remark/d' %s \
// RUN:   | not tile-opt -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=EARLY-GROUP
// EARLY-GROUP: error: reads stage (0, 5) (thread 128) written by a copy that completes phase 1 of barrier 0, which has not completed{{.*}}(T-PROTO-12)

!d5 = !tile.tma_desc<memref<?x?x?x?x?xbf16>, box = [1, 1, 1, 8, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 4 roles (1 from thread 0, 127 from thread 1, 1 from thread 128, 127 from thread 129) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @row_groups(%k: !d5, %slot: index, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %copies = arith.constant 16 : i32
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %tid = gpu.thread_id x
    %sq = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x16x1x8x64xbf16, 3>
    %k_full = tile.mbarrier_alloc : !bars
    %k_empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %k_full[%s], %copies : !bars
        tile.mbarrier_init %k_empty[%s], %one : !bars
      }
    }
    gpu.barrier
    tile.warp_specialize producer(registers = 40) {
      scf.if %first {
        %p:2 = scf.for %j = %c0 to %c6 step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %k_empty[%s], %ph : !bars
          scf.for %g = %c0 to %c16 step %c1 {
            tile.tma_copy %k[%slot, %g, %c0, %c0, %c0] to %sk[%s, %g], %k_full[%s] : !d5, memref<3x16x1x8x64xbf16, 3>, !bars
          }
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %c3 : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %ns, %nph : index, i1
        }
      }
    } consumers(1, registers = 232) {
    ^bb0(%wg: index):
      %lane = arith.remui %tid, %c128 : index
      %signals = arith.cmpi eq, %lane, %c0 : index
      %c:3 = scf.for %j = %c0 to %c6 step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (vector<64xf32>, index, i1) {
        tile.mbarrier_wait_parity %k_full[%s], %ph : !bars
        %scores = tile.warpgroup_mma %sq[%c0, %c0], %sk[%s, %c0, %c0, %c0, %c0], %acc
            {shape = array<i64: 64, 128, 64>, wait = 0 : i32, b_row_groups}
            : memref<64x64xbf16, 3>, memref<3x16x1x8x64xbf16, 3>, vector<64xf32>
        scf.if %signals {
          %tok = tile.mbarrier_arrive %k_empty[%s] : !bars -> !tile.mbarrier_token
        }
        %next = arith.addi %s, %c1 : index
        %wrap = arith.cmpi eq, %next, %c3 : index
        %ns = arith.select %wrap, %c0, %next : index
        %nph = arith.xori %ph, %wrap : i1
        scf.yield %scores, %ns, %nph : vector<64xf32>, index, i1
      }
      %v = vector.extract %c#0[0] : f32 from vector<64xf32>
      memref.store %v, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}
