// RUN: tile-opt %s | tile-opt | FileCheck %s

// A dependent kernel's prologue: shared memory, barriers and L2 prefetches
// of the tensors it will read (T-PDL-2), then the wait (T-PDL-1), then the
// trigger for the kernel after it.

!d = !tile.tma_desc<memref<?x?xbf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 2>

// CHECK-LABEL: gpu.func @dependent
//       CHECK:   tile.tma_prefetch_descriptor %{{.*}}
//       CHECK:   tile.tma_prefetch %{{.*}}[%{{.*}}, %{{.*}}]
//       CHECK:   tile.bulk_prefetch %{{.*}}[%{{.*}}], %{{.*}} : memref<?xf32>
//       CHECK:   tile.grid_dependency_wait
//       CHECK:   tile.launch_dependents
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @dependent(%w: !d, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 4096 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %buffer = tile.shared_alloc : memref<64xf32, 3>
      %bars = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %w : !d
        tile.tma_prefetch %w[%c0, %c0] : !d
        tile.bulk_prefetch %out[%c0], %bytes : memref<?xf32>
        tile.mbarrier_init %bars[%c0], %one : !bars
        memref.store %zero, %buffer[%c0] : memref<64xf32, 3>
      }
      gpu.barrier
      tile.grid_dependency_wait
      tile.launch_dependents
      memref.store %zero, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
