// TMA through the runtime's checked tensor-map encoding
// (mgpuTensorMapEncodeTiledMemref): each of 4 blocks loads its 64x64 f16 tile
// with cp.async.bulk.tensor (mbarrier complete_tx), then copies it back out;
// the host compares the 256x64 result with the input.
//
// RUN: tile-run %s --chip=sm_90a | FileCheck %s
// CHECK: TMA-loaded 256x64 f16 elements, mismatches: 0

!desc = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!mbar = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  memref.global "private" @tile : memref<64x64xf16, 3> {alignment = 128}

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c2048 = arith.constant 2048 : index
    %src = memref.alloc() : memref<256x64xf16>
    %dst = memref.alloc() : memref<256x64xf16>
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %row = arith.muli %i, %c64 : index
        %lin = arith.addi %row, %j : index
        %mod = arith.remui %lin, %c2048 : index
        %int = arith.index_cast %mod : index to i32
        %f = arith.sitofp %int : i32 to f16
        memref.store %f, %src[%i, %j] : memref<256x64xf16>
      }
    }
    %t0 = gpu.wait async
    %dsrc, %t1 = gpu.alloc async [%t0] () : memref<256x64xf16>
    %ddst, %t2 = gpu.alloc async [%t1] () : memref<256x64xf16>
    %t3 = gpu.memcpy async [%t2] %dsrc, %src : memref<256x64xf16>, memref<256x64xf16>
    gpu.wait [%t3]
    %unranked = memref.cast %dsrc : memref<256x64xf16> to memref<*xf16>
    %d = nvgpu.tma.create.descriptor %unranked box[%c64, %c64] : memref<*xf16> -> !desc

    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      %bytes = arith.constant 8192 : index
      %ticks = arith.constant 1000000 : index
      %phase = arith.constant false
      %k32 = arith.constant 32 : index
      %smem = memref.get_global @tile : memref<64x64xf16, 3>
      %bar = nvgpu.mbarrier.create -> !mbar
      %leader = arith.cmpi eq, %tx, %c0 : index
      scf.if %leader {
        nvgpu.mbarrier.init %bar[%c0], %c1 : !mbar
      }
      gpu.barrier
      %row0 = arith.muli %bx, %c64 : index
      scf.if %leader {
        nvgpu.mbarrier.arrive.expect_tx %bar[%c0], %bytes : !mbar
        // Coordinates innermost first: (column, row).
        nvgpu.tma.async.load %d[%c0, %row0], %bar[%c0] to %smem
            : !desc, !mbar -> memref<64x64xf16, 3>
      }
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase, %ticks : !mbar
      scf.for %k = %c0 to %k32 step %c1 {
        %kk = arith.muli %k, %c128 : index
        %idx = arith.addi %tx, %kk : index
        %r = arith.divui %idx, %c64 : index
        %c = arith.remui %idx, %c64 : index
        %v = memref.load %smem[%r, %c] : memref<64x64xf16, 3>
        %gr = arith.addi %row0, %r : index
        memref.store %v, %ddst[%gr, %c] : memref<256x64xf16>
      }
      gpu.terminator
    }

    %t4 = gpu.wait async
    %t5 = gpu.memcpy async [%t4] %dst, %ddst : memref<256x64xf16>, memref<256x64xf16>
    %t6 = gpu.dealloc async [%t5] %dsrc : memref<256x64xf16>
    %t7 = gpu.dealloc async [%t6] %ddst : memref<256x64xf16>
    gpu.wait [%t7]
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (i64) {
      %racc = scf.for %j = %c0 to %c64 step %c1 iter_args(%a = %acc) -> (i64) {
        %x = memref.load %src[%i, %j] : memref<256x64xf16>
        %y = memref.load %dst[%i, %j] : memref<256x64xf16>
        %ne = arith.cmpf une, %x, %y : f16
        %inc = arith.select %ne, %one, %zero : i64
        %n = arith.addi %a, %inc : i64
        scf.yield %n : i64
      }
      scf.yield %racc : i64
    }
    vector.print str "TMA-loaded 256x64 f16 elements, mismatches: "
    vector.print %bad : i64
    return
  }
}
