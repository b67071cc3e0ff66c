// T-TARGET-3 for the mbarrier family on Ampere: the Hopper-only forms are
// rejected for sm_80, the Ampere subset passes, and everything passes on sm_90a.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target="chip=sm_80"
// RUN: tile-opt %s -split-input-file -tile-check-target="chip=sm_90a" | FileCheck %s --check-prefix=SM90

// SM90-LABEL: func.func @ampere_subset
func.func @ampere_subset(%i: index, %n: i32) {
  %b = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
  tile.mbarrier_init %b[%i], %n : !tile.mbarrier<count = 2>
  tile.async_copy_mbarrier_arrive %b[%i] : !tile.mbarrier<count = 2>
  %t = tile.mbarrier_arrive %b[%i] : !tile.mbarrier<count = 2> -> !tile.mbarrier_token
  %d = tile.mbarrier_test_wait %b[%i], %t : !tile.mbarrier<count = 2>
  tile.mbarrier_inval %b[%i] : !tile.mbarrier<count = 2>
  return
}

// -----

// SM90-LABEL: func.func @expect_tx
func.func @expect_tx(%b: !tile.mbarrier, %i: index, %n: i32) {
  // expected-error @below {{'tile.mbarrier_arrive_expect_tx' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
  %t = tile.mbarrier_arrive_expect_tx %b[%i], %n : !tile.mbarrier -> !tile.mbarrier_token
  return
}

// -----

// SM90-LABEL: func.func @arrive_count
func.func @arrive_count(%b: !tile.mbarrier, %i: index, %n: i32) {
  // expected-error @below {{'tile.mbarrier_arrive' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
  %t = tile.mbarrier_arrive %b[%i], %n : !tile.mbarrier -> !tile.mbarrier_token
  return
}

// -----

// SM90-LABEL: func.func @cluster_scope
func.func @cluster_scope(%i: index, %n: i32) {
  // expected-error @below {{'tile.mbarrier_alloc' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
  %b = tile.mbarrier_alloc : !tile.mbarrier<scope = cluster>
  return
}

// -----

// SM90-LABEL: func.func @wait_parity
func.func @wait_parity(%b: !tile.mbarrier, %i: index, %p: i1) {
  // expected-error @below {{'tile.mbarrier_wait_parity' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
  tile.mbarrier_wait_parity %b[%i], %p : !tile.mbarrier
  return
}

// -----

// SM90-LABEL: func.func @fence
func.func @fence() {
  // expected-error @below {{'tile.fence_proxy_async' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
  tile.fence_proxy_async shared_cta
  return
}

// -----

// SM90-LABEL: func.func @bulk
func.func @bulk(%s: memref<64xf32, 3>, %g: memref<64xf32>, %n: i32, %i: index) {
  // expected-error @below {{'tile.bulk_copy_shared_to_global' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
  tile.bulk_copy_shared_to_global %s[%i] to %g[%i], %n : memref<64xf32, 3> to memref<64xf32>
  return
}

// -----

// The tile-level TMA copy is checked before tile-lower-tile-ops expands it.
// SM90-LABEL: gpu.func @tma_copy
!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
gpu.module @tma {
  gpu.func @tma_copy(%d: !desc, %i: index) kernel {
    %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    // expected-error @below {{'tile.tma_copy' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
    tile.tma_copy %d[%i, %i] to %s, %bars[%i] : !desc, memref<64x64xf16, 3>, !tile.mbarrier<count = 2>
    gpu.return
  }
}

// -----

// stmatrix epilogues need sm_90; plain ones run on sm_80.
// SM90-LABEL: gpu.func @epilogues
gpu.module @epilogue {
  gpu.func @epilogues(%acc: vector<2x4x2x2xf32>, %c: memref<?x?xf16>, %i: index) kernel {
    %sc = tile.shared_alloc : memref<64x64xf16, 3>
    tile.mma_store %acc, %c[%i, %i] {warps = array<i64: 2, 2>} : vector<2x4x2x2xf32>, memref<?x?xf16>
    // expected-error @below {{'tile.mma_store' op requires sm_90 or newer, but the target chip is sm_80 (T-TARGET-3)}}
    tile.mma_store %acc, %sc[%i, %i] {warps = array<i64: 2, 2>, stmatrix} : vector<2x4x2x2xf32>, memref<64x64xf16, 3>
    gpu.return
  }
}
