// The tile level composed: a K loop that copies a 32x32 f16 tile with
// tile.copy (threads (32,4):(4,1), values (1,8)) into a 128B-swizzled
// buffer, then has every thread sum 8 values of the next thread-row's part, is expanded
// by tile-lower-tile-ops and pipelined by tile-pipeline-async-copies into a
// 3-stage ring (the swizzled buffer becomes a swizzled ring); the protocol
// checker accepts the result and the sums match the host's.
//
// RUN: tile-opt %s -tile-lower-tile-ops -tile-pipeline-async-copies | tile-run - --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: pipelined tile.copy sum - host sum: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sum(%src: memref<256x32xf16>, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %r0 = arith.divui %tid, %c4 : index
      %r1 = arith.addi %r0, %c1 : index
      %row = arith.remui %r1, %c32 : index
      %q = arith.remui %tid, %c4 : index
      %col = arith.muli %q, %c8 : index
      %tile = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<32x32xf16, 3>
      %sum = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        tile.copy %src[%base, %c0] to %tile
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<256x32xf16> to memref<32x32xf16, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %v = memref.load %tile[%row, %c] : memref<32x32xf16, 3>
          %f = arith.extf %v : f16 to f32
          %s = arith.addf %a, %f : f32
          scf.yield %s : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 3 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %h = memref.alloc() : memref<256x32xf16>
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %ij = arith.addi %i, %j : index
        %m = arith.remui %ij, %c7 : index
        %mi = arith.index_cast %m : index to i32
        %f = arith.sitofp %mi : i32 to f16
        memref.store %f, %h[%i, %j] : memref<256x32xf16>
      }
    }
    %ds = gpu.alloc () : memref<256x32xf16>
    %dout = gpu.alloc () : memref<128xf32>
    gpu.memcpy %ds, %h : memref<256x32xf16>, memref<256x32xf16>
    gpu.launch_func @kernels::@sum blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%ds : memref<256x32xf16>, %dout : memref<128xf32>)
    %out = memref.alloc() : memref<128xf32>
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    %zero = arith.constant 0.0 : f32
    %diff = scf.for %t = %c0 to %c128 step %c1 iter_args(%d = %zero) -> (f32) {
      %r0 = arith.divui %t, %c4 : index
      %r1 = arith.addi %r0, %c1 : index
      %row = arith.remui %r1, %c32 : index
      %q = arith.remui %t, %c4 : index
      %col = arith.muli %q, %c8 : index
      %ref = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        %gr = arith.addi %base, %row : index
        %part = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %v = memref.load %h[%gr, %c] : memref<256x32xf16>
          %f = arith.extf %v : f16 to f32
          %s = arith.addf %a, %f : f32
          scf.yield %s : f32
        }
        scf.yield %part : f32
      }
      %got = memref.load %out[%t] : memref<128xf32>
      %delta = arith.subf %got, %ref : f32
      %abs = math.absf %delta : f32
      %nd = arith.addf %d, %abs : f32
      scf.yield %nd : f32
    }
    vector.print str "pipelined tile.copy sum - host sum: "
    vector.print %diff : f32
    return
  }
}
