// A plain launch: 4 blocks of 8 threads write blockIdx * 10 + threadIdx.
//
// RUN: tile-run %s | FileCheck %s
// CHECK: data =
// CHECK-NEXT: [0,  1,  2,  3,  4,  5,  6,  7,  10,  11,  12,  13,  14,  15,  16,  17,  20,  21,  22,  23,  24,  25,  26,  27,  30,  31,  32,  33,  34,  35,  36,  37]
//
// --repeat/--time/--time-kernels report per invocation and per kernel.
// RUN: tile-run %s --repeat=3 --time --time-kernels | FileCheck %s --check-prefix=TIME
// TIME: kernel fill: 3 launches, median {{[0-9.]+}} ms, min {{[0-9.]+}} ms, max {{[0-9.]+}} ms, back-to-back mean {{[0-9.]+}} ms
// TIME: tile-run: main: 3 invocations, median {{[0-9.]+}} ms

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<32xf32>) kernel {
      %c8 = arith.constant 8 : index
      %c10 = arith.constant 10 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c8 : index
      %i = arith.addi %base, %tid : index
      %tens = arith.muli %bid, %c10 : index
      %v = arith.addi %tens, %tid : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %out[%i] : memref<32xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %host = memref.alloc() : memref<32xf32>
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<32xf32>
    %t2 = gpu.launch_func async [%t1] @kernels::@fill blocks in (%c4, %c1, %c1)
        threads in (%c8, %c1, %c1) args(%dev : memref<32xf32>)
    %t3 = gpu.memcpy async [%t2] %host, %dev : memref<32xf32>, memref<32xf32>
    %t4 = gpu.dealloc async [%t3] %dev : memref<32xf32>
    gpu.wait [%t4]
    %cast = memref.cast %host : memref<32xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    memref.dealloc %host : memref<32xf32>
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
}
