// tile-opt fuzz reproducer (project)
// command: build/bin/tile-opt scripts/fuzz/found/crash-project-anon_-composeWithMode-5e5b19f5.mlir -o /dev/null
// signature: (anon)::composeWithMode <- mlir::tile::composition <- mlir::tile::composition
// what: SIGFPE
gpu.module @kernels {
  gpu.func @copy(%a: memref<?x?xf16>, %i: index) kernel {
    tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<64x32xf16, 3>
  }
}
!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
gpu.module @tma {
  gpu.func @tma_copy(%d: !desc, %i: index) kernel {
  }
  gpu.func @ws(%out: memref<3xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    tile.warp_specialize producer(registers = 40) {
    } consumers(2, registers = 232) {
    }
  }
  gpu.func @mma(%sa: memref<64x32xf16, 3>, %sb: memref<64x32xf16, 3>, %sbt: memref<32x64xf16, 3>,
                %acc: vector<2x4x2x2xf32>, %c: memref<?x?xf16>, %i: index,
                %wacc: vector<128xf32>) kernel {
    %0 = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>}
        : memref<64x32xf16, 3>, memref<64x32xf16, 3>, vector<2x4x2x2xf32>
    %1 = tile.mma %sa, %sbt, %0 {warps = array<i64: 2, 2>, transpose_b}
        : memref<64x32xf16, 3>, memref<32x64xf16, 3>, vector<2x4x2x2xf32>
  }
  gpu.func @zero_fill(%a: memref<?x?xf16>, %i: index, %rows: index, %cols: index) kernel {
    %s = tile.shared_alloc : memref<64x32xf16, 3>
    tile.copy %a[%i, %i] to %s bounds [%rows, %cols] {threads = #tile.layout<(32,4):(4,2)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<64x32xf16, 3>
  }
  gpu.func @stmatrix(%acc: vector<2x4x2x2xf32>, %i: index) kernel {
  }
}
gpu.module @mn_major {
  gpu.func @mn_major_b(%wacc: vector<128xf32>, %i: index, %q: index, %r: index, %z: index) kernel {
  }
}
!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
gpu.module @epilogue {
  gpu.func @tma_epilogue(%acc: vector<64xf32>, %c: !dc, %wg: index, %m: index, %n: index) kernel {
  }
  gpu.func @bounded_store(%c: memref<?x?xf16>, %m0: index, %n0: index, %m: index, %n: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
  }
}
