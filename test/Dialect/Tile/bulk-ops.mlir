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

// CHECK-LABEL: func.func @bulk_cluster(
func.func @bulk_cluster(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %i: index, %n: i32,
                        %b: !tile.mbarrier<count = 2, scope = cluster>, %mask: i16,
                        %policy: i64, %peer: i32) {
  // CHECK: tile.bulk_copy_global_to_shared {{.*}} multicast %{{.*}} cache_hint %{{.*}} : memref<4096xf32>
  tile.bulk_copy_global_to_shared %g[%i] to %s[%i], %n, %b[%i] multicast %mask cache_hint %policy
      : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier<count = 2, scope = cluster>
  // CHECK: tile.bulk_copy_shared_to_global {{.*}} cache_hint %{{.*}} byte_mask %{{.*}} : memref<1024xf32, 3>
  tile.bulk_copy_shared_to_global %s[%i] to %g[%i], %n cache_hint %policy byte_mask %mask
      : memref<1024xf32, 3> to memref<4096xf32>
  // CHECK: tile.bulk_copy_shared_to_cluster %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}, %{{.*}}[%{{.*}}] rank %{{.*}} : memref<1024xf32, 3> to memref<1024xf32, 3>
  tile.bulk_copy_shared_to_cluster %s[%i] to %s[%i], %n, %b[%i] rank %peer
      : memref<1024xf32, 3> to memref<1024xf32, 3>, !tile.mbarrier<count = 2, scope = cluster>
  // CHECK: tile.bulk_prefetch %{{.*}}[%{{.*}}], %{{.*}} cache_hint %{{.*}} : memref<4096xf32>
  tile.bulk_prefetch %g[%i], %n cache_hint %policy : memref<4096xf32>
  return
}
