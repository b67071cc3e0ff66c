// A CuTe-style multistage hgemm in tile IR (Ampere path, runs on sm_80 and
// later): C = A B^T (B stored N x K) or C = A B (B stored K x N, read with
// ldmatrix.trans), f16 in, f32 accumulation, f16 (or f32) out. 128x128 CTA
// tiles of 128 threads, K slices of 32 copied by tile.copy (a CuTe TiledCopy:
// threads (32,4):(4,1), values (1,8)) into Swizzle<3,3,3> (b128) buffers (a
// K x N B tile gets byte Swizzle<3,4,4>); the K loop is marked
// {tile.pipeline_stages = 3}, which tile-to-ptx-pipeline turns into 3-stage
// cp.async rings; tile.mma runs 2x2 warps of 64x64 parts (ldmatrix.x4 +
// mma.sync.m16n8k16, two register stages); tile.mma_store writes C with
// bounds. docs/HgemmWalkthrough.md follows it through every pass to PTX.
//
// Any M, N, K: the copies zero-fill outside the matrices (tile.copy bounds)
// and the stores are bounded; cp.async needs 16-byte aligned rows, so K
// (and for C = A B also N) must be a multiple of 8.
//
//   tile-opt examples/hgemm_sm80.mlir --tile-to-ptx-pipeline="chip=sm_80"
//   tile-run examples/hgemm_sm80.mlir --chip=sm_90a
// prints the mismatches against the host (all 0) at 256x384x320 and at the
// odd 200x296x200, for both layouts of B.
//
// C's type is `!out`: f16 here; bf16 with the inputs (sed 's/f16/bf16/g'),
// or f32 (test/Integration/GPU/hgemm-sm80-f32-out.mlir) — tile.mma_store
// converts the f32 accumulators to it.

// The element type of A and B (f16 or bf16; C is !out, by default the
// same); the tests and benchmarks retarget the kernel by redefining it.
!e = f16
!out = memref<?x?x!e>
!out_tile = memref<128x128x!e, 3>
#out_values = #tile.layout<(1,8)>

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hgemm_nt(%a: memref<?x?x!e>, %b: memref<?x?x!e>, %c: !out) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %m = memref.dim %c, %c0 : !out
      %n = memref.dim %c, %c1 : !out
      %k = memref.dim %a, %c1 : memref<?x?x!e>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %sa = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32x!e, 3>
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32x!e, 3>
      %sc = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !out_tile
      %zero = arith.constant dense<0.0> : vector<4x8x2x2xf32>
      %c31 = arith.constant 31 : index
      %k31 = arith.addi %k, %c31 : index
      %kt = arith.divui %k31, %c32 : index
      %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (vector<4x8x2x2xf32>) {
        %k0 = arith.muli %t, %c32 : index
        tile.copy %a[%m0, %k0] to %sa bounds [%m, %k]
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?x!e> to memref<128x32x!e, 3>
        tile.copy %b[%n0, %k0] to %sb bounds [%n, %k]
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?x!e> to memref<128x32x!e, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        %next = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>}
            : memref<128x32x!e, 3>, memref<128x32x!e, 3>, vector<4x8x2x2xf32>
        gpu.barrier
        scf.yield %next : vector<4x8x2x2xf32>
      } {tile.pipeline_stages = 3 : i64}
      // The epilogue through shared memory: the warps' fragments
      // into a swizzled C tile, then 16-byte rows of it to global memory.
      tile.mma_store %acc, %sc[%c0, %c0] {warps = array<i64: 2, 2>}
          : vector<4x8x2x2xf32>, !out_tile
      gpu.barrier
      tile.copy %sc to %c[%m0, %n0] bounds [%m, %n]
          {threads = #tile.layout<(16,8):(8,1)>, values = #out_values}
          : !out_tile to !out
      gpu.return
    }
    gpu.func @hgemm_nn(%a: memref<?x?x!e>, %b: memref<?x?x!e>, %c: !out) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %m = memref.dim %c, %c0 : !out
      %n = memref.dim %c, %c1 : !out
      %k = memref.dim %a, %c1 : memref<?x?x!e>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %sa = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32x!e, 3>
      // 256-byte rows read down the columns by ldmatrix.trans: b128 would
      // leave a 2-way conflict; this swizzle (tile-analyze-bank-conflicts'
      // proposal) removes it.
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<3, 4, 4>} : memref<32x128x!e, 3>
      %sc = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !out_tile
      %zero = arith.constant dense<0.0> : vector<4x8x2x2xf32>
      %c31 = arith.constant 31 : index
      %k31 = arith.addi %k, %c31 : index
      %kt = arith.divui %k31, %c32 : index
      %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (vector<4x8x2x2xf32>) {
        %k0 = arith.muli %t, %c32 : index
        tile.copy %a[%m0, %k0] to %sa bounds [%m, %k]
            {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?x!e> to memref<128x32x!e, 3>
        tile.copy %b[%k0, %n0] to %sb bounds [%k, %n]
            {threads = #tile.layout<(8,16):(16,1)>, values = #tile.layout<(1,8)>}
            : memref<?x?x!e> to memref<32x128x!e, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        %next = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>, transpose_b}
            : memref<128x32x!e, 3>, memref<32x128x!e, 3>, vector<4x8x2x2xf32>
        gpu.barrier
        scf.yield %next : vector<4x8x2x2xf32>
      } {tile.pipeline_stages = 3 : i64}
      // The epilogue through shared memory: the warps' fragments
      // into a swizzled C tile, then 16-byte rows of it to global memory.
      tile.mma_store %acc, %sc[%c0, %c0] {warps = array<i64: 2, 2>}
          : vector<4x8x2x2xf32>, !out_tile
      gpu.barrier
      tile.copy %sc to %c[%m0, %n0] bounds [%m, %n]
          {threads = #tile.layout<(16,8):(8,1)>, values = #out_values}
          : !out_tile to !out
      gpu.return
    }
  }

  func.func @fill(%h: memref<?x?x!e>, %p: index, %q: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %rows = memref.dim %h, %c0 : memref<?x?x!e>
    %cols = memref.dim %h, %c1 : memref<?x?x!e>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %ip = arith.muli %i, %p : index
        %jq = arith.muli %j, %q : index
        %s = arith.addi %ip, %jq : index
        %r = arith.remui %s, %c5 : index
        %ri = arith.index_cast %r : index to i32
        %f = arith.sitofp %ri : i32 to !e
        %two = arith.constant 2.0 : !e
        %v = arith.subf %f, %two : !e
        memref.store %v, %h[%i, %j] : memref<?x?x!e>
      }
    }
    return
  }

  // Runs C = A B^T (`transposed`, B is N x K) or C = A B (B is K x N) at
  // (m, n, k) `reps` times and returns the number of elements of C that
  // differ from the host's product by more than 1e-2 relative (all of them,
  // or 64 sampled ones when `sampled`).
  func.func @run(%m: index, %n: index, %k: index, %reps: index, %sampled: i1,
                 %transposed: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c7 = arith.constant 7 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c613 = arith.constant 613 : index
    %c997 = arith.constant 997 : index
    // The C tile the epilogue stages (64 KB: room for f32).
    %staging = arith.constant 65536 : i32
    %ha = memref.alloc(%m, %k) : memref<?x?x!e>
    %hc = memref.alloc(%m, %n) : !out
    func.call @fill(%ha, %c3, %c7) : (memref<?x?x!e>, index, index) -> ()
    %brows = arith.select %transposed, %n, %k : index
    %bcols = arith.select %transposed, %k, %n : index
    %hb = memref.alloc(%brows, %bcols) : memref<?x?x!e>
    scf.if %transposed {
      func.call @fill(%hb, %c2, %c3) : (memref<?x?x!e>, index, index) -> ()
    } else {
      func.call @fill(%hb, %c7, %c2) : (memref<?x?x!e>, index, index) -> ()
    }
    %da = gpu.alloc (%m, %k) : memref<?x?x!e>
    %db = gpu.alloc (%brows, %bcols) : memref<?x?x!e>
    %dc = gpu.alloc (%m, %n) : !out
    gpu.memcpy %da, %ha : memref<?x?x!e>, memref<?x?x!e>
    gpu.memcpy %db, %hb : memref<?x?x!e>, memref<?x?x!e>
    %c127 = arith.constant 127 : index
    %n127 = arith.addi %n, %c127 : index
    %gx = arith.divui %n127, %c128 : index
    %m127 = arith.addi %m, %c127 : index
    %gy = arith.divui %m127, %c128 : index
    scf.for %r = %c0 to %reps step %c1 {
      scf.if %transposed {
        gpu.launch_func @kernels::@hgemm_nt blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
            dynamic_shared_memory_size %staging
            args(%da : memref<?x?x!e>, %db : memref<?x?x!e>, %dc : !out)
      } else {
        gpu.launch_func @kernels::@hgemm_nn blocks in (%gx, %gy, %c1) threads in (%c128, %c1, %c1)
            dynamic_shared_memory_size %staging
            args(%da : memref<?x?x!e>, %db : memref<?x?x!e>, %dc : !out)
      }
    }
    gpu.memcpy %hc, %dc : !out, !out
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %tol = arith.constant 1.0e-2 : f32
    %onef = arith.constant 1.0 : f32
    %mn = arith.muli %m, %n : index
    %count = arith.select %sampled, %c64, %mn : index
    %bad = scf.for %e = %c0 to %count step %c1 iter_args(%b = %none) -> (i32) {
      %ei = arith.muli %e, %c997 : index
      %si = arith.remui %ei, %m : index
      %ej = arith.muli %e, %c613 : index
      %sj = arith.remui %ej, %n : index
      %ai = arith.divui %e, %n : index
      %aj = arith.remui %e, %n : index
      %i = arith.select %sampled, %si, %ai : index
      %j = arith.select %sampled, %sj, %aj : index
      %ref = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
        %x = memref.load %ha[%i, %l] : memref<?x?x!e>
        %br = arith.select %transposed, %j, %l : index
        %bc = arith.select %transposed, %l, %j : index
        %y = memref.load %hb[%br, %bc] : memref<?x?x!e>
        %xf = arith.extf %x : !e to f32
        %yf = arith.extf %y : !e to f32
        %p = math.fma %xf, %yf, %acc : f32
        scf.yield %p : f32
      }
      %got = memref.load %hc[%i, %j] : !out
      %gf = arith.extf %got : !e to f32
      %d = arith.subf %gf, %ref : f32
      %ad = math.absf %d : f32
      %ar = math.absf %ref : f32
      %scale = arith.maximumf %ar, %onef : f32
      %rel = arith.divf %ad, %scale : f32
      %off = arith.cmpf ogt, %rel, %tol : f32
      %inc = arith.select %off, %one, %none : i32
      %nb = arith.addi %b, %inc : i32
      scf.yield %nb : i32
    }
    gpu.dealloc %da : memref<?x?x!e>
    gpu.dealloc %db : memref<?x?x!e>
    gpu.dealloc %dc : !out
    memref.dealloc %ha : memref<?x?x!e>
    memref.dealloc %hb : memref<?x?x!e>
    memref.dealloc %hc : !out
    return %bad : i32
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %true = arith.constant true
    %false = arith.constant false
    %m = arith.constant 256 : index
    %n = arith.constant 384 : index
    %k = arith.constant 320 : index
    %bad_nt = func.call @run(%m, %n, %k, %c1, %false, %true) : (index, index, index, index, i1, i1) -> i32
    vector.print str "hgemm A*B^T 256x384x320 mismatches: "
    vector.print %bad_nt : i32
    %bad_nn = func.call @run(%m, %n, %k, %c1, %false, %false) : (index, index, index, index, i1, i1) -> i32
    vector.print str "hgemm A*B 256x384x320 mismatches: "
    vector.print %bad_nn : i32
    %om = arith.constant 200 : index
    %on = arith.constant 296 : index
    %ok = arith.constant 200 : index
    %odd_nt = func.call @run(%om, %on, %ok, %c1, %false, %true) : (index, index, index, index, i1, i1) -> i32
    vector.print str "hgemm A*B^T 200x296x200 mismatches: "
    vector.print %odd_nt : i32
    %odd_nn = func.call @run(%om, %on, %ok, %c1, %false, %false) : (index, index, index, index, i1, i1) -> i32
    vector.print str "hgemm A*B 200x296x200 mismatches: "
    vector.print %odd_nn : i32
    return
  }
}
