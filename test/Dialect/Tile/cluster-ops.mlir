// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @cluster_ops(
//  CHECK-SAME:     %[[S:[a-zA-Z0-9_]+]]: memref<256xi32, 3>, %[[R:[a-zA-Z0-9_]+]]: i32, %[[I:[a-zA-Z0-9_]+]]: index)
func.func @cluster_ops(%smem: memref<256xi32, 3>, %r: i32, %i: index) {
  // CHECK: tile.cluster_cta_rank : index
  %rank = tile.cluster_cta_rank : index
  // CHECK: tile.cluster_size : index
  %size = tile.cluster_size : index
  // CHECK: tile.cluster_arrive{{$}}
  tile.cluster_arrive
  // CHECK: tile.cluster_arrive relaxed aligned
  tile.cluster_arrive relaxed aligned
  // CHECK: tile.cluster_wait aligned
  tile.cluster_wait aligned
  // CHECK: tile.cluster_map_shared %[[S]], %[[R]] : memref<256xi32, 3> -> memref<256xi32, 7>
  %remote = tile.cluster_map_shared %smem, %r : memref<256xi32, 3> -> memref<256xi32, 7>
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 2, scope = cluster>
  // CHECK: tile.mbarrier_arrive_remote %{{.*}}[%[[I]]], %[[R]] : !tile.mbarrier<count = 2, scope = cluster>
  tile.mbarrier_arrive_remote %b[%i], %r : !tile.mbarrier<count = 2, scope = cluster>
  // CHECK: tile.elect_sync : i1
  %leader = tile.elect_sync : i1
  return
}
