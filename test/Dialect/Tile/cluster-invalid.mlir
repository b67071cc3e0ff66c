// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-CLUSTER-2: mapa maps shared::cta memory.
func.func @map_global(%g: memref<256xi32>, %r: i32) {
  // expected-error @below {{'tile.cluster_map_shared' op expected a shared-memory source, got 'memref<256xi32>' (T-CLUSTER-2)}}
  %m = tile.cluster_map_shared %g, %r : memref<256xi32> -> memref<256xi32, 7>
  return
}

// -----

// T-CLUSTER-2: ... into shared::cluster (address space 7).
func.func @map_to_shared(%s: memref<256xi32, 3>, %r: i32) {
  // expected-error @below {{'tile.cluster_map_shared' op expected a result in shared::cluster memory (address space 7), got 'memref<256xi32, 3>' (T-CLUSTER-2)}}
  %m = tile.cluster_map_shared %s, %r : memref<256xi32, 3> -> memref<256xi32, 3>
  return
}

// -----

// T-CLUSTER-2: the result views the same buffer.
func.func @map_reshape(%s: memref<256xi32, 3>, %r: i32) {
  // expected-error @below {{'tile.cluster_map_shared' op expected the result to view the source's buffer (same shape, element type and layout), got 'memref<256xi32, 3>' and 'memref<128xi32, 7>' (T-CLUSTER-2)}}
  %m = tile.cluster_map_shared %s, %r : memref<256xi32, 3> -> memref<128xi32, 7>
  return
}

// -----

// T-MBAR-4 for remote arrivals.
func.func @remote_index(%b: !tile.mbarrier<scope = cluster>, %r: i32) {
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.mbarrier_arrive_remote' op barrier index 1 is out of range for '!tile.mbarrier<scope = cluster>' (T-MBAR-4)}}
  tile.mbarrier_arrive_remote %b[%c1], %r : !tile.mbarrier<scope = cluster>
  return
}
