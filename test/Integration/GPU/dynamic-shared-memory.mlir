// 100000 bytes of dynamic shared memory (more than the 48 KB default, so the
// runtime raises the kernel's limit first): 25000 floats written by 256
// threads, then read back reversed.
//
// RUN: tile-run %s | FileCheck %s
// CHECK: elements wrong: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @reverse(%out: memref<25000xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %n = arith.constant 25000 : index
      %last = arith.constant 24999 : index
      %tid = gpu.thread_id x
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %s = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<25000xf32, #gpu.address_space<workgroup>>
      scf.for %i = %tid to %n step %c256 {
        %ii = arith.index_cast %i : index to i32
        %f = arith.sitofp %ii : i32 to f32
        memref.store %f, %s[%i] : memref<25000xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      scf.for %i = %tid to %n step %c256 {
        %j = arith.subi %last, %i : index
        %v = memref.load %s[%j] : memref<25000xf32, #gpu.address_space<workgroup>>
        memref.store %v, %out[%i] : memref<25000xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 25000 : index
    %last = arith.constant 24999 : index
    %smem = arith.constant 100000 : i32
    %host = memref.alloc() : memref<25000xf32>
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<25000xf32>
    %t2 = gpu.launch_func async [%t1] @kernels::@reverse blocks in (%c1, %c1, %c1)
        threads in (%c256, %c1, %c1) dynamic_shared_memory_size %smem
        args(%dev : memref<25000xf32>)
    %t3 = gpu.memcpy async [%t2] %host, %dev : memref<25000xf32>, memref<25000xf32>
    %t4 = gpu.dealloc async [%t3] %dev : memref<25000xf32>
    gpu.wait [%t4]
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
      %j = arith.subi %last, %i : index
      %ji = arith.index_cast %j : index to i32
      %want = arith.sitofp %ji : i32 to f32
      %got = memref.load %host[%i] : memref<25000xf32>
      %ne = arith.cmpf une, %want, %got : f32
      %inc = arith.select %ne, %one, %zero : i64
      %next = arith.addi %acc, %inc : i64
      scf.yield %next : i64
    }
    vector.print str "elements wrong: "
    vector.print %bad : i64
    memref.dealloc %host : memref<25000xf32>
    return
  }
}
