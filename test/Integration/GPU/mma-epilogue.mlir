// A tile-level MMA with an epilogue through shared memory: tile.copy
// loads 64x32 tiles of A and B (N x K) into 128B-swizzled buffers, tile.mma
// (2x2 warps of 32x32) multiplies them, tile.mma_store {stmatrix} writes
// the f32 accumulators as f16 into a 128B-swizzled 64x64 shared tile with
// stmatrix.x4, and tile.copy writes that tile to global memory with 16-byte
// vectors. C must equal A B^T exactly (small integers).
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: epilogue mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mma(%a: memref<64x32xf16>, %b: memref<64x32xf16>, %c: memref<64x64xf16>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %sa = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x32xf16, 3>
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x32xf16, 3>
      %sc = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
      tile.copy %a[%c0, %c0] to %sa {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
          : memref<64x32xf16> to memref<64x32xf16, 3>
      tile.copy %b[%c0, %c0] to %sb {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
          : memref<64x32xf16> to memref<64x32xf16, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %zero = arith.constant dense<0.0> : vector<2x4x2x2xf32>
      %acc = tile.mma %sa, %sb, %zero {warps = array<i64: 2, 2>}
          : memref<64x32xf16, 3>, memref<64x32xf16, 3>, vector<2x4x2x2xf32>
      tile.mma_store %acc, %sc[%c0, %c0] {warps = array<i64: 2, 2>, stmatrix}
          : vector<2x4x2x2xf32>, memref<64x64xf16, 3>
      gpu.barrier
      tile.copy %sc to %c[%c0, %c0] {threads = #tile.layout<(16,8):(8,1)>, values = #tile.layout<(1,8)>}
          : memref<64x64xf16, 3> to memref<64x64xf16>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %two = arith.constant 2.0 : f16
    %ha = memref.alloc() : memref<64x32xf16>
    %hb = memref.alloc() : memref<64x32xf16>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %i3 = arith.muli %i, %c3 : index
        %s = arith.addi %i3, %j : index
        %r = arith.remui %s, %c5 : index
        %ri = arith.index_cast %r : index to i32
        %f = arith.sitofp %ri : i32 to f16
        %v = arith.subf %f, %two : f16
        memref.store %v, %ha[%i, %j] : memref<64x32xf16>
        %j3 = arith.muli %j, %c3 : index
        %t = arith.addi %i, %j3 : index
        %q = arith.remui %t, %c5 : index
        %qi = arith.index_cast %q : index to i32
        %g = arith.sitofp %qi : i32 to f16
        %w = arith.subf %g, %two : f16
        memref.store %w, %hb[%i, %j] : memref<64x32xf16>
      }
    }
    %da = gpu.alloc () : memref<64x32xf16>
    %db = gpu.alloc () : memref<64x32xf16>
    %dc = gpu.alloc () : memref<64x64xf16>
    gpu.memcpy %da, %ha : memref<64x32xf16>, memref<64x32xf16>
    gpu.memcpy %db, %hb : memref<64x32xf16>, memref<64x32xf16>
    gpu.launch_func @kernels::@mma blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%da : memref<64x32xf16>, %db : memref<64x32xf16>, %dc : memref<64x64xf16>)
    %hc = memref.alloc() : memref<64x64xf16>
    gpu.memcpy %hc, %dc : memref<64x64xf16>, memref<64x64xf16>
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%bi = %none) -> (i32) {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%bj = %bi) -> (i32) {
        %ref = scf.for %l = %c0 to %c32 step %c1 iter_args(%s = %zero) -> (f32) {
          %x = memref.load %ha[%i, %l] : memref<64x32xf16>
          %y = memref.load %hb[%j, %l] : memref<64x32xf16>
          %xf = arith.extf %x : f16 to f32
          %yf = arith.extf %y : f16 to f32
          %p = arith.mulf %xf, %yf : f32
          %n = arith.addf %s, %p : f32
          scf.yield %n : f32
        }
        %got = memref.load %hc[%i, %j] : memref<64x64xf16>
        %gf = arith.extf %got : f16 to f32
        %ne = arith.cmpf une, %gf, %ref : f32
        %inc = arith.select %ne, %one, %none : i32
        %nb = arith.addi %bj, %inc : i32
        scf.yield %nb : i32
      }
      scf.yield %row : i32
    }
    vector.print str "epilogue mismatches: "
    vector.print %bad : i32
    return
  }
}
