// The protocol checker on a paged-KV ring (T-TMA-24): the producer fills
// each 128-row key block of a 3-stage ring with 8 TMA copies of one 16-token
// page each (rows 0, 16, ..., 112), on a full barrier that expects 8
// arrivals; the consumer warpgroup waits on it and reads the stage with
// tile.warpgroup_mma, then releases it. The row-range copies write the stage
// their leading indices name, (s, 0), which the consumer's tile
// [s, 0, 0, 0] is in: clean at the tile level and lowered; a full barrier
// that completes after 7 of the 8 copies, and a consumer that reads without
// waiting, are reported.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics
// RUN: tile-opt %s -split-input-file -tile-check-target -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -verify-diagnostics

// Clean.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  // expected-remark @below {{role protocol: 4 roles (1 from thread 0, 127 from thread 1, 1 from thread 128, 127 from thread 129) simulated with sample values 1, 200, 520: nothing to report}}
  gpu.func @paged_ring(%k: !kv16, %pages: memref<?xindex>, %h: index, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %copies = arith.constant 8 : i32
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %tid = gpu.thread_id x
    // Q, which no copy fills here (not a ring).
    %sq = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
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
          %block = arith.muli %j, %c8 : index
          // Page i of key block j (16 tokens) lands at row 16 i: one
          // arrival and 2048 bytes on the stage's full barrier each.
          scf.for %i = %c0 to %c8 step %c1 {
            %slot = arith.addi %block, %i : index
            %page = memref.load %pages[%slot] : memref<?xindex>
            %r = arith.muli %i, %c16 : index
            tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r], %k_full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
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
            : memref<64x64xbf16, 3>, memref<3x2x128x64xbf16, 3>, vector<64xf32>
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

// The full barriers complete after 7 arrivals: the 8th copy of a stage
// counts towards the next phase, which the consumer's read has not seen.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @count_7(%k: !kv16, %pages: memref<?xindex>, %h: index, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %copies = arith.constant 7 : i32
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %tid = gpu.thread_id x
    %sq = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
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
          %block = arith.muli %j, %c8 : index
          scf.for %i = %c0 to %c8 step %c1 {
            %slot = arith.addi %block, %i : index
            %page = memref.load %pages[%slot] : memref<?xindex>
            %r = arith.muli %i, %c16 : index
            // expected-note @below {{the copy}}
            tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r], %k_full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
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
        // expected-error @below {{reads stage (0, 0) (thread 128) written by a copy that completes phase 1 of barrier 0, which has not completed: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
        %scores = tile.warpgroup_mma %sq[%c0, %c0], %sk[%s, %c0, %c0, %c0], %acc
            {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
            : memref<64x64xbf16, 3>, memref<3x2x128x64xbf16, 3>, vector<64xf32>
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

// The consumer reads the stage without waiting on its full barrier.
!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 3>
gpu.module @kernels {
  gpu.func @read_without_wait(%k: !kv16, %pages: memref<?xindex>, %h: index, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %copies = arith.constant 8 : i32
    %one = arith.constant 1 : i32
    %false = arith.constant false
    %true = arith.constant true
    %zero = arith.constant dense<0.0> : vector<64xf32>
    %tid = gpu.thread_id x
    %sq = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
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
          %block = arith.muli %j, %c8 : index
          scf.for %i = %c0 to %c8 step %c1 {
            %slot = arith.addi %block, %i : index
            %page = memref.load %pages[%slot] : memref<?xindex>
            %r = arith.muli %i, %c16 : index
            // expected-note @below {{the copy}}
            tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%s, %c0, %r], %k_full[%s] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
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
        // expected-error @below {{reads stage (0, 0) (thread 128) written by a copy that completes phase 0 of barrier 0, which this role never waited for: the stage is read before its data arrived or after it was refilled (T-PROTO-12)}}
        %scores = tile.warpgroup_mma %sq[%c0, %c0], %sk[%s, %c0, %c0, %c0], %acc
            {shape = array<i64: 64, 128, 64>, wait = 0 : i32}
            : memref<64x64xbf16, 3>, memref<3x2x128x64xbf16, 3>, vector<64xf32>
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
