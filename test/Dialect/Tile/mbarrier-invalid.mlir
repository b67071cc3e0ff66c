// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-MBAR-2: the arrival count of mbarrier.init is in [1, 2^20 - 1].
func.func @init_zero(%b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  // expected-error @below {{'tile.mbarrier_init' op arrival count must be in [1, 2^20 - 1], got 0 (T-MBAR-2)}}
  tile.mbarrier_init %b[%c0], %zero : !tile.mbarrier
  return
}

// -----

// T-MBAR-2: ... and below 2^20.
func.func @init_huge(%b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 1048576 : i32
  // expected-error @below {{'tile.mbarrier_init' op arrival count must be in [1, 2^20 - 1], got 1048576 (T-MBAR-2)}}
  tile.mbarrier_init %b[%c0], %big : !tile.mbarrier
  return
}

// -----

// T-MBAR-2: arrive counts too.
func.func @arrive_count(%b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  // expected-error @below {{'tile.mbarrier_arrive' op arrival count must be in [1, 2^20 - 1], got 0 (T-MBAR-2)}}
  %t = tile.mbarrier_arrive %b[%c0], %zero : !tile.mbarrier -> !tile.mbarrier_token
  return
}

// -----

// T-MBAR-3: transaction bytes are in [0, 2^20 - 1].
func.func @expect_tx_huge(%b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 2097152 : i32
  // expected-error @below {{'tile.mbarrier_arrive_expect_tx' op transaction bytes must be in [0, 2^20 - 1], got 2097152 (T-MBAR-3)}}
  %t = tile.mbarrier_arrive_expect_tx %b[%c0], %big : !tile.mbarrier -> !tile.mbarrier_token
  return
}

// -----

func.func @complete_tx_negative(%b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %neg = arith.constant -16 : i32
  // expected-error @below {{'tile.mbarrier_complete_tx' op transaction bytes must be in [0, 2^20 - 1], got -16 (T-MBAR-3)}}
  tile.mbarrier_complete_tx %b[%c0], %neg : !tile.mbarrier
  return
}

// -----

func.func @expect_tx_huge_plain(%b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %big = arith.constant 2097152 : i32
  // expected-error @below {{'tile.mbarrier_expect_tx' op transaction bytes must be in [0, 2^20 - 1], got 2097152 (T-MBAR-3)}}
  tile.mbarrier_expect_tx %b[%c0], %big : !tile.mbarrier
  return
}

// -----

// T-MBAR-4: a static index selects a barrier of the group.
func.func @index_out_of_range(%b: !tile.mbarrier<count = 4>, %p: i1) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{'tile.mbarrier_wait_parity' op barrier index 4 is out of range for '!tile.mbarrier<count = 4>' (T-MBAR-4)}}
  tile.mbarrier_wait_parity %b[%c4], %p : !tile.mbarrier<count = 4>
  return
}

// -----

func.func @index_negative(%b: !tile.mbarrier<count = 4>) {
  %cm1 = arith.constant -1 : index
  // expected-error @below {{'tile.mbarrier_inval' op barrier index -1 is out of range for '!tile.mbarrier<count = 4>' (T-MBAR-4)}}
  tile.mbarrier_inval %b[%cm1] : !tile.mbarrier<count = 4>
  return
}

// -----

// T-MBAR-5: cp.async.mbarrier.arrive tracks this CTA's copies.
func.func @cp_async_arrive_cluster(%b: !tile.mbarrier<scope = cluster>, %i: index) {
  // expected-error @below {{'tile.async_copy_mbarrier_arrive' op tracks cp.async copies on a barrier of this CTA; got a cluster-scope '!tile.mbarrier<scope = cluster>' (T-MBAR-5)}}
  tile.async_copy_mbarrier_arrive %b[%i] : !tile.mbarrier<scope = cluster>
  return
}

// -----

func.func @fence_space() {
  // expected-error @below {{expected a proxy fence space (shared_cta, global, all), got 'shared_cluster'}}
  tile.fence_proxy_async shared_cluster
  return
}
