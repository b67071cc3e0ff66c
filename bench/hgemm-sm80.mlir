// The Ampere-style hgemm (seed 003) at M = N = K = 4096 for the benchmark:
// C = A B with row-major f16 A (M x K) and B (K x N), f32 accumulation, f16
// C; 128x128x32 CTA tiles, 3 cp.async stages, 2x2 warps of 64x64
// (ldmatrix + mma.sync.m16n8k16). 20 launches (tile-run --time-kernels
// gives the median); 64 sampled elements are checked against the host.
//
// Run: tile-run bench/hgemm-sm80.mlir --chip=sm_90a --time-kernels

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hgemm_nn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %m = memref.dim %c, %c0 : memref<?x?xf16>
      %n = memref.dim %c, %c1 : memref<?x?xf16>
      %k = memref.dim %a, %c1 : memref<?x?xf16>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %sa = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32xf16, 3>
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x128xf16, 3>
      %zero = arith.constant dense<0.0> : vector<4x8x2x2xf32>
      %kt = arith.divui %k, %c32 : index
      %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (vector<4x8x2x2xf32>) {
        %k0 = arith.muli %t, %c32 : index
        tile.copy %a[%m0, %k0] to %sa
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?xf16> to memref<128x32xf16, 3>
        tile.copy %b[%k0, %n0] to %sb
            {threads = #tile.layout<(8,16):(16,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?xf16> to memref<32x128xf16, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        %next = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>, transpose_b}
            : memref<128x32xf16, 3>, memref<32x128xf16, 3>, vector<4x8x2x2xf32>
        gpu.barrier
        scf.yield %next : vector<4x8x2x2xf32>
      } {tile.pipeline_stages = 3 : i64}
      tile.mma_store %acc, %c[%m0, %n0] bounds [%m, %n] {warps = array<i64: 2, 2>}
          : vector<4x8x2x2xf32>, memref<?x?xf16>
      gpu.return
    }
  }

  func.func @fill(%h: memref<?x?xf16>, %p: index, %q: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %rows = memref.dim %h, %c0 : memref<?x?xf16>
    %cols = memref.dim %h, %c1 : memref<?x?xf16>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %ip = arith.muli %i, %p : index
        %jq = arith.muli %j, %q : index
        %s = arith.addi %ip, %jq : index
        %r = arith.remui %s, %c5 : index
        %ri = arith.index_cast %r : index to i32
        %f = arith.sitofp %ri : i32 to f16
        %two = arith.constant 2.0 : f16
        %v = arith.subf %f, %two : f16
        memref.store %v, %h[%i, %j] : memref<?x?xf16>
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c20 = arith.constant 20 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c997 = arith.constant 997 : index
    %c613 = arith.constant 613 : index
    %m = arith.constant 4096 : index
    %n = arith.constant 4096 : index
    %k = arith.constant 4096 : index
    %ha = memref.alloc(%m, %k) : memref<?x?xf16>
    %hb = memref.alloc(%k, %n) : memref<?x?xf16>
    %hc = memref.alloc(%m, %n) : memref<?x?xf16>
    func.call @fill(%ha, %c3, %c7) : (memref<?x?xf16>, index, index) -> ()
    func.call @fill(%hb, %c7, %c2) : (memref<?x?xf16>, index, index) -> ()
    %da = gpu.alloc (%m, %k) : memref<?x?xf16>
    %db = gpu.alloc (%k, %n) : memref<?x?xf16>
    %dc = gpu.alloc (%m, %n) : memref<?x?xf16>
    gpu.memcpy %da, %ha : memref<?x?xf16>, memref<?x?xf16>
    gpu.memcpy %db, %hb : memref<?x?xf16>, memref<?x?xf16>
    %gx = arith.divui %n, %c128 : index
    %gy = arith.divui %m, %c128 : index
    scf.for %r = %c0 to %c20 step %c1 {
      gpu.launch_func @kernels::@hgemm_nn blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
          args(%da : memref<?x?xf16>, %db : memref<?x?xf16>, %dc : memref<?x?xf16>)
    }
    gpu.memcpy %hc, %dc : memref<?x?xf16>, memref<?x?xf16>
    // Sampled check: exact small-integer products, sums within f16's exact
    // integer range only up to 2048, so compare with a relative tolerance.
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-2 : f32
    %bad = scf.for %s = %c0 to %c64 step %c1 iter_args(%b = %none) -> (i32) {
      %si = arith.muli %s, %c997 : index
      %i = arith.remui %si, %m : index
      %sj = arith.muli %s, %c613 : index
      %j = arith.remui %sj, %n : index
      %ref = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %ha[%i, %l] : memref<?x?xf16>
        %y = memref.load %hb[%l, %j] : memref<?x?xf16>
        %xf = arith.extf %x : f16 to f32
        %yf = arith.extf %y : f16 to f32
        %p = math.fma %xf, %yf, %acc : f32
        scf.yield %p : f32
      }
      %got = memref.load %hc[%i, %j] : memref<?x?xf16>
      %gf = arith.extf %got : f16 to f32
      %d = arith.subf %gf, %ref : f32
      %ad = math.absf %d : f32
      %ar = math.absf %ref : f32
      %one_f = arith.constant 1.0 : f32
      %scale = arith.maximumf %ar, %one_f : f32
      %rel = arith.divf %ad, %scale : f32
      %off = arith.cmpf ogt, %rel, %tol : f32
      %inc = arith.select %off, %one, %none : i32
      %nb = arith.addi %b, %inc : i32
      scf.yield %nb : i32
    }
    vector.print str "hgemm 4096 sampled mismatches: "
    vector.print %bad : i32
    return
  }
}
