// cp.async completion through an mbarrier (cp.async.mbarrier.arrive): 128
// threads copy two 512-float tiles through one shared buffer. Each copy is tracked with
// cp.async.mbarrier.arrive.noinc on barrier 0 (init count 128); threads wait
// on its phase parity (0, then 1), read a neighbour's chunk, then meet on
// barrier 1 (arrive + try_wait on the token) before the buffer is refilled.
//
// RUN: tile-run %s --chip=sm_90a | FileCheck %s
// CHECK: mbarrier-tracked copies, mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @two_phases(%src: memref<1024xf32>, %out: memref<1024xf32>)
        workgroup(%smem: memref<512xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c128 = arith.constant 128 : index
      %c512 = arith.constant 512 : index
      %threads = arith.constant 128 : i32
      %true = arith.constant true
      %tid = gpu.thread_id x
      %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %threads : !tile.mbarrier<count = 2>
        tile.mbarrier_init %bars[%c1], %threads : !tile.mbarrier<count = 2>
      }
      gpu.barrier
      %mine = arith.muli %tid, %c4 : index
      %next = arith.addi %tid, %c1 : index
      %neighbour = arith.remui %next, %c128 : index
      %theirs = arith.muli %neighbour, %c4 : index
      scf.for %k = %c0 to %c2 step %c1 {
        %base = arith.muli %k, %c512 : index
        %from = arith.addi %base, %mine : index
        tile.async_copy %src[%from] to %smem[%mine], 16 bytes, cache = cg
            : memref<1024xf32> to memref<512xf32, #gpu.address_space<workgroup>>
        tile.async_copy_mbarrier_arrive %bars[%c0] noinc : !tile.mbarrier<count = 2>
        %ki = arith.index_cast %k : index to i32
        %phase = arith.trunci %ki : i32 to i1
        tile.mbarrier_wait_parity %bars[%c0], %phase : !tile.mbarrier<count = 2>
        scf.for %j = %c0 to %c4 step %c1 {
          %s = arith.addi %theirs, %j : index
          %v = memref.load %smem[%s] : memref<512xf32, #gpu.address_space<workgroup>>
          %o = arith.addi %base, %s : index
          memref.store %v, %out[%o] : memref<1024xf32>
        }
        // Everyone has read the buffer before anyone refills it.
        %token = tile.mbarrier_arrive %bars[%c1] : !tile.mbarrier<count = 2> -> !tile.mbarrier_token
        scf.while : () -> () {
          %done = tile.mbarrier_try_wait %bars[%c1], %token : !tile.mbarrier<count = 2>
          %pending = arith.xori %done, %true : i1
          scf.condition(%pending)
        } do {
          scf.yield
        }
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
    %t4 = gpu.launch_func async [%t3] @kernels::@two_phases blocks in (%c1, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%dsrc : memref<1024xf32>, %dout : memref<1024xf32>)
    %t5 = gpu.memcpy async [%t4] %out, %dout : memref<1024xf32>, memref<1024xf32>
    %t6 = gpu.dealloc async [%t5] %dsrc : memref<1024xf32>
    %t7 = gpu.dealloc async [%t6] %dout : memref<1024xf32>
    gpu.wait [%t7]
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %x = memref.load %src[%i] : memref<1024xf32>
      %y = memref.load %out[%i] : memref<1024xf32>
      %ne = arith.cmpf une, %x, %y : f32
      %inc = arith.select %ne, %one, %zero : i64
      %r = arith.addi %acc, %inc : i64
      scf.yield %r : i64
    }
    vector.print str "mbarrier-tracked copies, mismatches: "
    vector.print %bad : i64
    return
  }
}
