// The TMA form of tile-pipeline-async-copies on the GPU: a K loop of two
// tile.tma_copy ops (128B-swizzled 32x32 f32 tiles of A and B) on one
// barrier, a wait and a dot product is pipelined into N-stage full/empty
// mbarrier rings for N = 2, 3, 4, 7 (16 iterations, so every ring wraps and
// its phases flip); the protocol checker in the pipeline accepts each, and
// every thread's sum equals the host's.
//
// RUN: tile-opt %s -tile-pipeline-async-copies | tile-run - --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: N = 2: pipelined TMA dot - host dot: 0
// CHECK: N = 3: pipelined TMA dot - host dot: 0
// CHECK: N = 4: pipelined TMA dot - host dot: 0
// CHECK: N = 7: pipelined TMA dot - host dot: 0

!desc = !tile.tma_desc<memref<512x32xf32>, box = [32, 32], swizzle = b128>
!bar = !tile.mbarrier
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @dot2(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %two = arith.constant 2 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %row = arith.divui %tid, %c4 : index
      %q = arith.remui %tid, %c4 : index
      %col = arith.muli %q, %c8 : index
      %bar = tile.mbarrier_alloc : !bar
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.mbarrier_init %bar[%c0], %two : !bar
      }
      gpu.barrier
      %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        %kk = arith.remui %k, %c2 : index
        %parity = arith.index_cast %kk : index to i1
        tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%s0 = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %va = memref.load %a[%row, %c] : memref<32x32xf32, 3>
          %vb = memref.load %b[%row, %c] : memref<32x32xf32, 3>
          %prod = arith.mulf %va, %vb : f32
          %s1 = arith.addf %s0, %prod : f32
          scf.yield %s1 : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 2 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
    gpu.func @dot3(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %two = arith.constant 2 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %row = arith.divui %tid, %c4 : index
      %q = arith.remui %tid, %c4 : index
      %col = arith.muli %q, %c8 : index
      %bar = tile.mbarrier_alloc : !bar
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.mbarrier_init %bar[%c0], %two : !bar
      }
      gpu.barrier
      %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        %kk = arith.remui %k, %c2 : index
        %parity = arith.index_cast %kk : index to i1
        tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%s0 = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %va = memref.load %a[%row, %c] : memref<32x32xf32, 3>
          %vb = memref.load %b[%row, %c] : memref<32x32xf32, 3>
          %prod = arith.mulf %va, %vb : f32
          %s1 = arith.addf %s0, %prod : f32
          scf.yield %s1 : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 3 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
    gpu.func @dot4(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %two = arith.constant 2 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %row = arith.divui %tid, %c4 : index
      %q = arith.remui %tid, %c4 : index
      %col = arith.muli %q, %c8 : index
      %bar = tile.mbarrier_alloc : !bar
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.mbarrier_init %bar[%c0], %two : !bar
      }
      gpu.barrier
      %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        %kk = arith.remui %k, %c2 : index
        %parity = arith.index_cast %kk : index to i1
        tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%s0 = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %va = memref.load %a[%row, %c] : memref<32x32xf32, 3>
          %vb = memref.load %b[%row, %c] : memref<32x32xf32, 3>
          %prod = arith.mulf %va, %vb : f32
          %s1 = arith.addf %s0, %prod : f32
          scf.yield %s1 : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 4 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
    gpu.func @dot7(%da: !desc, %db: !desc, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %two = arith.constant 2 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %row = arith.divui %tid, %c4 : index
      %q = arith.remui %tid, %c4 : index
      %col = arith.muli %q, %c8 : index
      %bar = tile.mbarrier_alloc : !bar
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.mbarrier_init %bar[%c0], %two : !bar
      }
      gpu.barrier
      // Dynamic: two 7-stage rings take 56 KB, more than the 48 KB of static
      // shared memory a kernel may have (T-SMEM-4).
      %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        tile.tma_copy %da[%base, %c0] to %a, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        tile.tma_copy %db[%base, %c0] to %b, %bar[%c0] : !desc, memref<32x32xf32, 3>, !bar
        %kk = arith.remui %k, %c2 : index
        %parity = arith.index_cast %kk : index to i1
        tile.mbarrier_wait_parity %bar[%c0], %parity : !bar
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%s0 = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %va = memref.load %a[%row, %c] : memref<32x32xf32, 3>
          %vb = memref.load %b[%row, %c] : memref<32x32xf32, 3>
          %prod = arith.mulf %va, %vb : f32
          %s1 = arith.addf %s0, %prod : f32
          scf.yield %s1 : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 7 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
  }

  func.func @check(%ha: memref<512x32xf32>, %hb: memref<512x32xf32>, %out: memref<128xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %diff = scf.for %t = %c0 to %c128 step %c1 iter_args(%d = %zero) -> (f32) {
      %row = arith.divui %t, %c4 : index
      %q = arith.remui %t, %c4 : index
      %col = arith.muli %q, %c8 : index
      %ref = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        %gr = arith.addi %base, %row : index
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%s0 = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %va = memref.load %ha[%gr, %c] : memref<512x32xf32>
          %vb = memref.load %hb[%gr, %c] : memref<512x32xf32>
          %prod = arith.mulf %va, %vb : f32
          %s1 = arith.addf %s0, %prod : f32
          scf.yield %s1 : f32
        }
        scf.yield %part : f32
      }
      %got = memref.load %out[%t] : memref<128xf32>
      %delta = arith.subf %got, %ref : f32
      %abs = math.absf %delta : f32
      %nd = arith.addf %d, %abs : f32
      scf.yield %nd : f32
    }
    return %diff : f32
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %ha = memref.alloc() : memref<512x32xf32>
    %hb = memref.alloc() : memref<512x32xf32>
    scf.for %i = %c0 to %c512 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %ij = arith.addi %i, %j : index
        %m = arith.remui %ij, %c7 : index
        %mi = arith.index_cast %m : index to i32
        %f = arith.sitofp %mi : i32 to f32
        memref.store %f, %ha[%i, %j] : memref<512x32xf32>
        %i3 = arith.muli %i, %c3 : index
        %n = arith.addi %i3, %j : index
        %n5 = arith.remui %n, %c5 : index
        %ni = arith.index_cast %n5 : index to i32
        %g = arith.sitofp %ni : i32 to f32
        memref.store %g, %hb[%i, %j] : memref<512x32xf32>
      }
    }
    %dga = gpu.alloc () : memref<512x32xf32>
    %dgb = gpu.alloc () : memref<512x32xf32>
    %dout = gpu.alloc () : memref<128xf32>
    gpu.memcpy %dga, %ha : memref<512x32xf32>, memref<512x32xf32>
    gpu.memcpy %dgb, %hb : memref<512x32xf32>, memref<512x32xf32>
    %dda = tile.tma_create_descriptor %dga : memref<512x32xf32> -> !desc
    %ddb = tile.tma_create_descriptor %dgb : memref<512x32xf32> -> !desc
    %out = memref.alloc() : memref<128xf32>
    gpu.launch_func @kernels::@dot2 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dda : !desc, %ddb : !desc, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    %diff2 = func.call @check(%ha, %hb, %out) : (memref<512x32xf32>, memref<512x32xf32>, memref<128xf32>) -> f32
    vector.print str "N = 2: pipelined TMA dot - host dot: "
    vector.print %diff2 : f32
    gpu.launch_func @kernels::@dot3 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dda : !desc, %ddb : !desc, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    %diff3 = func.call @check(%ha, %hb, %out) : (memref<512x32xf32>, memref<512x32xf32>, memref<128xf32>) -> f32
    vector.print str "N = 3: pipelined TMA dot - host dot: "
    vector.print %diff3 : f32
    gpu.launch_func @kernels::@dot4 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dda : !desc, %ddb : !desc, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    %diff4 = func.call @check(%ha, %hb, %out) : (memref<512x32xf32>, memref<512x32xf32>, memref<128xf32>) -> f32
    vector.print str "N = 4: pipelined TMA dot - host dot: "
    vector.print %diff4 : f32
    %smem7 = arith.constant 57344 : i32
    gpu.launch_func @kernels::@dot7 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        dynamic_shared_memory_size %smem7 args(%dda : !desc, %ddb : !desc, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    %diff7 = func.call @check(%ha, %hb, %out) : (memref<512x32xf32>, memref<512x32xf32>, memref<128xf32>) -> f32
    vector.print str "N = 7: pipelined TMA dot - host dot: "
    vector.print %diff7 : f32
    return
  }
}
