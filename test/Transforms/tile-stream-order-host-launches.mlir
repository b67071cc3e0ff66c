// RUN: tile-opt %s -tile-stream-order-host-launches | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | FileCheck %s --check-prefix=LOWER

// CHECK-DAG: llvm.func @mgpuStreamSynchronize(!llvm.ptr)
// CHECK-DAG: llvm.func @mgpuStreamDestroy(!llvm.ptr)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fill(%out: memref<32xf32>) kernel {
      gpu.return
    }
    gpu.func @step(%flag: memref<1xi32>) kernel {
      gpu.return
    }
    gpu.func @take_map(%d: !tile.tma_desc<memref<64x64xf32>, box = [32, 32]>) kernel {
      gpu.return
    }
  }
  func.func private @printMemrefF32(memref<*xf32>)

  // A loop of launches runs back to back on the function's stream; the host
  // synchronizes it once, after the loop, before the memcpy, which keeps its
  // synchronous meaning on a stream of its own. The return destroys the
  // stream.
  // CHECK-LABEL: func.func @launch_loop
  //       CHECK:   %[[S:.*]] = gpu.wait async
  //  CHECK-NEXT:   %[[P:.*]] = builtin.unrealized_conversion_cast %[[S]] : !gpu.async.token to !llvm.ptr
  //       CHECK:   %[[A:.*]] = gpu.wait async
  //  CHECK-NEXT:   %[[DEV:.*]], %[[AT:.*]] = gpu.alloc async [%[[A]]] () : memref<32xf32>
  //  CHECK-NEXT:   gpu.wait [%[[AT]]]
  //       CHECK:   scf.for
  //  CHECK-NEXT:     gpu.launch_func async [%[[S]]] @kernels::@fill
  //  CHECK-NEXT:   }
  //  CHECK-NEXT:   llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:   %[[M:.*]] = gpu.wait async
  //  CHECK-NEXT:   %[[MT:.*]] = gpu.memcpy async [%[[M]]] %{{.*}}, %[[DEV]]
  //  CHECK-NEXT:   gpu.wait [%[[MT]]]
  //  CHECK-NEXT:   memref.cast
  //  CHECK-NEXT:   call @printMemrefF32
  //  CHECK-NEXT:   %[[D:.*]] = gpu.wait async
  //  CHECK-NEXT:   %[[DT:.*]] = gpu.dealloc async [%[[D]]] %[[DEV]]
  //  CHECK-NEXT:   gpu.wait [%[[DT]]]
  //  CHECK-NEXT:   llvm.call @mgpuStreamDestroy(%[[P]])
  //  CHECK-NEXT:   return
  // gpu-to-llvm: the launches go on the stream created at entry, which is
  // synchronized after the loop and destroyed at the return.
  // LOWER-LABEL: llvm.func @launch_loop
  //       LOWER:   %[[S:.*]] = llvm.call @mgpuStreamCreate()
  //       LOWER:   gpu.launch_func <%[[S]] : !llvm.ptr> @kernels::@fill
  //   LOWER-NOT:   llvm.call
  //       LOWER:   llvm.call @mgpuStreamSynchronize(%[[S]])
  //       LOWER:   llvm.call @mgpuMemcpy
  //       LOWER:   llvm.call @printMemrefF32
  //       LOWER:   llvm.call @mgpuStreamDestroy(%[[S]])
  //  LOWER-NEXT:   llvm.return
  func.func @launch_loop(%n: index, %host: memref<32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %dev = gpu.alloc () : memref<32xf32>
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%dev : memref<32xf32>)
    }
    gpu.memcpy %host, %dev : memref<32xf32>, memref<32xf32>
    %cast = memref.cast %host : memref<32xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    gpu.dealloc %dev : memref<32xf32>
    return
  }

  // Host loops without a launch get no synchronization: the one that fills a
  // host buffer after a launch is preceded by one; stores to an alloca need
  // none.
  // CHECK-LABEL: func.func @host_loops
  //       CHECK:   %[[P:.*]] = builtin.unrealized_conversion_cast
  //       CHECK:   scf.for
  //  CHECK-NEXT:     memref.store
  //  CHECK-NEXT:   }
  //  CHECK-NEXT:   gpu.launch_func async
  //  CHECK-NEXT:   llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:   scf.for
  //  CHECK-NEXT:     memref.store
  //  CHECK-NEXT:   }
  //  CHECK-NEXT:   gpu.launch_func async
  //  CHECK-NEXT:   scf.for
  //  CHECK-NEXT:     memref.store
  //  CHECK-NEXT:   }
  //  CHECK-NEXT:   llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:   llvm.call @mgpuStreamDestroy(%[[P]])
  //  CHECK-NEXT:   return
  func.func @host_loops(%n: index, %dev: memref<32xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %f = arith.constant 1.0 : f32
    %host = memref.alloc(%n) : memref<?xf32>
    %scalar = memref.alloca() : memref<1xf32>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %f, %host[%i] : memref<?xf32>
    }
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%dev : memref<32xf32>)
    scf.for %i = %c0 to %n step %c1 {
      memref.store %f, %host[%i] : memref<?xf32>
    }
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%dev : memref<32xf32>)
    scf.for %i = %c0 to %n step %c1 {
      memref.store %f, %scalar[%c0] : memref<1xf32>
    }
    return
  }

  // Launches in scf.if are pending after it; a loop body that prints after
  // its launch synchronizes in the loop, and before its print, which may
  // follow the launch of the previous iteration.
  // CHECK-LABEL: func.func @launches_in_regions
  //       CHECK:   %[[S:.*]] = gpu.wait async
  //  CHECK-NEXT:   %[[P:.*]] = builtin.unrealized_conversion_cast %[[S]]
  //       CHECK:   scf.if
  //  CHECK-NEXT:     gpu.launch_func async [%[[S]]]
  //  CHECK-NEXT:   }
  //  CHECK-NEXT:   llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:   call @printMemrefF32
  //  CHECK-NEXT:   scf.for
  //  CHECK-NEXT:     llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:     call @printMemrefF32
  //  CHECK-NEXT:     gpu.launch_func async [%[[S]]]
  //  CHECK-NEXT:     llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:     call @printMemrefF32
  //  CHECK-NEXT:   }
  //  CHECK-NEXT:   llvm.call @mgpuStreamDestroy(%[[P]])
  //  CHECK-NEXT:   return
  func.func @launches_in_regions(%c: i1, %n: index, %dev: memref<32xf32>,
                                 %host: memref<*xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.if %c {
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%dev : memref<32xf32>)
    }
    func.call @printMemrefF32(%host) : (memref<*xf32>) -> ()
    scf.for %i = %c0 to %n step %c1 {
      func.call @printMemrefF32(%host) : (memref<*xf32>) -> ()
      gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%dev : memref<32xf32>)
      func.call @printMemrefF32(%host) : (memref<*xf32>) -> ()
    }
    return
  }

  // Every return synchronizes and destroys the stream.
  // CHECK-LABEL: func.func @two_returns
  //       CHECK:   %[[P:.*]] = builtin.unrealized_conversion_cast
  //       CHECK:   gpu.launch_func async
  //  CHECK-NEXT:   cf.cond_br
  //  CHECK-NEXT: ^bb1:
  //  CHECK-NEXT:   llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:   llvm.call @mgpuStreamDestroy(%[[P]])
  //  CHECK-NEXT:   return
  //  CHECK-NEXT: ^bb2:
  //  CHECK-NEXT:   llvm.call @mgpuStreamSynchronize(%[[P]])
  //  CHECK-NEXT:   call @printMemrefF32
  //  CHECK-NEXT:   llvm.call @mgpuStreamDestroy(%[[P]])
  //  CHECK-NEXT:   return
  func.func @two_returns(%c: i1, %dev: memref<32xf32>, %host: memref<*xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@fill blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1) args(%dev : memref<32xf32>)
    cf.cond_br %c, ^bb1, ^bb2
  ^bb1:
    return
  ^bb2:
    func.call @printMemrefF32(%host) : (memref<*xf32>) -> ()
    return
  }

  // A memcpy without a launch: async on its own stream, waited for; no
  // function stream.
  // CHECK-LABEL: func.func @memcpy_only
  //   CHECK-NOT:   llvm.call
  //       CHECK:   %[[T:.*]] = gpu.wait async
  //  CHECK-NEXT:   %[[TT:.*]] = gpu.memcpy async [%[[T]]]
  //  CHECK-NEXT:   gpu.wait [%[[TT]]]
  //  CHECK-NEXT:   return
  func.func @memcpy_only(%host: memref<32xf32>, %dev: memref<32xf32>) {
    gpu.memcpy %host, %dev : memref<32xf32>, memref<32xf32>
    return
  }

  // scf.while: the condition runs after the body of the previous iteration,
  // so it reads the flag only after the stream is synchronized.
  // CHECK-LABEL: func.func @while_reads_after_launch
  //       CHECK:   scf.while
  //  CHECK-NEXT:     llvm.call @mgpuStreamSynchronize
  //  CHECK-NEXT:     %{{.*}} = gpu.wait async
  //  CHECK-NEXT:     gpu.memcpy async
  //       CHECK:   } do {
  //  CHECK-NEXT:     gpu.launch_func async
  func.func @while_reads_after_launch(%flag: memref<1xi32>, %dev: memref<1xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    scf.while : () -> () {
      gpu.memcpy %flag, %dev : memref<1xi32>, memref<1xi32>
      %v = memref.load %flag[%c0] : memref<1xi32>
      %go = arith.cmpi eq, %v, %zero : i32
      scf.condition(%go)
    } do {
      gpu.launch_func @kernels::@step blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%dev : memref<1xi32>)
      scf.yield
    }
    return
  }

  // Creating a tensor map writes only the host frame: a loop that encodes a
  // map and launches with it runs back to back.
  // LOWER-LABEL: llvm.func @encode_and_launch_loop
  //   LOWER-NOT:   llvm.call @mgpuStreamSynchronize
  //       LOWER:   llvm.call @tileRtTensorMapEncodeTiledMemref
  //   LOWER-NOT:   llvm.call @mgpuStreamSynchronize
  //       LOWER:   gpu.launch_func
  //   LOWER-NOT:   llvm.call @mgpuStreamSynchronize
  //       LOWER:   llvm.br
  //       LOWER:   llvm.call @mgpuStreamSynchronize
  //       LOWER:   llvm.call @mgpuStreamDestroy
  func.func @encode_and_launch_loop(%n: index, %dev: memref<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      %d = tile.tma_create_descriptor %dev : memref<64x64xf32> -> !tile.tma_desc<memref<64x64xf32>, box = [32, 32]>
      gpu.launch_func @kernels::@take_map blocks in (%c1, %c1, %c1)
          threads in (%c1, %c1, %c1) args(%d : !tile.tma_desc<memref<64x64xf32>, box = [32, 32]>)
    }
    return
  }

  // Async GPU ops and functions without GPU ops are left as they are.
  // CHECK-LABEL: func.func @already_async
  //  CHECK-NEXT:   %[[T:.*]] = gpu.wait async
  //  CHECK-NEXT:   %{{.*}} = gpu.memset async [%[[T]]]
  //  CHECK-NEXT:   gpu.wait
  //  CHECK-NEXT:   return
  func.func @already_async(%dev: memref<32xf32>, %v: f32) {
    %t = gpu.wait async
    %t1 = gpu.memset async [%t] %dev, %v : memref<32xf32>, f32
    gpu.wait [%t1]
    return
  }

  // CHECK-LABEL: func.func @no_gpu
  //  CHECK-NEXT:   %[[A:.*]] = memref.alloc() : memref<32xf32>
  //  CHECK-NEXT:   %[[C:.*]] = memref.cast %[[A]]
  //  CHECK-NEXT:   call @printMemrefF32(%[[C]])
  //  CHECK-NEXT:   memref.dealloc %[[A]]
  //  CHECK-NEXT:   return
  func.func @no_gpu() {
    %a = memref.alloc() : memref<32xf32>
    %cast = memref.cast %a : memref<32xf32> to memref<*xf32>
    call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<32xf32>
    return
  }
}
