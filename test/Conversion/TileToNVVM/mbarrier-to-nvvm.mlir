// RUN: tile-opt %s -convert-tile-to-nvvm -split-input-file | FileCheck %s

// A group becomes a private .shared array of i64; %bars[%i] a GEP into it.
// CHECK-LABEL: gpu.module @alloc
//   CHECK-DAG:   llvm.mlir.global internal @__tile_mbarriers() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
//   CHECK-DAG:   llvm.mlir.global internal @__tile_mbarriers_0() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<1 x i64>
// CHECK-LABEL:   gpu.func @f(
//  CHECK-SAME:       %[[I:[a-zA-Z0-9_]+]]: index, %[[N:[a-zA-Z0-9_]+]]: i32, %[[P:[a-zA-Z0-9_]+]]: i1)
//       CHECK:     %[[IDX:.*]] = builtin.unrealized_conversion_cast %[[I]] : index to i64
//       CHECK:     %[[BASE:.*]] = llvm.mlir.addressof @__tile_mbarriers : !llvm.ptr<3>
//       CHECK:     %[[BAR:.*]] = llvm.getelementptr %[[BASE]][%[[IDX]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
//       CHECK:     nvvm.mbarrier.init %[[BAR]], %[[N]] : !llvm.ptr<3>, i32
//       CHECK:     %[[T:.*]] = nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
//       CHECK:     nvvm.mbarrier.arrive.expect_tx %{{.*}}, %[[N]] {{.*}}: !llvm.ptr<3>, i32 -> i64
//       CHECK:     nvvm.mbarrier.expect_tx %{{.*}}, %[[N]] : !llvm.ptr<3>, i32
//       CHECK:     nvvm.mbarrier.complete_tx %{{.*}}, %[[N]] : !llvm.ptr<3>, i32
//       CHECK:     nvvm.mbarrier.arrive_drop %{{.*}} : !llvm.ptr<3> -> i64
//       CHECK:     nvvm.mbarrier.test.wait %{{.*}}, %[[T]] : !llvm.ptr<3>, i64 -> i1
//       CHECK:     nvvm.mbarrier.try_wait %{{.*}}, %[[T]] : !llvm.ptr<3>, i64 -> i1
// try_wait_parity: the i1 phase widens to the i32 parity operand.
//       CHECK:     %[[PH:.*]] = llvm.zext %[[P]] : i1 to i32
//       CHECK:     nvvm.mbarrier.try_wait %{{.*}}, %[[PH]] : !llvm.ptr<3>, i32 -> i1
//       CHECK:     nvvm.cp.async.mbarrier.arrive %{{.*}} {noinc = true} : !llvm.ptr<3>
//       CHECK:     nvvm.mbarrier.inval %{{.*}} : !llvm.ptr<3>
//       CHECK:     llvm.mlir.addressof @__tile_mbarriers_0 : !llvm.ptr<3>
//   CHECK-NOT:     tile.
gpu.module @alloc {
  gpu.func @f(%i: index, %n: i32, %p: i1) kernel {
    %b = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
    tile.mbarrier_init %b[%i], %n : !tile.mbarrier<count = 4>
    %t = tile.mbarrier_arrive %b[%i] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
    %t1 = tile.mbarrier_arrive_expect_tx %b[%i], %n : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
    tile.mbarrier_expect_tx %b[%i], %n : !tile.mbarrier<count = 4>
    tile.mbarrier_complete_tx %b[%i], %n : !tile.mbarrier<count = 4>
    %t2 = tile.mbarrier_arrive_drop %b[%i] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
    %d0 = tile.mbarrier_test_wait %b[%i], %t : !tile.mbarrier<count = 4>
    %d1 = tile.mbarrier_try_wait %b[%i], %t : !tile.mbarrier<count = 4>
    %d2 = tile.mbarrier_try_wait_parity %b[%i], %p : !tile.mbarrier<count = 4>
    tile.async_copy_mbarrier_arrive %b[%i] noinc : !tile.mbarrier<count = 4>
    tile.mbarrier_inval %b[%i] : !tile.mbarrier<count = 4>
    %other = tile.mbarrier_alloc : !tile.mbarrier
    tile.mbarrier_inval %other[%i] : !tile.mbarrier
    gpu.return
  }
}

// -----

// Cluster-scope barriers carry the NVVM cluster scope; the blocking wait is
// a loop on try_wait.parity, structured so it may sit inside scf loops.
// CHECK-LABEL: gpu.func @cluster_wait(
//  CHECK-SAME:     %[[P:[a-zA-Z0-9_]+]]: i1)
//       CHECK:   nvvm.mbarrier.arrive %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3> -> i64
//       CHECK:   scf.while : () -> () {
//       CHECK:     %[[PH:.*]] = llvm.zext %[[P]] : i1 to i32
//       CHECK:     %[[DONE:.*]] = nvvm.mbarrier.try_wait %{{.*}}, %[[PH]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32 -> i1
//       CHECK:     %[[TRUE:.*]] = llvm.mlir.constant(true) : i1
//       CHECK:     %[[PENDING:.*]] = llvm.xor %[[DONE]], %[[TRUE]] : i1
//       CHECK:     scf.condition(%[[PENDING]])
//       CHECK:   } do {
//       CHECK:     scf.yield
gpu.module @cluster {
  gpu.func @cluster_wait(%i: index, %p: i1) kernel {
    %b = tile.mbarrier_alloc : !tile.mbarrier<count = 2, scope = cluster>
    %t = tile.mbarrier_arrive %b[%i] : !tile.mbarrier<count = 2, scope = cluster> -> !tile.mbarrier_token
    tile.mbarrier_wait_parity %b[%i], %p : !tile.mbarrier<count = 2, scope = cluster>
    gpu.return
  }
}

// -----

// CHECK-LABEL: func.func @fences(
//       CHECK:   nvvm.fence.mbarrier.init
//       CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.global>}
//       CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async>}
func.func @fences() {
  tile.fence_mbarrier_init
  tile.fence_proxy_async shared_cta
  tile.fence_proxy_async global
  tile.fence_proxy_async all
  return
}
