// A 3-stage (K_STAGE = 3) cp.async pipeline summing 40 tiles of 512 floats:
// two stages in flight before the loop, wait_group(K_STAGE - 2) and a CTA
// barrier before each tile is read (by the neighbouring thread), the next
// copy issued into the stage read two iterations ago. The protocol checker
// accepts it (it runs in the pipeline); the GPU sum matches the host's.
// A second kernel copies with 4-byte `.ca` cp.async (cp-size 4).
//
// RUN: tile-run %s --chip=sm_80 | FileCheck %s
// CHECK: pipelined sum - host sum: 0
// CHECK: 4-byte copy mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @pipelined_sum(%src: memref<20480xf32>, %out: memref<128xf32>)
        workgroup(%smem: memref<3x512xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %tiles = arith.constant 40 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %mine = arith.muli %tid, %c4 : index
      %next = arith.addi %tid, %c1 : index
      %nb = arith.remui %next, %c128 : index
      %theirs = arith.muli %nb, %c4 : index
      // Prologue: K_STAGE - 1 = 2 tiles in flight.
      scf.for %s = %c0 to %c2 step %c1 {
        %base = arith.muli %s, %c512 : index
        %from = arith.addi %base, %mine : index
        tile.async_copy %src[%from] to %smem[%s, %mine], 16 bytes, cache = cg
            : memref<20480xf32> to memref<3x512xf32, #gpu.address_space<workgroup>>
        %g = tile.async_commit_group
      }
      %sum = scf.for %k = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (f32) {
        tile.async_wait_group 1
        gpu.barrier
        %stage = arith.remui %k, %c3 : index
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %e = arith.addi %theirs, %j : index
          %v = memref.load %smem[%stage, %e] : memref<3x512xf32, #gpu.address_space<workgroup>>
          %n = arith.addf %a, %v : f32
          scf.yield %n : f32
        }
        %ahead = arith.addi %k, %c2 : index
        %more = arith.cmpi ult, %ahead, %tiles : index
        scf.if %more {
          %slot = arith.remui %ahead, %c3 : index
          %base = arith.muli %ahead, %c512 : index
          %from = arith.addi %base, %mine : index
          tile.async_copy %src[%from] to %smem[%slot, %mine], 16 bytes, cache = cg
              : memref<20480xf32> to memref<3x512xf32, #gpu.address_space<workgroup>>
        }
        // Commit even when nothing was issued: the group count stays uniform.
        %g = tile.async_commit_group
        scf.yield %part : f32
      }
      tile.async_wait_group 0
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }

    gpu.func @copy4(%src: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%smem: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %tid = gpu.thread_id x
      tile.async_copy %src[%tid] to %smem[%tid], 4 bytes, cache = ca
          : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      tile.async_wait_all
      %v = memref.load %smem[%tid] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<256xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 20480 : index
    %zero = arith.constant 0.0 : f32
    %src = memref.alloc() : memref<20480xf32>
    %expected = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %m = arith.remui %i, %c7 : index
      %mi = arith.index_cast %m : index to i32
      %f = arith.sitofp %mi : i32 to f32
      memref.store %f, %src[%i] : memref<20480xf32>
      %a = arith.addf %acc, %f : f32
      scf.yield %a : f32
    }
    %partials = memref.alloc() : memref<128xf32>
    %t0 = gpu.wait async
    %dsrc, %t1 = gpu.alloc async [%t0] () : memref<20480xf32>
    %dout, %t2 = gpu.alloc async [%t1] () : memref<128xf32>
    %t3 = gpu.memcpy async [%t2] %dsrc, %src : memref<20480xf32>, memref<20480xf32>
    %t4 = gpu.launch_func async [%t3] @kernels::@pipelined_sum blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%dsrc : memref<20480xf32>, %dout : memref<128xf32>)
    %t5 = gpu.memcpy async [%t4] %partials, %dout : memref<128xf32>, memref<128xf32>
    %t6 = gpu.dealloc async [%t5] %dout : memref<128xf32>
    gpu.wait [%t6]
    %total = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %partials[%i] : memref<128xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    %diff = arith.subf %total, %expected : f32
    %diffi = arith.fptosi %diff : f32 to i64
    vector.print str "pipelined sum - host sum: "
    vector.print %diffi : i64

    // 4-byte copies of the first 256 elements.
    %small = memref.alloc() : memref<256xf32>
    %t7 = gpu.wait async
    %dsmall, %t8 = gpu.alloc async [%t7] () : memref<256xf32>
    %head = memref.subview %dsrc[0] [256] [1] : memref<20480xf32> to memref<256xf32, strided<[1]>>
    %headc = memref.cast %head : memref<256xf32, strided<[1]>> to memref<256xf32>
    %t9 = gpu.launch_func async [%t8] @kernels::@copy4 blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%headc : memref<256xf32>, %dsmall : memref<256xf32>)
    %t10 = gpu.memcpy async [%t9] %small, %dsmall : memref<256xf32>, memref<256xf32>
    %t11 = gpu.dealloc async [%t10] %dsmall : memref<256xf32>
    %t12 = gpu.dealloc async [%t11] %dsrc : memref<20480xf32>
    gpu.wait [%t12]
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %z) -> (i64) {
      %x = memref.load %src[%i] : memref<20480xf32>
      %y = memref.load %small[%i] : memref<256xf32>
      %ne = arith.cmpf une, %x, %y : f32
      %inc = arith.select %ne, %o, %z : i64
      %r = arith.addi %acc, %inc : i64
      scf.yield %r : i64
    }
    vector.print str "4-byte copy mismatches: "
    vector.print %bad : i64
    return
  }
}
