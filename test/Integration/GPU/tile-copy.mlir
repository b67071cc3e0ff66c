// tile.copy as a CuTe TiledCopy: 128 threads laid out (32,4):(4,1), each
// copying (1,8) f16 (16 bytes, cp.async.cg), a 32x32 tiler repeated 2x2
// over a 64x64 tile of a 128x64 matrix (rows 64..127), into a 128B-swizzled
// shared buffer. The block commits and waits, reads the tile back through
// the swizzle and writes it out; the host compares.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: tile copy mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%src: memref<128x64xf16>, %out: memref<64x64xf16>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %c4096 = arith.constant 4096 : index
      %tid = gpu.thread_id x
      %tile = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
      tile.copy %src[%c64, %c0] to %tile
          {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
          : memref<128x64xf16> to memref<64x64xf16, 3>
      %g = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      scf.for %e = %tid to %c4096 step %c128 {
        %r = arith.divui %e, %c64 : index
        %c = arith.remui %e, %c64 : index
        %v = memref.load %tile[%r, %c] : memref<64x64xf16, 3>
        memref.store %v, %out[%r, %c] : memref<64x64xf16>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c2048 = arith.constant 2048 : index
    %h = memref.alloc() : memref<128x64xf16>
    scf.for %i = %c0 to %c128 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %row = arith.muli %i, %c64 : index
        %lin = arith.addi %row, %j : index
        %m = arith.remui %lin, %c2048 : index
        %mi = arith.index_cast %m : index to i32
        %f = arith.sitofp %mi : i32 to f16
        memref.store %f, %h[%i, %j] : memref<128x64xf16>
      }
    }
    %ds = gpu.alloc () : memref<128x64xf16>
    %dout = gpu.alloc () : memref<64x64xf16>
    gpu.memcpy %ds, %h : memref<128x64xf16>, memref<128x64xf16>
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%ds : memref<128x64xf16>, %dout : memref<64x64xf16>)
    %out = memref.alloc() : memref<64x64xf16>
    gpu.memcpy %out, %dout : memref<64x64xf16>, memref<64x64xf16>
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %z) -> (i64) {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%a = %acc) -> (i64) {
        %si = arith.addi %i, %c64 : index
        %x = memref.load %h[%si, %j] : memref<128x64xf16>
        %y = memref.load %out[%i, %j] : memref<64x64xf16>
        %ne = arith.cmpf une, %x, %y : f16
        %inc = arith.select %ne, %o, %z : i64
        %n = arith.addi %a, %inc : i64
        scf.yield %n : i64
      }
      scf.yield %row : i64
    }
    vector.print str "tile copy mismatches: "
    vector.print %bad : i64
    return
  }
}
