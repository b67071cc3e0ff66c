// The protocol checker on a ring whose copies name its stages by different
// numbers of leading indices: a 128x64 box lands in a (3, 1, 128, 64) ring
// as a 1x128x64 tile at [s] or as a 128x64 tile at [s, 0] (T-TMA-17 keeps
// some or none of the box's leading 1s), the producer alternating between
// the two. On one barrier group the copies fill the stages their common
// prefix names, (s): clean. With the [s, 0] copies completing on a second
// barrier group that the consumer never waits for, the buffer is one stage
// and the unordered read is reported.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics

!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 4 roles (1 from thread 0, 127 from thread 1, 1 from thread 128, 127 from thread 129) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @one_group(%k: !d4, %h: index, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %tid = gpu.thread_id x
    %sq = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x1x128x64xbf16, 3>
    %k_full = tile.mbarrier_alloc : !bars
    %k_empty = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %k_full[%s], %one : !bars
        tile.mbarrier_init %k_empty[%s], %one : !bars
      }
    }
    gpu.barrier
    tile.warp_specialize producer(registers = 40) {
      scf.if %first {
        %p:2 = scf.for %j = %c0 to %c6 step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %k_empty[%s], %ph : !bars
          %row = arith.muli %j, %c128 : index
          %parity = arith.remui %j, %c2 : index
          %even = arith.cmpi eq, %parity, %c0 : index
          scf.if %even {
            tile.tma_copy %k[%c0, %h, %row, %c0] to %sk[%s], %k_full[%s] : !d4, memref<3x1x128x64xbf16, 3>, !bars
          } else {
            tile.tma_copy %k[%c0, %h, %row, %c0] to %sk[%s, %c0], %k_full[%s] : !d4, memref<3x1x128x64xbf16, 3>, !bars
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
        %scores = tile.warpgroup_mma %sq[%c0, %c0], %sk[%s, %c0, %c0, %c0], %acc
            {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
            : memref<64x64xbf16, 3>, memref<3x1x128x64xbf16, 3>, vector<64xf32>
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

// -----

!d4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 128, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @two_groups(%k: !d4, %h: index, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %tid = gpu.thread_id x
    %sq = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x1x128x64xbf16, 3>
    %k_full = tile.mbarrier_alloc : !bars
    %k_empty = tile.mbarrier_alloc : !bars
    %k_other = tile.mbarrier_alloc : !bars
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      scf.for %s = %c0 to %c3 step %c1 {
        tile.mbarrier_init %k_full[%s], %one : !bars
        tile.mbarrier_init %k_empty[%s], %one : !bars
        tile.mbarrier_init %k_other[%s], %one : !bars
      }
    }
    gpu.barrier
    tile.warp_specialize producer(registers = 40) {
      scf.if %first {
        %p:2 = scf.for %j = %c0 to %c6 step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
          tile.mbarrier_wait_parity %k_empty[%s], %ph : !bars
          %row = arith.muli %j, %c128 : index
          %parity = arith.remui %j, %c2 : index
          %even = arith.cmpi eq, %parity, %c0 : index
          scf.if %even {
            tile.tma_copy %k[%c0, %h, %row, %c0] to %sk[%s], %k_full[%s] : !d4, memref<3x1x128x64xbf16, 3>, !bars
          } else {
            // expected-note @below {{the copy}}
            tile.tma_copy %k[%c0, %h, %row, %c0] to %sk[%s, %c0], %k_other[%s] : !d4, memref<3x1x128x64xbf16, 3>, !bars
            %tok = tile.mbarrier_arrive %k_full[%s] : !bars -> !tile.mbarrier_token
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
        // expected-error @below {{reads a buffer (thread 128) written by a copy that completes phase 0 of barrier 1, which this role never waited for: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
        %scores = tile.warpgroup_mma %sq[%c0, %c0], %sk[%s, %c0, %c0, %c0], %acc
            {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
            : memref<64x64xbf16, 3>, memref<3x1x128x64xbf16, 3>, vector<64xf32>
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
