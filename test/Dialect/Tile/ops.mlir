// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @async_copy_forms(
//  CHECK-SAME:     %[[G:[a-zA-Z0-9_]+]]: memref<128x128xf16>,
//  CHECK-SAME:     %[[S:[a-zA-Z0-9_]+]]: memref<64x32xf16, 3>,
//  CHECK-SAME:     %[[I:[a-zA-Z0-9_]+]]: index, %[[N:[a-zA-Z0-9_]+]]: i32, %[[P:[a-zA-Z0-9_]+]]: i1)
func.func @async_copy_forms(%g: memref<128x128xf16>, %s: memref<64x32xf16, 3>,
                            %i: index, %n: i32, %p: i1) {
  // CHECK: tile.async_copy %[[G]][%[[I]], %[[I]]] to %[[S]][%[[I]], %[[I]]], 16 bytes, cache = cg : memref<128x128xf16> to memref<64x32xf16, 3>
  tile.async_copy %g[%i, %i] to %s[%i, %i], 16 bytes, cache = cg
      : memref<128x128xf16> to memref<64x32xf16, 3>
  // CHECK: tile.async_copy %[[G]][%[[I]], %[[I]]] to %[[S]][%[[I]], %[[I]]], 4 bytes, cache = ca, l2_prefetch = b256 :
  tile.async_copy %g[%i, %i] to %s[%i, %i], 4 bytes, cache = ca, l2_prefetch = b256
      : memref<128x128xf16> to memref<64x32xf16, 3>
  // CHECK: tile.async_copy {{.*}}, 8 bytes, cache = ca, src_bytes = %[[N]] :
  tile.async_copy %g[%i, %i] to %s[%i, %i], 8 bytes, cache = ca, src_bytes = %n
      : memref<128x128xf16> to memref<64x32xf16, 3>
  // CHECK: tile.async_copy {{.*}}, 16 bytes, cache = cg, l2_prefetch = b128, ignore_src = %[[P]] :
  tile.async_copy %g[%i, %i] to %s[%i, %i], 16 bytes, cache = cg, l2_prefetch = b128, ignore_src = %p
      : memref<128x128xf16> to memref<64x32xf16, 3>
  // CHECK: tile.async_copy {{.*}}, 16 bytes, cache = cg, l2_prefetch = b64, src_bytes = %[[N]], cache_policy = %{{.*}} :
  %pol = arith.constant 0 : i64
  tile.async_copy %g[%i, %i] to %s[%i, %i], 16 bytes, cache = cg, cache_policy = %pol, src_bytes = %n, l2_prefetch = b64
      : memref<128x128xf16> to memref<64x32xf16, 3>
  return
}

// The gpu dialect's symbolic address spaces are accepted too.
// CHECK-LABEL: func.func @async_copy_gpu_spaces(
func.func @async_copy_gpu_spaces(%g: memref<?x64xf32, #gpu.address_space<global>>,
                                 %s: memref<8x64xf32, #gpu.address_space<workgroup>>,
                                 %i: index) {
  // CHECK: tile.async_copy {{.*}} : memref<?x64xf32, #gpu.address_space<global>> to memref<8x64xf32, #gpu.address_space<workgroup>>
  tile.async_copy %g[%i, %i] to %s[%i, %i], 16 bytes, cache = cg
      : memref<?x64xf32, #gpu.address_space<global>> to memref<8x64xf32, #gpu.address_space<workgroup>>
  return
}

// CHECK-LABEL: func.func @groups(
func.func @groups() {
  // CHECK: %[[G0:.*]] = tile.async_commit_group
  %g0 = tile.async_commit_group
  // CHECK: %[[G1:.*]] = tile.async_commit_group
  %g1 = tile.async_commit_group
  // CHECK: tile.async_wait_group 1 for %[[G0]]
  tile.async_wait_group 1 for %g0
  // CHECK: tile.async_wait_group 0 for %[[G0]], %[[G1]]
  tile.async_wait_group 0 for %g0, %g1
  // CHECK: tile.async_wait_group 2{{$}}
  tile.async_wait_group 2
  // CHECK: tile.async_wait_all
  tile.async_wait_all
  return
}

// Group tokens flow through loops as iter_args (a K-stage ring).
// CHECK-LABEL: func.func @group_in_loop(
func.func @group_in_loop(%n: index) -> !tile.async_group {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g0 = tile.async_commit_group
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (!tile.async_group)
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%prev = %g0) -> (!tile.async_group) {
    tile.async_wait_group 0 for %prev
    %g = tile.async_commit_group
    scf.yield %g : !tile.async_group
  }
  return %r : !tile.async_group
}
