// tile-pipeline-async-copies: stage and phase arithmetic for N = 2, 3, 4, 7
// (ring of N stages, N - 1 prologue stages, wait_group(N - 2), the copy of
// iteration k + N - 1 into stage (k + N - 1) mod N), and the result passes
// the protocol checker.
// RUN: tile-opt %s -split-input-file -tile-pipeline-async-copies | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-pipeline-async-copies -tile-verify-async-protocol -verify-diagnostics
// CHECK-LABEL: gpu.func @k
//       CHECK:   %[[RING:.*]] = tile.shared_alloc : memref<2x512xf32, 3>
//       CHECK:   %[[NS:.*]] = arith.constant 2 : index
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[P:.*]] = arith.constant 1 : index
// Prologue: iterations 0 .. 0 into stages 0 .. 0, one commit each.
//       CHECK:   scf.for %[[S:.*]] = %[[ZERO]] to %[[P]] step
//       CHECK:     scf.if
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[S]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     tile.async_wait_group 0{{$}}
//  CHECK-NEXT:     gpu.barrier
//       CHECK:     %[[IT:.*]] = arith.divui
//  CHECK-NEXT:     %[[STAGE:.*]] = arith.remui %[[IT]], %[[NS]] : index
//       CHECK:     memref.load %[[RING]][%[[STAGE]], %{{.*}}]
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[IT]], %{{.*}} : index
//       CHECK:     scf.if
//       CHECK:       %[[NEXT:.*]] = arith.remui %[[AHEAD]], %[[NS]] : index
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[NEXT]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   tile.async_wait_group 0
gpu.module @kernels {
  gpu.func @k(%src: memref<4096xf32>, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %mine = arith.muli %tid, %c4 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c512 : index
      %from = arith.addi %base, %mine : index
      tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%mine] : memref<512xf32, 3>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    } {tile.pipeline_stages = 2 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @k
//       CHECK:   %[[RING:.*]] = tile.shared_alloc : memref<3x512xf32, 3>
//       CHECK:   %[[NS:.*]] = arith.constant 3 : index
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[P:.*]] = arith.constant 2 : index
// Prologue: iterations 0 .. 1 into stages 0 .. 1, one commit each.
//       CHECK:   scf.for %[[S:.*]] = %[[ZERO]] to %[[P]] step
//       CHECK:     scf.if
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[S]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     tile.async_wait_group 1{{$}}
//  CHECK-NEXT:     gpu.barrier
//       CHECK:     %[[IT:.*]] = arith.divui
//  CHECK-NEXT:     %[[STAGE:.*]] = arith.remui %[[IT]], %[[NS]] : index
//       CHECK:     memref.load %[[RING]][%[[STAGE]], %{{.*}}]
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[IT]], %{{.*}} : index
//       CHECK:     scf.if
//       CHECK:       %[[NEXT:.*]] = arith.remui %[[AHEAD]], %[[NS]] : index
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[NEXT]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   tile.async_wait_group 0
gpu.module @kernels {
  gpu.func @k(%src: memref<4096xf32>, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %mine = arith.muli %tid, %c4 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c512 : index
      %from = arith.addi %base, %mine : index
      tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%mine] : memref<512xf32, 3>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    } {tile.pipeline_stages = 3 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @k
//       CHECK:   %[[RING:.*]] = tile.shared_alloc : memref<4x512xf32, 3>
//       CHECK:   %[[NS:.*]] = arith.constant 4 : index
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[P:.*]] = arith.constant 3 : index
// Prologue: iterations 0 .. 2 into stages 0 .. 2, one commit each.
//       CHECK:   scf.for %[[S:.*]] = %[[ZERO]] to %[[P]] step
//       CHECK:     scf.if
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[S]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     tile.async_wait_group 2{{$}}
//  CHECK-NEXT:     gpu.barrier
//       CHECK:     %[[IT:.*]] = arith.divui
//  CHECK-NEXT:     %[[STAGE:.*]] = arith.remui %[[IT]], %[[NS]] : index
//       CHECK:     memref.load %[[RING]][%[[STAGE]], %{{.*}}]
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[IT]], %{{.*}} : index
//       CHECK:     scf.if
//       CHECK:       %[[NEXT:.*]] = arith.remui %[[AHEAD]], %[[NS]] : index
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[NEXT]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   tile.async_wait_group 0
gpu.module @kernels {
  gpu.func @k(%src: memref<4096xf32>, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %mine = arith.muli %tid, %c4 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c512 : index
      %from = arith.addi %base, %mine : index
      tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%mine] : memref<512xf32, 3>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    } {tile.pipeline_stages = 4 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @k
//       CHECK:   %[[RING:.*]] = tile.shared_alloc : memref<7x512xf32, 3>
//       CHECK:   %[[NS:.*]] = arith.constant 7 : index
//       CHECK:   %[[ZERO:.*]] = arith.constant 0 : index
//       CHECK:   %[[P:.*]] = arith.constant 6 : index
// Prologue: iterations 0 .. 5 into stages 0 .. 5, one commit each.
//       CHECK:   scf.for %[[S:.*]] = %[[ZERO]] to %[[P]] step
//       CHECK:     scf.if
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[S]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:     tile.async_wait_group 5{{$}}
//  CHECK-NEXT:     gpu.barrier
//       CHECK:     %[[IT:.*]] = arith.divui
//  CHECK-NEXT:     %[[STAGE:.*]] = arith.remui %[[IT]], %[[NS]] : index
//       CHECK:     memref.load %[[RING]][%[[STAGE]], %{{.*}}]
//       CHECK:     %[[AHEAD:.*]] = arith.addi %[[IT]], %{{.*}} : index
//       CHECK:     scf.if
//       CHECK:       %[[NEXT:.*]] = arith.remui %[[AHEAD]], %[[NS]] : index
//       CHECK:       tile.async_copy %{{.*}} to %[[RING]][%[[NEXT]], %{{.*}}]
//       CHECK:     tile.async_commit_group
//       CHECK:   tile.async_wait_group 0
gpu.module @kernels {
  gpu.func @k(%src: memref<4096xf32>, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %mine = arith.muli %tid, %c4 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
      %base = arith.muli %k, %c512 : index
      %from = arith.addi %base, %mine : index
      tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg : memref<4096xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%mine] : memref<512xf32, 3>
      %s = arith.addf %acc, %v : f32
      scf.yield %s : f32
    } {tile.pipeline_stages = 7 : i64}
    memref.store %sum, %out[%tid] : memref<128xf32>
    gpu.return
  }
}

// -----

// A persistent loop (rows first, first + ctas, ...: run-time lower bound and
// step) is first normalized to count 0, 1, ... ceil((rows - first) / ctas),
// so the stages are remainders by N that the protocol checker evaluates.
// CHECK-LABEL: gpu.func @rows
//       CHECK:   %[[FIRST:.*]] = gpu.block_id x
//       CHECK:   %[[CTAS:.*]] = gpu.grid_dim x
//       CHECK:   %[[SPAN:.*]] = arith.subi %{{.*}}, %[[FIRST]] : index
//       CHECK:   %[[COUNT:.*]] = arith.ceildivsi %[[SPAN]], %[[CTAS]] : index
//       CHECK:   scf.for
//       CHECK:     arith.cmpi slt, %{{.*}}, %[[COUNT]] : index
//       CHECK:       %[[SKIP:.*]] = arith.muli %{{.*}}, %[[CTAS]] : index
//       CHECK:       %[[ROW:.*]] = arith.addi %[[FIRST]], %[[SKIP]] : index
//       CHECK:       tile.async_copy %{{.*}}[%[[ROW]], %{{.*}}] to
//       CHECK:   scf.for %[[I:.*]] = %{{.*}} to %[[COUNT]] step %{{.*}} {
//       CHECK:     tile.async_wait_group 1
//       CHECK:     gpu.barrier
//       CHECK:     %[[SKIP2:.*]] = arith.muli %[[I]], %[[CTAS]] : index
//       CHECK:     arith.addi %[[FIRST]], %[[SKIP2]] : index
//       CHECK:     tile.async_commit_group
gpu.module @kernels {
  gpu.func @rows(%src: memref<?x512xf32>, %out: memref<?x128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %tid = gpu.thread_id x
    %first = gpu.block_id x
    %ctas = gpu.grid_dim x
    %rows = memref.dim %src, %c0 : memref<?x512xf32>
    %mine = arith.muli %tid, %c4 : index
    %buf = tile.shared_alloc : memref<512xf32, 3>
    scf.for %row = %first to %rows step %ctas {
      tile.async_copy %src[%row, %mine] to %buf[%mine], 16 bytes, cache = cg : memref<?x512xf32> to memref<512xf32, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %v = memref.load %buf[%mine] : memref<512xf32, 3>
      memref.store %v, %out[%row, %tid] : memref<?x128xf32>
    } {tile.pipeline_stages = 3 : i64}
    gpu.return
  }
}
