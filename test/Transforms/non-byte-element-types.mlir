// Shared memory that tile's rules do not describe (elements of `index`,
// vectors, i1; T-SMEM-3) may still be used by generic code: the analyses
// and tile-check-target leave those accesses alone instead of failing, and
// the pipeline lowers the kernel.
//
// RUN: tile-opt %s --tile-check-target --tile-verify-async-protocol --tile-swizzle-accesses --tile-analyze-bank-conflicts | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -o /dev/null

// CHECK-LABEL: gpu.func @generic
module attributes {gpu.container_module} {
  gpu.module @kernels {
    memref.global "private" @indices : memref<32xindex, 3>
    memref.global "private" @vectors : memref<8xvector<4xf32>, 3>
    memref.global "private" @bits : memref<32xi1, 3>
    gpu.func @generic(%out: memref<32xindex>) kernel {
      %tid = gpu.thread_id x
      %i = memref.get_global @indices : memref<32xindex, 3>
      %v = memref.get_global @vectors : memref<8xvector<4xf32>, 3>
      %b = memref.get_global @bits : memref<32xi1, 3>
      memref.store %tid, %i[%tid] : memref<32xindex, 3>
      %c0 = arith.constant 0 : index
      %x = memref.load %v[%c0] : memref<8xvector<4xf32>, 3>
      memref.store %x, %v[%c0] : memref<8xvector<4xf32>, 3>
      %t = arith.constant true
      memref.store %t, %b[%tid] : memref<32xi1, 3>
      gpu.barrier
      %y = memref.load %i[%tid] : memref<32xindex, 3>
      memref.store %y, %out[%tid] : memref<32xindex>
      gpu.return
    }
  }
}
