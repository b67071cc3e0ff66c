// Cluster launches of 8 blocks: each block writes
// 100 * (cluster id) + (rank of the block in its cluster).
//
// RUN: tile-run %s --chip=sm_90a | FileCheck %s
// CHECK-LABEL: cluster 2x1x1
// CHECK: [0,  1,  100,  101,  200,  201,  300,  301]
// CHECK-LABEL: cluster 4x1x1
// CHECK: [0,  1,  2,  3,  100,  101,  102,  103]

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ranks(%out: memref<8xf32>) kernel {
      %c100 = arith.constant 100 : index
      %bid = gpu.block_id x
      %cid = gpu.cluster_id x
      %rank = gpu.cluster_block_id x
      %hundreds = arith.muli %cid, %c100 : index
      %v = arith.addi %hundreds, %rank : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %out[%bid] : memref<8xf32>
      gpu.return
    }
  }

  func.func @run(%cx: index) {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %host = memref.alloc() : memref<8xf32>
    %t0 = gpu.wait async
    %dev, %t1 = gpu.alloc async [%t0] () : memref<8xf32>
    %t2 = gpu.launch_func async [%t1] @kernels::@ranks clusters in (%cx, %c1, %c1)
        blocks in (%c8, %c1, %c1) threads in (%c32, %c1, %c1) args(%dev : memref<8xf32>)
    %t3 = gpu.memcpy async [%t2] %host, %dev : memref<8xf32>, memref<8xf32>
    %t4 = gpu.dealloc async [%t3] %dev : memref<8xf32>
    gpu.wait [%t4]
    %cast = memref.cast %host : memref<8xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    memref.dealloc %host : memref<8xf32>
    return
  }

  func.func @main() {
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    vector.print str "cluster 2x1x1\n"
    call @run(%c2) : (index) -> ()
    vector.print str "cluster 4x1x1\n"
    call @run(%c4) : (index) -> ()
    return
  }
  func.func private @printMemrefF32(memref<*xf32>)
}
