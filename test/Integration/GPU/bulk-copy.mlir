// A 1D bulk copy (PTX ISA, "cp.async.bulk"): one thread moves 4096 bytes
// global -> shared with cp.async.bulk, completing on an mbarrier (expect_tx
// 4096 bytes); the block doubles the values with generic stores, orders them
// before the async proxy with fence.proxy.async, and one thread copies the
// buffer back with a bulk shared -> global copy, committed and waited as a
// bulk group.
//
// RUN: tile-run %s --chip=sm_90a | FileCheck %s
// CHECK: bulk round trip mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @bulk_round_trip(%src: memref<1024xf32>, %dst: memref<1024xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 4096 : i32
      %false = arith.constant false
      %two = arith.constant 2.0 : f32
      %tid = gpu.thread_id x
      %s = tile.shared_alloc : memref<1024xf32, #gpu.address_space<workgroup>>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier
      }
      gpu.barrier
      scf.if %leader {
        %t = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !tile.mbarrier -> !tile.mbarrier_token
        tile.bulk_copy_global_to_shared %src[%c0] to %s[%c0], %bytes, %bars[%c0]
            : memref<1024xf32> to memref<1024xf32, #gpu.address_space<workgroup>>, !tile.mbarrier
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !tile.mbarrier
      scf.for %j = %c0 to %c8 step %c1 {
        %jj = arith.muli %j, %c128 : index
        %i = arith.addi %tid, %jj : index
        %v = memref.load %s[%i] : memref<1024xf32, #gpu.address_space<workgroup>>
        %d = arith.mulf %v, %two : f32
        memref.store %d, %s[%i] : memref<1024xf32, #gpu.address_space<workgroup>>
      }
      tile.fence_proxy_async shared_cta
      gpu.barrier
      scf.if %leader {
        tile.bulk_copy_shared_to_global %s[%c0] to %dst[%c0], %bytes
            : memref<1024xf32, #gpu.address_space<workgroup>> to memref<1024xf32>
        tile.bulk_commit_group
        tile.bulk_wait_group 0
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = arith.constant 1024 : index
    %src = memref.alloc() : memref<1024xf32>
    %out = memref.alloc() : memref<1024xf32>
    scf.for %i = %c0 to %n step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %src[%i] : memref<1024xf32>
    }
    %t0 = gpu.wait async
    %dsrc, %t1 = gpu.alloc async [%t0] () : memref<1024xf32>
    %dout, %t2 = gpu.alloc async [%t1] () : memref<1024xf32>
    %t3 = gpu.memcpy async [%t2] %dsrc, %src : memref<1024xf32>, memref<1024xf32>
    %t4 = gpu.launch_func async [%t3] @kernels::@bulk_round_trip blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%dsrc : memref<1024xf32>, %dout : memref<1024xf32>)
    %t5 = gpu.memcpy async [%t4] %out, %dout : memref<1024xf32>, memref<1024xf32>
    %t6 = gpu.dealloc async [%t5] %dsrc : memref<1024xf32>
    %t7 = gpu.dealloc async [%t6] %dout : memref<1024xf32>
    gpu.wait [%t7]
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %two = arith.constant 2.0 : f32
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
      %x = memref.load %src[%i] : memref<1024xf32>
      %x2 = arith.mulf %x, %two : f32
      %y = memref.load %out[%i] : memref<1024xf32>
      %ne = arith.cmpf une, %x2, %y : f32
      %inc = arith.select %ne, %o, %z : i64
      %r = arith.addi %acc, %inc : i64
      scf.yield %r : i64
    }
    vector.print str "bulk round trip mismatches: "
    vector.print %bad : i64
    return
  }
}
