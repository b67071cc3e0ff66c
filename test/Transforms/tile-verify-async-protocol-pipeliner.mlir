// The pipeliner's rings pass the protocol checker for N = 2..7 stages, with
// a trip count the kernel only learns at run time (%n): the TMA form (full
// and empty barriers, (stage, phase) carried by the loop) is simulated by the
// role protocol with nothing to report, the cp.async form (stage = k mod N,
// wait_group N - 2) by the thread protocol.
// RUN: sed 's/STAGES/2/' %s | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed 's/STAGES/3/' %s | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed 's/STAGES/4/' %s | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed 's/STAGES/5/' %s | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed 's/STAGES/6/' %s | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:
// RUN: sed 's/STAGES/7/' %s | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=warning:

// Mutations of the pipeliner's output (N = 4) are reported: phase bits that
// never flip (xori → andi), and a wait_group that leaves one group too many.
// RUN: sed 's/STAGES/4/' %s | tile-opt -tile-pipeline-async-copies | sed 's/arith.xori/arith.andi/' | not tile-opt -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-FLIP
// RUN: sed 's/STAGES/4/' %s | tile-opt -tile-pipeline-async-copies | sed 's/tile.async_wait_group 2$/tile.async_wait_group 3/' | not tile-opt -tile-lower-tile-ops -tile-verify-async-protocol -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=WAIT
// NO-FLIP: error: waits for parity 0 of barrier 3 (the 127 threads of thread 1's role) in phase 0, which never completes: {{.*}} (T-PROTO-11)
// WAIT: error: reads shared memory that a cp.async group may still be writing (stage 0): 2 newer group(s) were committed after it, so wait_group must keep at most 2 pending (T-PROTO-1)

// CHECK: remark: role protocol: 2 roles (1 from thread 0, 127 from thread 1) simulated with sample values 1, 200, 520: nothing to report
// CHECK: remark: role protocol not modeled: no mbarrier_wait_parity

!desc = !tile.tma_desc<memref<?x64xf32>, box = [32, 64]>
!bar = !tile.mbarrier
gpu.module @kernels {
  gpu.func @tma_ring(%da: !desc, %db: !desc, %n: index, %out: memref<128xf32>) kernel
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
    // Dynamic: 7 stages of a static buffer would pass 48 KB (T-SMEM-4).
    %a = tile.shared_alloc dynamic : memref<32x64xf32, 3>
    %b = tile.shared_alloc dynamic : memref<32x64xf32, 3>
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
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
    } {tile.pipeline_stages = STAGES : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }

  gpu.func @cp_async_ring(%src: memref<?xf32>, %n: index, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %mine = arith.muli %tid, %c4 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c512 : index
      %from = arith.addi %base, %mine : index
      tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg : memref<?xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%mine] : memref<512xf32, 3>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    } {tile.pipeline_stages = STAGES : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}
