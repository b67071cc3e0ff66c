// 32 KB of static and 24 KB of dynamic shared memory: each is under the
// 48 KB a launch gets by default but together they are not, so the runtime
// must raise the kernel's limit (it used to do so only for dynamic sizes
// over 48 KB, and the launch failed with CUDA_ERROR_INVALID_VALUE).
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: static + dynamic shared sums - expected: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @both(%out: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c256 = arith.constant 256 : index
      %tid = gpu.thread_id x
      %fixed = tile.shared_alloc : memref<8192xf32, 3>
      %dynamic = tile.shared_alloc dynamic : memref<6144xf32, 3>
      %i = arith.index_cast %tid : index to i32
      %f = arith.sitofp %i : i32 to f32
      %last = arith.addi %tid, %c256 : index
      %far = arith.constant 8191 : index
      %dfar = arith.constant 6143 : index
      %slot = arith.subi %far, %tid : index
      %dslot = arith.subi %dfar, %tid : index
      memref.store %f, %fixed[%slot] : memref<8192xf32, 3>
      memref.store %f, %dynamic[%dslot] : memref<6144xf32, 3>
      gpu.barrier
      %a = memref.load %fixed[%slot] : memref<8192xf32, 3>
      %b = memref.load %dynamic[%dslot] : memref<6144xf32, 3>
      %s = arith.addf %a, %b : f32
      memref.store %s, %out[%tid] : memref<256xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %smem = arith.constant 24576 : i32
    %dout = gpu.alloc () : memref<256xf32>
    gpu.launch_func @kernels::@both blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
        dynamic_shared_memory_size %smem args(%dout : memref<256xf32>)
    %out = memref.alloc() : memref<256xf32>
    gpu.memcpy %out, %dout : memref<256xf32>, memref<256xf32>
    %zero = arith.constant 0.0 : f32
    %two = arith.constant 2.0 : f32
    %diff = scf.for %t = %c0 to %c256 step %c1 iter_args(%d = %zero) -> (f32) {
      %i = arith.index_cast %t : index to i32
      %f = arith.sitofp %i : i32 to f32
      %want = arith.mulf %f, %two : f32
      %got = memref.load %out[%t] : memref<256xf32>
      %delta = arith.subf %got, %want : f32
      %abs = math.absf %delta : f32
      %nd = arith.addf %d, %abs : f32
      scf.yield %nd : f32
    }
    vector.print str "static + dynamic shared sums - expected: "
    vector.print %diff : f32
    return
  }
}
