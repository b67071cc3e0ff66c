// Seed 003's hgemm in tile IR, end to end on the GPU: 128x128 CTA tiles, K
// slices of 32 copied by tile.copy (G2SCopyA's layouts) into Swizzle<3,3,3>
// (b128) buffers, pipelined into 3-stage cp.async rings by the named
// pipeline ({tile.pipeline_stages = 3}), tile.mma on 2x2 warps of 64x64
// (ldmatrix.x4 + mma.sync.m16n8k16, f32 accumulators) and tile.mma_store.
// Two layouts of B: N x K (C = A B^T) and K x N (C = A B, ldmatrix.trans).
// Small integers make every product and sum exact, so C must equal the
// host's product exactly.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: hgemm A*B^T mismatches: 0
// CHECK: hgemm A*B mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hgemm_nt(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>) kernel
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
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32xf16, 3>
      %zero = arith.constant dense<0.0> : vector<4x8x2x2xf32>
      %kt = arith.divui %k, %c32 : index
      %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (vector<4x8x2x2xf32>) {
        %k0 = arith.muli %t, %c32 : index
        tile.copy %a[%m0, %k0] to %sa
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?xf16> to memref<128x32xf16, 3>
        tile.copy %b[%n0, %k0] to %sb
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?xf16> to memref<128x32xf16, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        %next = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>}
            : memref<128x32xf16, 3>, memref<128x32xf16, 3>, vector<4x8x2x2xf32>
        gpu.barrier
        scf.yield %next : vector<4x8x2x2xf32>
      } {tile.pipeline_stages = 3 : i64}
      tile.mma_store %acc, %c[%m0, %n0] bounds [%m, %n] {warps = array<i64: 2, 2>}
          : vector<4x8x2x2xf32>, memref<?x?xf16>
      gpu.return
    }
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

  // Counts the elements of c that differ from a * b (b is N x K when
  // transposed, else K x N).
  func.func @mismatches(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: memref<?x?xf16>, %bt: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = memref.dim %c, %c0 : memref<?x?xf16>
    %n = memref.dim %c, %c1 : memref<?x?xf16>
    %k = memref.dim %a, %c1 : memref<?x?xf16>
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %bad = scf.for %i = %c0 to %m step %c1 iter_args(%bi = %none) -> (i32) {
      %row = scf.for %j = %c0 to %n step %c1 iter_args(%bj = %bi) -> (i32) {
        %ref = scf.for %l = %c0 to %k step %c1 iter_args(%s = %zero) -> (f32) {
          %x = memref.load %a[%i, %l] : memref<?x?xf16>
          %y = scf.if %bt -> (f16) {
            %v = memref.load %b[%j, %l] : memref<?x?xf16>
            scf.yield %v : f16
          } else {
            %v = memref.load %b[%l, %j] : memref<?x?xf16>
            scf.yield %v : f16
          }
          %xf = arith.extf %x : f16 to f32
          %yf = arith.extf %y : f16 to f32
          %p = math.fma %xf, %yf, %s : f32
          scf.yield %p : f32
        }
        %got = memref.load %c[%i, %j] : memref<?x?xf16>
        %gf = arith.extf %got : f16 to f32
        %ne = arith.cmpf une, %gf, %ref : f32
        %inc = arith.select %ne, %one, %none : i32
        %nb = arith.addi %bj, %inc : i32
        scf.yield %nb : i32
      }
      scf.yield %row : i32
    }
    return %bad : i32
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c128 = arith.constant 128 : index
    %m = arith.constant 256 : index
    %n = arith.constant 384 : index
    %k = arith.constant 320 : index
    %true = arith.constant true
    %false = arith.constant false
    %ha = memref.alloc(%m, %k) : memref<?x?xf16>
    %hbt = memref.alloc(%n, %k) : memref<?x?xf16>
    %hb = memref.alloc(%k, %n) : memref<?x?xf16>
    %hc = memref.alloc(%m, %n) : memref<?x?xf16>
    func.call @fill(%ha, %c3, %c7) : (memref<?x?xf16>, index, index) -> ()
    func.call @fill(%hbt, %c2, %c3) : (memref<?x?xf16>, index, index) -> ()
    func.call @fill(%hb, %c7, %c2) : (memref<?x?xf16>, index, index) -> ()
    %da = gpu.alloc (%m, %k) : memref<?x?xf16>
    %dbt = gpu.alloc (%n, %k) : memref<?x?xf16>
    %db = gpu.alloc (%k, %n) : memref<?x?xf16>
    %dc = gpu.alloc (%m, %n) : memref<?x?xf16>
    gpu.memcpy %da, %ha : memref<?x?xf16>, memref<?x?xf16>
    gpu.memcpy %dbt, %hbt : memref<?x?xf16>, memref<?x?xf16>
    gpu.memcpy %db, %hb : memref<?x?xf16>, memref<?x?xf16>
    %gx = arith.divui %n, %c128 : index
    %gy = arith.divui %m, %c128 : index
    gpu.launch_func @kernels::@hgemm_nt blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
        args(%da : memref<?x?xf16>, %dbt : memref<?x?xf16>, %dc : memref<?x?xf16>)
    gpu.memcpy %hc, %dc : memref<?x?xf16>, memref<?x?xf16>
    %bad_nt = func.call @mismatches(%ha, %hbt, %hc, %true) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>, i1) -> i32
    vector.print str "hgemm A*B^T mismatches: "
    vector.print %bad_nt : i32
    gpu.launch_func @kernels::@hgemm_nn blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
        args(%da : memref<?x?xf16>, %db : memref<?x?xf16>, %dc : memref<?x?xf16>)
    gpu.memcpy %hc, %dc : memref<?x?xf16>, memref<?x?xf16>
    %bad_nn = func.call @mismatches(%ha, %hb, %hc, %false) : (memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf16>, i1) -> i32
    vector.print str "hgemm A*B mismatches: "
    vector.print %bad_nn : i32
    return
  }
}
