// Math functions in a kernel (libdevice's __nv_fmaf and __nv_expf), JIT-run
// by tile-run under lit, which clears $CUDA_HOME: the pipeline links
// libdevice from the toolkit it finds, and the values match the host's.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: libdevice math mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @math(%a: memref<128xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %tid = gpu.thread_id x
      %x = memref.load %a[%tid] : memref<128xf32>
      %y = math.fma %x, %x, %x : f32
      %z = math.exp %y : f32
      memref.store %z, %a[%tid] : memref<128xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %scale = arith.constant 0.01 : f32
    %h = memref.alloc() : memref<128xf32>
    scf.for %i = %c0 to %c128 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      %v = arith.mulf %f, %scale : f32
      memref.store %v, %h[%i] : memref<128xf32>
    }
    %d = gpu.alloc () : memref<128xf32>
    gpu.memcpy %d, %h : memref<128xf32>, memref<128xf32>
    gpu.launch_func @kernels::@math blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%d : memref<128xf32>)
    %out = memref.alloc() : memref<128xf32>
    gpu.memcpy %out, %d : memref<128xf32>, memref<128xf32>
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-5 : f32
    %bad = scf.for %i = %c0 to %c128 step %c1 iter_args(%b = %none) -> (i32) {
      %x = memref.load %h[%i] : memref<128xf32>
      %y = math.fma %x, %x, %x : f32
      %want = math.exp %y : f32
      %got = memref.load %out[%i] : memref<128xf32>
      %d1 = arith.subf %got, %want : f32
      %ad = math.absf %d1 : f32
      %rel = arith.divf %ad, %want : f32
      %off = arith.cmpf ogt, %rel, %tol : f32
      %inc = arith.select %off, %one, %none : i32
      %nb = arith.addi %b, %inc : i32
      scf.yield %nb : i32
    }
    vector.print str "libdevice math mismatches: "
    vector.print %bad : i32
    return
  }
}
