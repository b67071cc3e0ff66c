// One warp computes D = A * B (m16n8k16, f16 in, f32 accumulate) from
// 128B-swizzled shared tiles: ldmatrix x4 loads A's fragments, ldmatrix x2
// B's (stored as B^T, n x k), mma.sync multiplies; D goes to global memory
// from its fragment layout (rows lane/4 and lane/4 + 8, columns 2*(lane%4)
// + {0, 1}) and, converted to f16, through stmatrix x2 into shared memory
// and out. The host compares both with its own product (small integers,
// exact in f16).
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: mma.sync f32 mismatches: 0
// CHECK: stmatrix f16 mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma(%ga: memref<16x16xf16>, %gbt: memref<8x16xf16>,
                  %out: memref<16x8xf32>, %outh: memref<16x8xf16>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c256 = arith.constant 256 : index
      %lane = gpu.thread_id x
      %as = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x16xf16, 3>
      %bs = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<8x16xf16, 3>
      %cs = tile.shared_alloc : memref<16x8xf16, 3>
      scf.for %e = %lane to %c256 step %c32 {
        %r = arith.divui %e, %c16 : index
        %k = arith.remui %e, %c16 : index
        %v = memref.load %ga[%r, %k] : memref<16x16xf16>
        memref.store %v, %as[%r, %k] : memref<16x16xf16, 3>
      }
      scf.for %e = %lane to %c128 step %c32 {
        %n = arith.divui %e, %c16 : index
        %k = arith.remui %e, %c16 : index
        %v = memref.load %gbt[%n, %k] : memref<8x16xf16>
        memref.store %v, %bs[%n, %k] : memref<8x16xf16, 3>
      }
      gpu.barrier
      // A: lanes 0-15 give rows 0-15 at k = 0, lanes 16-31 rows 0-15 at k = 8.
      %ar = arith.remui %lane, %c16 : index
      %ah = arith.divui %lane, %c16 : index
      %ak = arith.muli %ah, %c8 : index
      %a = tile.ldmatrix %as[%ar, %ak] x4 : memref<16x16xf16, 3> -> vector<4x2xf16>
      // B^T: lanes 0-7 give rows n = 0-7 at k = 0, lanes 8-15 at k = 8.
      %br = arith.remui %lane, %c8 : index
      %bh0 = arith.divui %lane, %c8 : index
      %bh = arith.remui %bh0, %c2 : index
      %bk = arith.muli %bh, %c8 : index
      %b = tile.ldmatrix %bs[%br, %bk] x2 : memref<8x16xf16, 3> -> vector<2x2xf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %d = tile.mma_sync %a, %b, %zero {shape = array<i64: 16, 8, 16>}
          : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>
      %row = arith.divui %lane, %c4 : index
      %q = arith.remui %lane, %c4 : index
      %col = arith.muli %q, %c2 : index
      %col1 = arith.addi %col, %c1 : index
      %row8 = arith.addi %row, %c8 : index
      %d00 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
      %d01 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
      %d10 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
      %d11 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
      memref.store %d00, %out[%row, %col] : memref<16x8xf32>
      memref.store %d01, %out[%row, %col1] : memref<16x8xf32>
      memref.store %d10, %out[%row8, %col] : memref<16x8xf32>
      memref.store %d11, %out[%row8, %col1] : memref<16x8xf32>
      // The same fragments as f16 through stmatrix: lanes 0-15 give rows 0-15.
      %h = arith.truncf %d : vector<2x2xf32> to vector<2x2xf16>
      tile.stmatrix %h, %cs[%ar, %c0] x2 : vector<2x2xf16>, memref<16x8xf16, 3>
      gpu.barrier
      scf.for %e = %lane to %c128 step %c32 {
        %r = arith.divui %e, %c8 : index
        %n = arith.remui %e, %c8 : index
        %v = memref.load %cs[%r, %n] : memref<16x8xf16, 3>
        memref.store %v, %outh[%r, %n] : memref<16x8xf16>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %ha = memref.alloc() : memref<16x16xf16>
    %hbt = memref.alloc() : memref<8x16xf16>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %i3 = arith.muli %i, %c3 : index
        %s = arith.addi %i3, %k : index
        %m = arith.remui %s, %c7 : index
        %mi = arith.index_cast %m : index to i32
        %three = arith.constant 3 : i32
        %vi = arith.subi %mi, %three : i32
        %v = arith.sitofp %vi : i32 to f16
        memref.store %v, %ha[%i, %k] : memref<16x16xf16>
      }
    }
    scf.for %n = %c0 to %c8 step %c1 {
      scf.for %k = %c0 to %c16 step %c1 {
        %k2 = arith.muli %k, %c2 : index
        %s = arith.addi %n, %k2 : index
        %m = arith.remui %s, %c5 : index
        %mi = arith.index_cast %m : index to i32
        %two = arith.constant 2 : i32
        %vi = arith.subi %mi, %two : i32
        %v = arith.sitofp %vi : i32 to f16
        memref.store %v, %hbt[%n, %k] : memref<8x16xf16>
      }
    }
    %da = gpu.alloc () : memref<16x16xf16>
    %dbt = gpu.alloc () : memref<8x16xf16>
    %dout = gpu.alloc () : memref<16x8xf32>
    %douth = gpu.alloc () : memref<16x8xf16>
    gpu.memcpy %da, %ha : memref<16x16xf16>, memref<16x16xf16>
    gpu.memcpy %dbt, %hbt : memref<8x16xf16>, memref<8x16xf16>
    gpu.launch_func @kernels::@mma blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%da : memref<16x16xf16>, %dbt : memref<8x16xf16>, %dout : memref<16x8xf32>,
             %douth : memref<16x8xf16>)
    %out = memref.alloc() : memref<16x8xf32>
    %outh = memref.alloc() : memref<16x8xf16>
    gpu.memcpy %out, %dout : memref<16x8xf32>, memref<16x8xf32>
    gpu.memcpy %outh, %douth : memref<16x8xf16>, memref<16x8xf16>
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %fz = arith.constant 0.0 : f32
    %bad:2 = scf.for %i = %c0 to %c16 step %c1 iter_args(%b0 = %z, %b1 = %z) -> (i64, i64) {
      %r:2 = scf.for %n = %c0 to %c8 step %c1 iter_args(%x0 = %b0, %x1 = %b1) -> (i64, i64) {
        %ref = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %fz) -> (f32) {
          %a = memref.load %ha[%i, %k] : memref<16x16xf16>
          %b = memref.load %hbt[%n, %k] : memref<8x16xf16>
          %af = arith.extf %a : f16 to f32
          %bf = arith.extf %b : f16 to f32
          %p = arith.mulf %af, %bf : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %y = memref.load %out[%i, %n] : memref<16x8xf32>
        %yh = memref.load %outh[%i, %n] : memref<16x8xf16>
        %yhf = arith.extf %yh : f16 to f32
        %ne0 = arith.cmpf une, %y, %ref : f32
        %ne1 = arith.cmpf une, %yhf, %ref : f32
        %i0 = arith.select %ne0, %o, %z : i64
        %i1 = arith.select %ne1, %o, %z : i64
        %n0 = arith.addi %x0, %i0 : i64
        %n1 = arith.addi %x1, %i1 : i64
        scf.yield %n0, %n1 : i64, i64
      }
      scf.yield %r#0, %r#1 : i64, i64
    }
    vector.print str "mma.sync f32 mismatches: "
    vector.print %bad#0 : i64
    vector.print str "stmatrix f16 mismatches: "
    vector.print %bad#1 : i64
    return
  }
}
