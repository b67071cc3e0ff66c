// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/crash-project-tile-complement-ed55ecc0.mlir --tile-pipeline-async-copies -o /dev/null
// signature: mlir::tile::complement <- mlir::tile::logicalProduct <- zipProduct
// what: SIGFPE
!out = memref<?x?xf16>
!out_tile = memref<128x128xf16, 3>
#out_values = #tile.layout<(1,8)>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hgemm_nt(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: !out) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32xf16, 3>
      %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (vector<4x8x2x2xf32>) {
        %k0 = arith.muli %t, %c32 : index
        tile.copy %a[%m0, %k0] to %sa bounds [%m, %k]
            : memref<?x?xf16> to memref<128x32xf16, 3>
        %next = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>}
            : memref<128x32xf16, 3>, memref<128x32xf16, 3>, vector<4x8x2x2xf32>
      } {tile.pipeline_stages = 3 : i64}
      tile.mma_store %acc, %sc[%c0, %c0] {warps = array<i64: 2, 2>}
          : vector<4x8x2x2xf32>, !out_tile
      tile.copy %sc to %c[%m0, %n0] bounds [%m, %n]
          : !out_tile to !out
    }
    gpu.func @hgemm_nn(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %c: !out) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c32 = arith.constant 32 : index
      %m = memref.dim %c, %c0 : !out
      %n = memref.dim %c, %c1 : !out
      %k = memref.dim %a, %c1 : memref<?x?xf16>
      %bx = gpu.block_id x
      %by = gpu.block_id y
      %m0 = arith.muli %by, %c128 : index
      %n0 = arith.muli %bx, %c128 : index
      %sa = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x32xf16, 3>
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<3, 4, 4>} : memref<32x128xf16, 3>
      %sc = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : !out_tile
      %zero = arith.constant dense<0.0> : vector<4x8x2x2xf32>
      %c31 = arith.constant 31 : index
      %k31 = arith.addi %k, %c31 : index
      %kt = arith.divui %k31, %c32 : index
      %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (vector<4x8x2x2xf32>) {
        %next = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>, transpose_b}
            : memref<128x32xf16, 3>, memref<32x128xf16, 3>, vector<4x8x2x2xf32>
        scf.yield %next : vector<4x8x2x2xf32>
      } {tile.pipeline_stages = 3 : i64}
      tile.mma_store %acc, %sc[%c0, %c0] {warps = array<i64: 2, 2>}
          : vector<4x8x2x2xf32>, !out_tile
      tile.copy %sc to %c[%m0, %n0] bounds [%m, %n]
          {threads = #tile.layout<(16,8):(8,-9223372036854775808)>, values = #out_values}
          : !out_tile to !out
    }
  }
  func.func @fill(%h: memref<?x?xf16>, %p: index, %q: index) {
    %rows = memref.dim %h, %c0 : memref<?x?xf16>
    %cols = memref.dim %h, %c1 : memref<?x?xf16>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
      }
    }
  }
  func.func @run(%m: index, %n: index, %k: index, %reps: index, %sampled: i1,
                 %transposed: i1) -> i32 {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    scf.if %transposed {
    }
    scf.for %r = %c0 to %reps step %c1 {
      scf.if %transposed {
      }
    }
    %zero = arith.constant 0.0 : f32
    %none = arith.constant 0 : i32
    %mn = arith.muli %m, %n : index
    %count = arith.select %sampled, %c64, %mn : index
    %bad = scf.for %e = %c0 to %count step %c1 iter_args(%b = %none) -> (i32) {
      %ref = scf.for %l = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
      }
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
  }
}
