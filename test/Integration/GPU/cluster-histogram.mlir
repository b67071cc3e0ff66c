// A distributed-shared-memory histogram (CUDA C++ Programming Guide,
// "Distributed Shared Memory"): 256 bins split over the 2 CTAs of a cluster
// (128 bins in each CTA's shared memory). Every CTA counts its 2048 values into the owning CTA's bins with shared::cluster
// atomics (tile.cluster_map_shared), cluster barriers fence the zeroing and
// the counting, and each CTA adds its bins to the global histogram. 4 blocks
// = 2 clusters; the host compares all 256 bins.
//
// RUN: tile-run %s --chip=sm_90a | FileCheck %s
// CHECK: histogram bins wrong: 0
// CHECK: values counted: 8192

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @histogram(%data: memref<8192xi32>, %hist: memref<256xi32>)
        workgroup(%bins: memref<128xi32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c128 = arith.constant 128 : index
      %c2048 = arith.constant 2048 : index
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      %k128 = arith.constant 128 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %rank = tile.cluster_cta_rank : index
      // Zero this CTA's bins, then make sure every CTA of the cluster has.
      memref.store %zero, %bins[%tid] : memref<128xi32, #gpu.address_space<workgroup>>
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      %first = arith.muli %bid, %c2048 : index
      %last = arith.addi %first, %c2048 : index
      %start = arith.addi %first, %tid : index
      scf.for %i = %start to %last step %c128 {
        %v = memref.load %data[%i] : memref<8192xi32>
        %owner = arith.divui %v, %k128 : i32
        %bin = arith.remui %v, %k128 : i32
        %bini = arith.index_cast %bin : i32 to index
        %remote = tile.cluster_map_shared %bins, %owner
            : memref<128xi32, #gpu.address_space<workgroup>> -> memref<128xi32, 7>
        %old = memref.atomic_rmw addi %one, %remote[%bini] : (i32, memref<128xi32, 7>) -> i32
      }
      // All counts landed (and no CTA leaves while others still add).
      tile.cluster_arrive aligned
      tile.cluster_wait aligned
      %mine = memref.load %bins[%tid] : memref<128xi32, #gpu.address_space<workgroup>>
      %base = arith.muli %rank, %c128 : index
      %global = arith.addi %base, %tid : index
      %prev = memref.atomic_rmw addi %mine, %hist[%global] : (i32, memref<256xi32>) -> i32
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %n = arith.constant 8192 : index
    %c37 = arith.constant 37 : index
    %c11 = arith.constant 11 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %data = memref.alloc() : memref<8192xi32>
    %expected = memref.alloc() : memref<256xi32>
    %got = memref.alloc() : memref<256xi32>
    scf.for %b = %c0 to %c256 step %c1 {
      memref.store %zero, %expected[%b] : memref<256xi32>
    }
    scf.for %i = %c0 to %n step %c1 {
      %m = arith.muli %i, %c37 : index
      %a = arith.addi %m, %c11 : index
      %v = arith.remui %a, %c256 : index
      %vi = arith.index_cast %v : index to i32
      memref.store %vi, %data[%i] : memref<8192xi32>
      %old = memref.load %expected[%v] : memref<256xi32>
      %new = arith.addi %old, %one : i32
      memref.store %new, %expected[%v] : memref<256xi32>
    }
    %t0 = gpu.wait async
    %ddata, %t1 = gpu.alloc async [%t0] () : memref<8192xi32>
    %dhist, %t2 = gpu.alloc async [%t1] () : memref<256xi32>
    %t3 = gpu.memcpy async [%t2] %ddata, %data : memref<8192xi32>, memref<8192xi32>
    %t4 = gpu.memset async [%t3] %dhist, %zero : memref<256xi32>, i32
    %t5 = gpu.launch_func async [%t4] @kernels::@histogram clusters in (%c2, %c1, %c1)
        blocks in (%c4, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%ddata : memref<8192xi32>, %dhist : memref<256xi32>)
    %t6 = gpu.memcpy async [%t5] %got, %dhist : memref<256xi32>, memref<256xi32>
    %t7 = gpu.dealloc async [%t6] %ddata : memref<8192xi32>
    %t8 = gpu.dealloc async [%t7] %dhist : memref<256xi32>
    gpu.wait [%t8]
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %bad, %total = scf.for %b = %c0 to %c256 step %c1 iter_args(%acc = %z, %sum = %z) -> (i64, i64) {
      %x = memref.load %expected[%b] : memref<256xi32>
      %y = memref.load %got[%b] : memref<256xi32>
      %ne = arith.cmpi ne, %x, %y : i32
      %inc = arith.select %ne, %o, %z : i64
      %r = arith.addi %acc, %inc : i64
      %y64 = arith.extui %y : i32 to i64
      %s = arith.addi %sum, %y64 : i64
      scf.yield %r, %s : i64, i64
    }
    vector.print str "histogram bins wrong: "
    vector.print %bad : i64
    vector.print str "values counted: "
    vector.print %total : i64
    return
  }
}
