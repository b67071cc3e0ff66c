// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @bulk(
func.func @bulk(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %i: index, %n: i32,
                %b: !tile.mbarrier<count = 2>) {
  // CHECK: tile.bulk_copy_global_to_shared %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier<count = 2>
  tile.bulk_copy_global_to_shared %g[%i] to %s[%i], %n, %b[%i] : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier<count = 2>
  // CHECK: tile.bulk_copy_shared_to_global %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}} : memref<1024xf32, 3> to memref<4096xf32>
  tile.bulk_copy_shared_to_global %s[%i] to %g[%i], %n : memref<1024xf32, 3> to memref<4096xf32>
  // CHECK: tile.bulk_commit_group
  tile.bulk_commit_group
  // CHECK: tile.bulk_wait_group 1 read
  tile.bulk_wait_group 1 read
  // CHECK: tile.bulk_wait_group 0{{$}}
  tile.bulk_wait_group 0
  return
}
