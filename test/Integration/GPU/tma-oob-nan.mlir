// A descriptor with `oob = nan`: a 32x32 box loaded at (16, 16) of a 40x40
// f32 tensor gets NaN for the 32*32 - 24*24 = 448 elements outside it and the
// tensor's values inside. The host IR below and python/tests
// (test_oob_nan_matches_host_ir) launch the same kernel and must agree: the
// manifest carries the descriptor's OOB fill to Python.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: nan: 448
// CHECK: wrong: 0

!desc = !tile.tma_desc<memref<?x?xf32>, box = [32, 32], oob = nan>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    /// Loads the box at (%row, %col) and writes it to %out (32x32).
    gpu.func @load_box(%a: !desc, %out: memref<32x32xf32>, %row: index, %col: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c1024 = arith.constant 1024 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 4096 : i32
      %false = arith.constant false
      %tid = gpu.thread_id x
      %tile = tile.shared_alloc : memref<32x32xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier
      }
      gpu.barrier
      scf.if %leader {
        %t = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !tile.mbarrier -> !tile.mbarrier_token
        tile.tma_load %a[%row, %col] to %tile, %bars[%c0] : !desc, memref<32x32xf32, 3>, !tile.mbarrier
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !tile.mbarrier
      scf.for %e = %tid to %c1024 step %c128 {
        %r = arith.divui %e, %c32 : index
        %c = arith.remui %e, %c32 : index
        %v = memref.load %tile[%r, %c] : memref<32x32xf32, 3>
        memref.store %v, %out[%r, %c] : memref<32x32xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c40 = arith.constant 40 : index
    %c128 = arith.constant 128 : index
    %ha = memref.alloc(%c40, %c40) : memref<?x?xf32>
    scf.for %i = %c0 to %c40 step %c1 {
      scf.for %j = %c0 to %c40 step %c1 {
        %lin = arith.muli %i, %c40 : index
        %k = arith.addi %lin, %j : index
        %ki = arith.index_cast %k : index to i32
        %f = arith.sitofp %ki : i32 to f32
        memref.store %f, %ha[%i, %j] : memref<?x?xf32>
      }
    }
    %da = gpu.alloc (%c40, %c40) : memref<?x?xf32>
    %dout = gpu.alloc () : memref<32x32xf32>
    gpu.memcpy %da, %ha : memref<?x?xf32>, memref<?x?xf32>
    %a = tile.tma_create_descriptor %da : memref<?x?xf32> -> !desc
    gpu.launch_func @kernels::@load_box blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%a : !desc, %dout : memref<32x32xf32>, %c16 : index, %c16 : index)
    %hout = memref.alloc() : memref<32x32xf32>
    gpu.memcpy %hout, %dout : memref<32x32xf32>, memref<32x32xf32>
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %counts:2 = scf.for %i = %c0 to %c32 step %c1 iter_args(%n0 = %z, %w0 = %z) -> (i64, i64) {
      %row:2 = scf.for %j = %c0 to %c32 step %c1 iter_args(%n = %n0, %w = %w0) -> (i64, i64) {
        %v = memref.load %hout[%i, %j] : memref<32x32xf32>
        %gi = arith.addi %i, %c16 : index
        %gj = arith.addi %j, %c16 : index
        %ini = arith.cmpi ult, %gi, %c40 : index
        %inj = arith.cmpi ult, %gj, %c40 : index
        %inside = arith.andi %ini, %inj : i1
        %isnan = arith.cmpf uno, %v, %v : f32
        %ni = arith.select %isnan, %o, %z : i64
        %n1 = arith.addi %n, %ni : i64
        // Inside: the tensor's value; outside: NaN.
        %want = scf.if %inside -> (i1) {
          %x = memref.load %ha[%gi, %gj] : memref<?x?xf32>
          %eq = arith.cmpf oeq, %v, %x : f32
          scf.yield %eq : i1
        } else {
          scf.yield %isnan : i1
        }
        %wi = arith.select %want, %z, %o : i64
        %w1 = arith.addi %w, %wi : i64
        scf.yield %n1, %w1 : i64, i64
      }
      scf.yield %row#0, %row#1 : i64, i64
    }
    vector.print str "nan: "
    vector.print %counts#0 : i64
    vector.print str "wrong: "
    vector.print %counts#1 : i64
    return
  }
}
