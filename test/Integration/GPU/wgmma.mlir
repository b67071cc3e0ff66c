// One warpgroup computes D = A * B^T with wgmma (m64n64k16, f16 in, f32
// accumulate): A (64x64) and B (64x64, N x K) are K-major in 128B-swizzled
// tile.shared_alloc buffers, filled by generic (swizzled) stores and fenced
// for the async proxy; four wgmmas walk K in steps of 16 through
// descriptors derived from the buffers' swizzle. Each thread writes its 32
// accumulators from the PTX ISA's D layout; the host compares with its own
// product (small integers, exact).
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: wgmma mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wgmma(%ga: memref<64x64xf16>, %gb: memref<64x64xf16>, %out: memref<64x64xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %tid = gpu.thread_id x
      %as = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
      %bs = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
      scf.for %e = %tid to %c4096 step %c128 {
        %r = arith.divui %e, %c64 : index
        %k = arith.remui %e, %c64 : index
        %a = memref.load %ga[%r, %k] : memref<64x64xf16>
        memref.store %a, %as[%r, %k] : memref<64x64xf16, 3>
        %b = memref.load %gb[%r, %k] : memref<64x64xf16>
        memref.store %b, %bs[%r, %k] : memref<64x64xf16, 3>
      }
      // wgmma reads shared memory through the async proxy.
      tile.fence_proxy_async shared_cta
      gpu.barrier
      %zero = arith.constant dense<0.0> : vector<32xf32>
      tile.wgmma_fence
      %acc = scf.for %kb = %c0 to %c4 step %c1 iter_args(%d = %zero) -> (vector<32xf32>) {
        %k = arith.muli %kb, %c16 : index
        %da = tile.wgmma_descriptor %as[%c0, %k] : memref<64x64xf16, 3>
        %db = tile.wgmma_descriptor %bs[%c0, %k] : memref<64x64xf16, 3>
        %n = tile.wgmma %da, %db, %d {n = 64 : i64, inputType = f16} : vector<32xf32>
        scf.yield %n : vector<32xf32>
      }
      tile.wgmma_commit_group
      tile.wgmma_wait_group 0
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %w16 = arith.muli %warp, %c16 : index
      %l4 = arith.divui %lane, %c4 : index
      %r0 = arith.addi %w16, %l4 : index
      %r1 = arith.addi %r0, %c8 : index
      %q = arith.remui %lane, %c4 : index
      %q2 = arith.muli %q, %c2 : index
      scf.for %j = %c0 to %c8 step %c1 {
        %j8 = arith.muli %j, %c8 : index
        %col = arith.addi %j8, %q2 : index
        %col1 = arith.addi %col, %c1 : index
        %i0 = arith.muli %j, %c4 : index
        %i1 = arith.addi %i0, %c1 : index
        %i2 = arith.addi %i0, %c2 : index
        %i3 = arith.addi %i2, %c1 : index
        %v0 = vector.extract %acc[%i0] : f32 from vector<32xf32>
        %v1 = vector.extract %acc[%i1] : f32 from vector<32xf32>
        %v2 = vector.extract %acc[%i2] : f32 from vector<32xf32>
        %v3 = vector.extract %acc[%i3] : f32 from vector<32xf32>
        memref.store %v0, %out[%r0, %col] : memref<64x64xf32>
        memref.store %v1, %out[%r0, %col1] : memref<64x64xf32>
        memref.store %v2, %out[%r1, %col] : memref<64x64xf32>
        memref.store %v3, %out[%r1, %col1] : memref<64x64xf32>
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
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %ha = memref.alloc() : memref<64x64xf16>
    %hb = memref.alloc() : memref<64x64xf16>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c64 step %c1 {
        %i3 = arith.muli %i, %c3 : index
        %s = arith.addi %i3, %k : index
        %m = arith.remui %s, %c7 : index
        %mi = arith.index_cast %m : index to i32
        %three = arith.constant 3 : i32
        %vi = arith.subi %mi, %three : i32
        %v = arith.sitofp %vi : i32 to f16
        memref.store %v, %ha[%i, %k] : memref<64x64xf16>
        %k2 = arith.muli %k, %c2 : index
        %t = arith.addi %i, %k2 : index
        %mb = arith.remui %t, %c5 : index
        %mbi = arith.index_cast %mb : index to i32
        %two = arith.constant 2 : i32
        %wi = arith.subi %mbi, %two : i32
        %w = arith.sitofp %wi : i32 to f16
        memref.store %w, %hb[%i, %k] : memref<64x64xf16>
      }
    }
    %da = gpu.alloc () : memref<64x64xf16>
    %db = gpu.alloc () : memref<64x64xf16>
    %dout = gpu.alloc () : memref<64x64xf32>
    gpu.memcpy %da, %ha : memref<64x64xf16>, memref<64x64xf16>
    gpu.memcpy %db, %hb : memref<64x64xf16>, memref<64x64xf16>
    gpu.launch_func @kernels::@wgmma blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%da : memref<64x64xf16>, %db : memref<64x64xf16>, %dout : memref<64x64xf32>)
    %out = memref.alloc() : memref<64x64xf32>
    gpu.memcpy %out, %dout : memref<64x64xf32>, memref<64x64xf32>
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %fz = arith.constant 0.0 : f32
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%b0 = %z) -> (i64) {
      %r = scf.for %n = %c0 to %c64 step %c1 iter_args(%x0 = %b0) -> (i64) {
        %ref = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %fz) -> (f32) {
          %a = memref.load %ha[%i, %k] : memref<64x64xf16>
          %b = memref.load %hb[%n, %k] : memref<64x64xf16>
          %af = arith.extf %a : f16 to f32
          %bf = arith.extf %b : f16 to f32
          %p = arith.mulf %af, %bf : f32
          %s = arith.addf %acc, %p : f32
          scf.yield %s : f32
        }
        %y = memref.load %out[%i, %n] : memref<64x64xf32>
        %ne = arith.cmpf une, %y, %ref : f32
        %inc = arith.select %ne, %o, %z : i64
        %n0 = arith.addi %x0, %inc : i64
        scf.yield %n0 : i64
      }
      scf.yield %r : i64
    }
    vector.print str "wgmma mismatches: "
    vector.print %bad : i64
    return
  }
}
