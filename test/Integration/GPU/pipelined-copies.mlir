// tile-pipeline-async-copies on a copy-then-reduce K loop (40 tiles of
// 512 floats; each thread sums its neighbour's 4 floats of every tile),
// pipelined with N = 2, 3, 4 and 7 stages. The pipelined kernels pass the
// protocol checker (run by the pipeline) and their sums match the host's.
//
// RUN: tile-opt %s -tile-pipeline-async-copies | tile-run - --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: N = 2: pipelined sum - host sum: 0
// CHECK: N = 3: pipelined sum - host sum: 0
// CHECK: N = 4: pipelined sum - host sum: 0
// CHECK: N = 7: pipelined sum - host sum: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @sum_2(%src: memref<20480xf32>, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
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
      %buf = tile.shared_alloc : memref<512xf32, 3>
      %sum = scf.for %k = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c512 : index
        %from = arith.addi %base, %mine : index
        tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg
            : memref<20480xf32> to memref<512xf32, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        // Read the neighbour's four floats: the barrier is needed.
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %e = arith.addi %theirs, %j : index
          %v = memref.load %buf[%e] : memref<512xf32, 3>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 2 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
    gpu.func @sum_3(%src: memref<20480xf32>, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
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
      %buf = tile.shared_alloc : memref<512xf32, 3>
      %sum = scf.for %k = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c512 : index
        %from = arith.addi %base, %mine : index
        tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg
            : memref<20480xf32> to memref<512xf32, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        // Read the neighbour's four floats: the barrier is needed.
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %e = arith.addi %theirs, %j : index
          %v = memref.load %buf[%e] : memref<512xf32, 3>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 3 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
    gpu.func @sum_4(%src: memref<20480xf32>, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
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
      %buf = tile.shared_alloc : memref<512xf32, 3>
      %sum = scf.for %k = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c512 : index
        %from = arith.addi %base, %mine : index
        tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg
            : memref<20480xf32> to memref<512xf32, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        // Read the neighbour's four floats: the barrier is needed.
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %e = arith.addi %theirs, %j : index
          %v = memref.load %buf[%e] : memref<512xf32, 3>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 4 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
    gpu.func @sum_7(%src: memref<20480xf32>, %out: memref<128xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
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
      %buf = tile.shared_alloc : memref<512xf32, 3>
      %sum = scf.for %k = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c512 : index
        %from = arith.addi %base, %mine : index
        tile.async_copy %src[%from] to %buf[%mine], 16 bytes, cache = cg
            : memref<20480xf32> to memref<512xf32, 3>
        %g = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        // Read the neighbour's four floats: the barrier is needed.
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %e = arith.addi %theirs, %j : index
          %v = memref.load %buf[%e] : memref<512xf32, 3>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        gpu.barrier
        scf.yield %part : f32
      } {tile.pipeline_stages = 7 : i64}
      memref.store %sum, %out[%tid] : memref<128xf32>
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = arith.constant 20480 : index
    %c4 = arith.constant 4 : index
    %c512 = arith.constant 512 : index
    %src = memref.alloc() : memref<20480xf32>
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.remui %i, %c512 : index
      %ii = arith.index_cast %m : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %src[%i] : memref<20480xf32>
    }
    %dsrc = gpu.alloc () : memref<20480xf32>
    %dout = gpu.alloc () : memref<128xf32>
    gpu.memcpy %dsrc, %src : memref<20480xf32>, memref<20480xf32>
    %out = memref.alloc() : memref<128xf32>
    gpu.launch_func @kernels::@sum_2 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dsrc : memref<20480xf32>, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    vector.print str "N = 2: "
    func.call @check(%src, %out) : (memref<20480xf32>, memref<128xf32>) -> ()
    gpu.launch_func @kernels::@sum_3 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dsrc : memref<20480xf32>, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    vector.print str "N = 3: "
    func.call @check(%src, %out) : (memref<20480xf32>, memref<128xf32>) -> ()
    gpu.launch_func @kernels::@sum_4 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dsrc : memref<20480xf32>, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    vector.print str "N = 4: "
    func.call @check(%src, %out) : (memref<20480xf32>, memref<128xf32>) -> ()
    gpu.launch_func @kernels::@sum_7 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%dsrc : memref<20480xf32>, %dout : memref<128xf32>)
    gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
    vector.print str "N = 7: "
    func.call @check(%src, %out) : (memref<20480xf32>, memref<128xf32>) -> ()
    return
  }

  // Prints the difference between the GPU sums and the host's.
  func.func private @check(%src: memref<20480xf32>, %out: memref<128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c40 = arith.constant 40 : index
    %c128 = arith.constant 128 : index
    %c512 = arith.constant 512 : index
    %zero = arith.constant 0.0 : f32
    %diff = scf.for %t = %c0 to %c128 step %c1 iter_args(%d = %zero) -> (f32) {
      %next = arith.addi %t, %c1 : index
      %nb = arith.remui %next, %c128 : index
      %theirs = arith.muli %nb, %c4 : index
      %ref = scf.for %k = %c0 to %c40 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c512 : index
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %e0 = arith.addi %base, %theirs : index
          %e = arith.addi %e0, %j : index
          %v = memref.load %src[%e] : memref<20480xf32>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        scf.yield %part : f32
      }
      %got = memref.load %out[%t] : memref<128xf32>
      %delta = arith.subf %got, %ref : f32
      %abs = math.absf %delta : f32
      %nd = arith.addf %d, %abs : f32
      scf.yield %nd : f32
    }
    vector.print str "pipelined sum - host sum: "
    vector.print %diff : f32
    return
  }
}
