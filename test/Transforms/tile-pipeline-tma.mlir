// tile-pipeline-async-copies, TMA form (CUTLASS's PipelineTmaAsync): a loop
// of two tile.tma_copy ops on one barrier, a wait and a consumer becomes an
// N-stage ring with full barriers (2 arrivals: one per copy) and empty
// barriers (128 arrivals: one per thread), a prologue of N - 1 stages, and
// the (stage, phase) state carried by the loop: the refill of the tile
// N - 1 ahead goes to stage - 1 (N - 1 on wrapping, with the other phase
// for its empty barrier), the consumer waits on full[stage] with the phase,
// releases empty[stage], and the state advances with a phase flip at N.
// Checked for N = 2, 3, 4, 7; the results pass the protocol checker.
// RUN: tile-opt %s -split-input-file -tile-pipeline-async-copies | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol -verify-diagnostics

// CHECK-LABEL: gpu.func @k2
//       CHECK:   %[[A:.*]] = tile.shared_alloc : memref<2x32x64xf32, 3>
//       CHECK:   %[[B:.*]] = tile.shared_alloc : memref<2x32x64xf32, 3>
//       CHECK:   %[[FULL:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
//       CHECK:   %[[EMPTY:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   %[[NS:.*]] = arith.constant 2 : index
//       CHECK:   scf.if
//       CHECK:     scf.for %[[S:.*]] = %[[ZERO]] to %[[NS]] step %[[ONE]]
//  CHECK-NEXT:       %[[COPIES:.*]] = arith.constant 2 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[FULL]][%[[S]]], %[[COPIES]]
//  CHECK-NEXT:       %[[THREADS:.*]] = arith.constant 128 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[EMPTY]][%[[S]]], %[[THREADS]]
//       CHECK:   gpu.barrier
//       CHECK:   %[[PRO:.*]] = arith.constant 1 : index
//       CHECK:   scf.for %[[J:.*]] = %[[ZERO]] to %[[PRO]] step %[[ONE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:   %[[F:.*]] = arith.constant false
//       CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %[[ZERO]], %[[PHASE:.*]] = %[[F]]) -> (f32, index, i1)
//       CHECK:     %[[AHEADN:.*]] = arith.constant 1 : index
//       CHECK:     %[[DIST:.*]] = arith.muli %{{.*}}, %[[AHEADN]] : index
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[K]], %[[DIST]] : index
//       CHECK:     scf.if
//       CHECK:       %[[WRAPS:.*]] = arith.cmpi eq, %[[STAGE]], %[[ZERO]] : index
//       CHECK:       %[[LAST:.*]] = arith.constant 1 : index
//       CHECK:       %[[DOWN:.*]] = arith.subi %[[STAGE]], %[[ONE]] : index
//       CHECK:       %[[PREV:.*]] = arith.select %[[WRAPS]], %[[LAST]], %[[DOWN]] : index
//       CHECK:       %[[EPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPS]] : i1
//       CHECK:       scf.if
//  CHECK-NEXT:         tile.mbarrier_wait_parity %[[EMPTY]][%[[PREV]]], %[[EPHASE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:     tile.mbarrier_wait_parity %[[FULL]][%[[STAGE]]], %[[PHASE]]
//       CHECK:     memref.load %[[A]][%[[STAGE]],
//       CHECK:     memref.load %[[B]][%[[STAGE]],
//       CHECK:     tile.mbarrier_arrive %[[EMPTY]][%[[STAGE]]]
//  CHECK-NEXT:     %[[NEXT:.*]] = arith.addi %[[STAGE]], %[[ONE]] : index
//  CHECK-NEXT:     %[[WRAPPED:.*]] = arith.cmpi eq, %[[NEXT]], %[[NS]] : index
//  CHECK-NEXT:     %[[NSTAGE:.*]] = arith.select %[[WRAPPED]], %[[ZERO]], %[[NEXT]] : index
//  CHECK-NEXT:     %[[NPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPPED]] : i1
//  CHECK-NEXT:     scf.yield %{{.*}}, %[[NSTAGE]], %[[NPHASE]] : f32, index, i1
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @k2(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %bar = tile.mbarrier_alloc : !bar
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %two : !bar
    }
    gpu.barrier
    %a = tile.shared_alloc : memref<32x64xf32, 3>
    %b = tile.shared_alloc : memref<32x64xf32, 3>
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c32 : index
      tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      %kk = arith.remui %k, %c2 : index
      %parity = arith.index_cast %kk : index to i1
      tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
      %va = memref.load %a[%row, %col] : memref<32x64xf32, 3>
      %vb = memref.load %b[%row, %col] : memref<32x64xf32, 3>
      %p = arith.mulf %va, %vb : f32
      %s = arith.addf %acc, %p : f32
      gpu.barrier
      scf.yield %s : f32
    } {tile.pipeline_stages = 2 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @k3
//       CHECK:   %[[A:.*]] = tile.shared_alloc : memref<3x32x64xf32, 3>
//       CHECK:   %[[B:.*]] = tile.shared_alloc : memref<3x32x64xf32, 3>
//       CHECK:   %[[FULL:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 3>
//       CHECK:   %[[EMPTY:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 3>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   %[[NS:.*]] = arith.constant 3 : index
//       CHECK:   scf.if
//       CHECK:     scf.for %[[S:.*]] = %[[ZERO]] to %[[NS]] step %[[ONE]]
//  CHECK-NEXT:       %[[COPIES:.*]] = arith.constant 2 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[FULL]][%[[S]]], %[[COPIES]]
//  CHECK-NEXT:       %[[THREADS:.*]] = arith.constant 128 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[EMPTY]][%[[S]]], %[[THREADS]]
//       CHECK:   gpu.barrier
//       CHECK:   %[[PRO:.*]] = arith.constant 2 : index
//       CHECK:   scf.for %[[J:.*]] = %[[ZERO]] to %[[PRO]] step %[[ONE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:   %[[F:.*]] = arith.constant false
//       CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %[[ZERO]], %[[PHASE:.*]] = %[[F]]) -> (f32, index, i1)
//       CHECK:     %[[AHEADN:.*]] = arith.constant 2 : index
//       CHECK:     %[[DIST:.*]] = arith.muli %{{.*}}, %[[AHEADN]] : index
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[K]], %[[DIST]] : index
//       CHECK:     scf.if
//       CHECK:       %[[WRAPS:.*]] = arith.cmpi eq, %[[STAGE]], %[[ZERO]] : index
//       CHECK:       %[[LAST:.*]] = arith.constant 2 : index
//       CHECK:       %[[DOWN:.*]] = arith.subi %[[STAGE]], %[[ONE]] : index
//       CHECK:       %[[PREV:.*]] = arith.select %[[WRAPS]], %[[LAST]], %[[DOWN]] : index
//       CHECK:       %[[EPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPS]] : i1
//       CHECK:       scf.if
//  CHECK-NEXT:         tile.mbarrier_wait_parity %[[EMPTY]][%[[PREV]]], %[[EPHASE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:     tile.mbarrier_wait_parity %[[FULL]][%[[STAGE]]], %[[PHASE]]
//       CHECK:     memref.load %[[A]][%[[STAGE]],
//       CHECK:     memref.load %[[B]][%[[STAGE]],
//       CHECK:     tile.mbarrier_arrive %[[EMPTY]][%[[STAGE]]]
//  CHECK-NEXT:     %[[NEXT:.*]] = arith.addi %[[STAGE]], %[[ONE]] : index
//  CHECK-NEXT:     %[[WRAPPED:.*]] = arith.cmpi eq, %[[NEXT]], %[[NS]] : index
//  CHECK-NEXT:     %[[NSTAGE:.*]] = arith.select %[[WRAPPED]], %[[ZERO]], %[[NEXT]] : index
//  CHECK-NEXT:     %[[NPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPPED]] : i1
//  CHECK-NEXT:     scf.yield %{{.*}}, %[[NSTAGE]], %[[NPHASE]] : f32, index, i1
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @k3(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %bar = tile.mbarrier_alloc : !bar
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %two : !bar
    }
    gpu.barrier
    %a = tile.shared_alloc : memref<32x64xf32, 3>
    %b = tile.shared_alloc : memref<32x64xf32, 3>
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c32 : index
      tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      %kk = arith.remui %k, %c2 : index
      %parity = arith.index_cast %kk : index to i1
      tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
      %va = memref.load %a[%row, %col] : memref<32x64xf32, 3>
      %vb = memref.load %b[%row, %col] : memref<32x64xf32, 3>
      %p = arith.mulf %va, %vb : f32
      %s = arith.addf %acc, %p : f32
      gpu.barrier
      scf.yield %s : f32
    } {tile.pipeline_stages = 3 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @k4
//       CHECK:   %[[A:.*]] = tile.shared_alloc : memref<4x32x64xf32, 3>
//       CHECK:   %[[B:.*]] = tile.shared_alloc : memref<4x32x64xf32, 3>
//       CHECK:   %[[FULL:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
//       CHECK:   %[[EMPTY:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   %[[NS:.*]] = arith.constant 4 : index
//       CHECK:   scf.if
//       CHECK:     scf.for %[[S:.*]] = %[[ZERO]] to %[[NS]] step %[[ONE]]
//  CHECK-NEXT:       %[[COPIES:.*]] = arith.constant 2 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[FULL]][%[[S]]], %[[COPIES]]
//  CHECK-NEXT:       %[[THREADS:.*]] = arith.constant 128 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[EMPTY]][%[[S]]], %[[THREADS]]
//       CHECK:   gpu.barrier
//       CHECK:   %[[PRO:.*]] = arith.constant 3 : index
//       CHECK:   scf.for %[[J:.*]] = %[[ZERO]] to %[[PRO]] step %[[ONE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:   %[[F:.*]] = arith.constant false
//       CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %[[ZERO]], %[[PHASE:.*]] = %[[F]]) -> (f32, index, i1)
//       CHECK:     %[[AHEADN:.*]] = arith.constant 3 : index
//       CHECK:     %[[DIST:.*]] = arith.muli %{{.*}}, %[[AHEADN]] : index
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[K]], %[[DIST]] : index
//       CHECK:     scf.if
//       CHECK:       %[[WRAPS:.*]] = arith.cmpi eq, %[[STAGE]], %[[ZERO]] : index
//       CHECK:       %[[LAST:.*]] = arith.constant 3 : index
//       CHECK:       %[[DOWN:.*]] = arith.subi %[[STAGE]], %[[ONE]] : index
//       CHECK:       %[[PREV:.*]] = arith.select %[[WRAPS]], %[[LAST]], %[[DOWN]] : index
//       CHECK:       %[[EPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPS]] : i1
//       CHECK:       scf.if
//  CHECK-NEXT:         tile.mbarrier_wait_parity %[[EMPTY]][%[[PREV]]], %[[EPHASE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:     tile.mbarrier_wait_parity %[[FULL]][%[[STAGE]]], %[[PHASE]]
//       CHECK:     memref.load %[[A]][%[[STAGE]],
//       CHECK:     memref.load %[[B]][%[[STAGE]],
//       CHECK:     tile.mbarrier_arrive %[[EMPTY]][%[[STAGE]]]
//  CHECK-NEXT:     %[[NEXT:.*]] = arith.addi %[[STAGE]], %[[ONE]] : index
//  CHECK-NEXT:     %[[WRAPPED:.*]] = arith.cmpi eq, %[[NEXT]], %[[NS]] : index
//  CHECK-NEXT:     %[[NSTAGE:.*]] = arith.select %[[WRAPPED]], %[[ZERO]], %[[NEXT]] : index
//  CHECK-NEXT:     %[[NPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPPED]] : i1
//  CHECK-NEXT:     scf.yield %{{.*}}, %[[NSTAGE]], %[[NPHASE]] : f32, index, i1
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @k4(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %bar = tile.mbarrier_alloc : !bar
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %two : !bar
    }
    gpu.barrier
    %a = tile.shared_alloc : memref<32x64xf32, 3>
    %b = tile.shared_alloc : memref<32x64xf32, 3>
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c32 : index
      tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      %kk = arith.remui %k, %c2 : index
      %parity = arith.index_cast %kk : index to i1
      tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
      %va = memref.load %a[%row, %col] : memref<32x64xf32, 3>
      %vb = memref.load %b[%row, %col] : memref<32x64xf32, 3>
      %p = arith.mulf %va, %vb : f32
      %s = arith.addf %acc, %p : f32
      gpu.barrier
      scf.yield %s : f32
    } {tile.pipeline_stages = 4 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @k7
//       CHECK:   %[[A:.*]] = tile.shared_alloc dynamic : memref<7x32x64xf32, 3>
//       CHECK:   %[[B:.*]] = tile.shared_alloc dynamic : memref<7x32x64xf32, 3>
//       CHECK:   %[[FULL:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 7>
//       CHECK:   %[[EMPTY:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 7>
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[ONE:.*]] = arith.constant 1 : index
//       CHECK:   %[[NS:.*]] = arith.constant 7 : index
//       CHECK:   scf.if
//       CHECK:     scf.for %[[S:.*]] = %[[ZERO]] to %[[NS]] step %[[ONE]]
//  CHECK-NEXT:       %[[COPIES:.*]] = arith.constant 2 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[FULL]][%[[S]]], %[[COPIES]]
//  CHECK-NEXT:       %[[THREADS:.*]] = arith.constant 128 : i32
//  CHECK-NEXT:       tile.mbarrier_init %[[EMPTY]][%[[S]]], %[[THREADS]]
//       CHECK:   gpu.barrier
//       CHECK:   %[[PRO:.*]] = arith.constant 6 : index
//       CHECK:   scf.for %[[J:.*]] = %[[ZERO]] to %[[PRO]] step %[[ONE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[J]]], %[[FULL]][%[[J]]]
//       CHECK:   %[[F:.*]] = arith.constant false
//       CHECK:   scf.for %[[K:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[STAGE:.*]] = %[[ZERO]], %[[PHASE:.*]] = %[[F]]) -> (f32, index, i1)
//       CHECK:     %[[AHEADN:.*]] = arith.constant 6 : index
//       CHECK:     %[[DIST:.*]] = arith.muli %{{.*}}, %[[AHEADN]] : index
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[K]], %[[DIST]] : index
//       CHECK:     scf.if
//       CHECK:       %[[WRAPS:.*]] = arith.cmpi eq, %[[STAGE]], %[[ZERO]] : index
//       CHECK:       %[[LAST:.*]] = arith.constant 6 : index
//       CHECK:       %[[DOWN:.*]] = arith.subi %[[STAGE]], %[[ONE]] : index
//       CHECK:       %[[PREV:.*]] = arith.select %[[WRAPS]], %[[LAST]], %[[DOWN]] : index
//       CHECK:       %[[EPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPS]] : i1
//       CHECK:       scf.if
//  CHECK-NEXT:         tile.mbarrier_wait_parity %[[EMPTY]][%[[PREV]]], %[[EPHASE]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[A]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:       tile.tma_copy %{{.*}} to %[[B]][%[[PREV]]], %[[FULL]][%[[PREV]]]
//       CHECK:     tile.mbarrier_wait_parity %[[FULL]][%[[STAGE]]], %[[PHASE]]
//       CHECK:     memref.load %[[A]][%[[STAGE]],
//       CHECK:     memref.load %[[B]][%[[STAGE]],
//       CHECK:     tile.mbarrier_arrive %[[EMPTY]][%[[STAGE]]]
//  CHECK-NEXT:     %[[NEXT:.*]] = arith.addi %[[STAGE]], %[[ONE]] : index
//  CHECK-NEXT:     %[[WRAPPED:.*]] = arith.cmpi eq, %[[NEXT]], %[[NS]] : index
//  CHECK-NEXT:     %[[NSTAGE:.*]] = arith.select %[[WRAPPED]], %[[ZERO]], %[[NEXT]] : index
//  CHECK-NEXT:     %[[NPHASE:.*]] = arith.xori %[[PHASE]], %[[WRAPPED]] : i1
//  CHECK-NEXT:     scf.yield %{{.*}}, %[[NSTAGE]], %[[NPHASE]] : f32, index, i1
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @k7(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %bar = tile.mbarrier_alloc : !bar
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %two : !bar
    }
    gpu.barrier
    // Dynamic: a static ring of 7 stages would pass 48 KB (T-SMEM-4).
    %a = tile.shared_alloc dynamic : memref<32x64xf32, 3>
    %b = tile.shared_alloc dynamic : memref<32x64xf32, 3>
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c32 : index
      tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x64xf32, 3>, !bar
      %kk = arith.remui %k, %c2 : index
      %parity = arith.index_cast %kk : index to i1
      tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
      %va = memref.load %a[%row, %col] : memref<32x64xf32, 3>
      %vb = memref.load %b[%row, %col] : memref<32x64xf32, 3>
      %p = arith.mulf %va, %vb : f32
      %s = arith.addf %acc, %p : f32
      gpu.barrier
      scf.yield %s : f32
    } {tile.pipeline_stages = 7 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// Barrier indices that are equal constants but distinct values (as a
// generator that does not share constants writes them) name one barrier:
// the loop is pipelined.
// CHECK-LABEL: gpu.func @equal_constants
//       CHECK:   tile.mbarrier_alloc : !tile.mbarrier<count = 2>
//       CHECK:   tile.mbarrier_alloc : !tile.mbarrier<count = 2>
//   CHECK-NOT:   tile.pipeline_stages
!desc = !tile.tma_desc<memref<1024x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @equal_constants(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %two = arith.constant 2 : i32
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %bar = tile.mbarrier_alloc : !bar
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      tile.mbarrier_init %bar[%c0], %two : !bar
    }
    gpu.barrier
    %a = tile.shared_alloc : memref<32x64xf32, 3>
    %b = tile.shared_alloc : memref<32x64xf32, 3>
    %sum = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c32 : index
      %i0 = arith.constant 0 : index
      tile.tma_copy %da[%base, %c0] to %a, %bar[%i0] : !desc, memref<32x64xf32, 3>, !bar
      %i1 = arith.constant 0 : index
      tile.tma_copy %db[%base, %c0] to %b, %bar[%i1] : !desc, memref<32x64xf32, 3>, !bar
      %kk = arith.remui %k, %c2 : index
      %parity = arith.index_cast %kk : index to i1
      %i2 = arith.constant 0 : index
      tile.mbarrier_wait_parity %bar[%i2], %parity : !bar
      %va = memref.load %a[%row, %col] : memref<32x64xf32, 3>
      %vb = memref.load %b[%row, %col] : memref<32x64xf32, 3>
      %p = arith.mulf %va, %vb : f32
      %s = arith.addf %acc, %p : f32
      gpu.barrier
      scf.yield %s : f32
    } {tile.pipeline_stages = 2 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}
