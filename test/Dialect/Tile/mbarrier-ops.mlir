// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @mbarrier_family(
//  CHECK-SAME:     %[[I:[a-zA-Z0-9_]+]]: index, %[[N:[a-zA-Z0-9_]+]]: i32, %[[P:[a-zA-Z0-9_]+]]: i1)
func.func @mbarrier_family(%i: index, %n: i32, %p: i1) {
  // CHECK: %[[B:.*]] = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_init %[[B]][%[[I]]], %[[N]] : !tile.mbarrier<count = 4>
  tile.mbarrier_init %b[%i], %n : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_init %[[B]][%[[I]]], %[[N]] if %[[P]] : !tile.mbarrier<count = 4>
  tile.mbarrier_init %b[%i], %n if %p : !tile.mbarrier<count = 4>
  // CHECK: tile.fence_mbarrier_init
  tile.fence_mbarrier_init
  // CHECK: %[[T0:.*]] = tile.mbarrier_arrive %[[B]][%[[I]]] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  %t0 = tile.mbarrier_arrive %b[%i] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  // CHECK: tile.mbarrier_arrive %[[B]][%[[I]]], %[[N]] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  %t1 = tile.mbarrier_arrive %b[%i], %n : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  // CHECK: tile.mbarrier_arrive_expect_tx %[[B]][%[[I]]], %[[N]] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  %t2 = tile.mbarrier_arrive_expect_tx %b[%i], %n : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  // CHECK: tile.mbarrier_arrive_drop %[[B]][%[[I]]] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  %t3 = tile.mbarrier_arrive_drop %b[%i] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
  // CHECK: tile.mbarrier_expect_tx %[[B]][%[[I]]], %[[N]] : !tile.mbarrier<count = 4>
  tile.mbarrier_expect_tx %b[%i], %n : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_complete_tx %[[B]][%[[I]]], %[[N]] : !tile.mbarrier<count = 4>
  tile.mbarrier_complete_tx %b[%i], %n : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_test_wait %[[B]][%[[I]]], %[[T0]] : !tile.mbarrier<count = 4>
  %d0 = tile.mbarrier_test_wait %b[%i], %t0 : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_try_wait %[[B]][%[[I]]], %[[T0]] : !tile.mbarrier<count = 4>
  %d1 = tile.mbarrier_try_wait %b[%i], %t0 : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_try_wait_parity %[[B]][%[[I]]], %[[P]] : !tile.mbarrier<count = 4>
  %d2 = tile.mbarrier_try_wait_parity %b[%i], %p : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_wait_parity %[[B]][%[[I]]], %[[P]] : !tile.mbarrier<count = 4>
  tile.mbarrier_wait_parity %b[%i], %p : !tile.mbarrier<count = 4>
  // CHECK: tile.async_copy_mbarrier_arrive %[[B]][%[[I]]] noinc : !tile.mbarrier<count = 4>
  tile.async_copy_mbarrier_arrive %b[%i] noinc : !tile.mbarrier<count = 4>
  // CHECK: tile.async_copy_mbarrier_arrive %[[B]][%[[I]]] : !tile.mbarrier<count = 4>
  tile.async_copy_mbarrier_arrive %b[%i] : !tile.mbarrier<count = 4>
  // CHECK: tile.mbarrier_inval %[[B]][%[[I]]] : !tile.mbarrier<count = 4>
  tile.mbarrier_inval %b[%i] : !tile.mbarrier<count = 4>
  // CHECK: tile.fence_proxy_async shared_cta
  tile.fence_proxy_async shared_cta
  // CHECK: tile.fence_proxy_async global
  tile.fence_proxy_async global
  // CHECK: tile.fence_proxy_async all
  tile.fence_proxy_async all
  return
}

// CHECK-LABEL: func.func @cluster_scope(
func.func @cluster_scope(%i: index) {
  // CHECK: tile.mbarrier_alloc : !tile.mbarrier<count = 2, scope = cluster>
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 2, scope = cluster>
  %t = tile.mbarrier_arrive %b[%i] : !tile.mbarrier<count = 2, scope = cluster> -> !tile.mbarrier_token
  return
}
