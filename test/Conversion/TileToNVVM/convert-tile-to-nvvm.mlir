// RUN: tile-opt %s -convert-tile-to-nvvm -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @async_copy_cg(
//  CHECK-SAME:     %[[G:[a-zA-Z0-9_]+]]: memref<128x64xf16>, %[[S:[a-zA-Z0-9_]+]]: memref<64x64xf16, 3>,
//  CHECK-SAME:     %[[I:[a-zA-Z0-9_]+]]: index, %[[J:[a-zA-Z0-9_]+]]: index)
func.func @async_copy_cg(%g: memref<128x64xf16>, %s: memref<64x64xf16, 3>, %i: index, %j: index) {
  // The shared address: base + i * 64 + j elements of the destination.
  //   CHECK-DAG: %[[SD:.*]] = builtin.unrealized_conversion_cast %[[S]] : memref<64x64xf16, 3> to !llvm.struct<(ptr<3>, ptr<3>, i64, array<2 x i64>, array<2 x i64>)>
  //   CHECK-DAG: %[[GD:.*]] = builtin.unrealized_conversion_cast %[[G]] : memref<128x64xf16> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  //       CHECK: %[[SBASE:.*]] = llvm.extractvalue %[[SD]][1]
  //       CHECK: %[[SPTR:.*]] = llvm.getelementptr %[[SBASE]][%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, f16
  //       CHECK: %[[GBASE:.*]] = llvm.extractvalue %[[GD]][1]
  //       CHECK: %[[GPTR:.*]] = llvm.getelementptr %[[GBASE]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f16
  // cp.async reads a .global address: the generic pointer is cast.
  //       CHECK: %[[GLOBAL:.*]] = llvm.addrspacecast %[[GPTR]] : !llvm.ptr to !llvm.ptr<1>
  //       CHECK: nvvm.cp.async.shared.global %[[SPTR]], %[[GLOBAL]], 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
  tile.async_copy %g[%i, %j] to %s[%i, %j], 16 bytes, cache = cg : memref<128x64xf16> to memref<64x64xf16, 3>
  //   CHECK-NOT: tile.
  return
}

// -----

// A memref already in the global space needs no cast; ca with 4 bytes.
// CHECK-LABEL: func.func @async_copy_ca_global_space(
func.func @async_copy_ca_global_space(%g: memref<256xf32, 1>, %s: memref<256xf32, #gpu.address_space<workgroup>>, %i: index) {
  //   CHECK-NOT: llvm.addrspacecast
  //       CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache = ca : !llvm.ptr<3>, !llvm.ptr<1>
  tile.async_copy %g[%i] to %s[%i], 4 bytes, cache = ca : memref<256xf32, 1> to memref<256xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// src_bytes becomes the src-size operand (zero-fill of the rest).
// CHECK-LABEL: func.func @async_copy_src_bytes(
//  CHECK-SAME:     %[[N:[a-zA-Z0-9_]+]]: i32)
func.func @async_copy_src_bytes(%g: memref<256xf32>, %s: memref<256xf32, 3>, %i: index, %n: i32) {
  //       CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 8, cache = ca, %[[N]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
  tile.async_copy %g[%i] to %s[%i], 8 bytes, cache = ca, src_bytes = %n : memref<256xf32> to memref<256xf32, 3>
  return
}

// -----

// ignore_src becomes src-size = (p ? 0 : cp-size).
// CHECK-LABEL: func.func @async_copy_ignore_src(
//  CHECK-SAME:     %[[P:[a-zA-Z0-9_]+]]: i1)
func.func @async_copy_ignore_src(%g: memref<256xf32>, %s: memref<256xf32, 3>, %i: index, %p: i1) {
  //   CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
  //   CHECK-DAG: %[[FULL:.*]] = llvm.mlir.constant(16 : i32) : i32
  //       CHECK: %[[SIZE:.*]] = llvm.select %[[P]], %[[ZERO]], %[[FULL]] : i1, i32
  //       CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]]
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, ignore_src = %p : memref<256xf32> to memref<256xf32, 3>
  return
}

// -----

// NVVM has no prefetch-size qualifier: inline PTX (PTX ISA 9.7.9.25.3.1).
// CHECK-LABEL: func.func @async_copy_l2_prefetch(
func.func @async_copy_l2_prefetch(%g: memref<256xf32>, %s: memref<256xf32, 3>, %i: index, %n: i32) {
  //       CHECK: nvvm.inline_ptx "cp.async.cg.shared.global.L2::128B [$0], [$1], 16;" ro(%{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>)
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, l2_prefetch = b128 : memref<256xf32> to memref<256xf32, 3>
  //       CHECK: nvvm.inline_ptx "cp.async.ca.shared.global.L2::256B [$0], [$1], 4, $2;" ro(%{{.*}}, %{{.*}}, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32)
  tile.async_copy %g[%i] to %s[%i], 4 bytes, cache = ca, l2_prefetch = b256, src_bytes = %n : memref<256xf32> to memref<256xf32, 3>
  return
}

// -----

// A cache policy is the .L2::cache_hint qualifier and a trailing operand.
// CHECK-LABEL: func.func @async_copy_cache_policy(
//  CHECK-SAME:     %[[N:[a-zA-Z0-9_]+]]: i32, %[[POL:[a-zA-Z0-9_]+]]: i64)
func.func @async_copy_cache_policy(%g: memref<256xf32>, %s: memref<256xf32, 3>, %i: index, %n: i32, %pol: i64) {
  //       CHECK: nvvm.inline_ptx "cp.async.cg.shared.global.L2::cache_hint [$0], [$1], 16, $2;" ro(%{{.*}}, %{{.*}}, %[[POL]] : !llvm.ptr<3>, !llvm.ptr<1>, i64)
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, cache_policy = %pol : memref<256xf32> to memref<256xf32, 3>
  //       CHECK: nvvm.inline_ptx "cp.async.ca.shared.global.L2::cache_hint.L2::128B [$0], [$1], 8, $2, $3;" ro(%{{.*}}, %{{.*}}, %[[N]], %[[POL]] : !llvm.ptr<3>, !llvm.ptr<1>, i32, i64)
  tile.async_copy %g[%i] to %s[%i], 8 bytes, cache = ca, l2_prefetch = b128, src_bytes = %n, cache_policy = %pol : memref<256xf32> to memref<256xf32, 3>
  return
}

// -----

// CHECK-LABEL: func.func @groups(
func.func @groups() {
  //       CHECK: nvvm.cp.async.commit.group
  %g0 = tile.async_commit_group
  //       CHECK: nvvm.cp.async.commit.group
  %g1 = tile.async_commit_group
  //       CHECK: nvvm.cp.async.wait.group 1
  tile.async_wait_group 1 for %g0
  //       CHECK: nvvm.cp.async.wait.group 0
  tile.async_wait_group 0 for %g0, %g1
  // wait_all = commit_group + wait_group 0.
  //       CHECK: nvvm.cp.async.commit.group
  //  CHECK-NEXT: nvvm.cp.async.wait.group 0
  tile.async_wait_all
  //   CHECK-NOT: tile.
  return
}
