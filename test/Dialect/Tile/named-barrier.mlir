// tile.named_barrier_sync / tile.named_barrier_arrive: round trip, and
// T-BAR-1: a constant id in [9, 16) (0 is gpu.barrier's, 1..8 the tile ops'
// warpgroup barriers), a computed id unchecked, and a thread count that is
// a multiple of 32 in [32, 1024].
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @ping_pong
gpu.module @k {
  gpu.func @ping_pong(%wg: i32) kernel {
    %c9 = arith.constant 9 : i32
    %c15 = arith.constant 15 : i32
    // CHECK: tile.named_barrier_sync %{{.*}}, 256
    tile.named_barrier_sync %c9, 256
    // CHECK: tile.named_barrier_arrive %{{.*}}, 256
    tile.named_barrier_arrive %c15, 256
    // The bounds of the thread count.
    // CHECK: tile.named_barrier_sync %{{.*}}, 32
    tile.named_barrier_sync %c15, 32
    // CHECK: tile.named_barrier_arrive %{{.*}}, 1024
    tile.named_barrier_arrive %c9, 1024
    // A computed id (9 + warpgroup) is not checked.
    %id = arith.addi %c9, %wg : i32
    // CHECK: %[[ID:.*]] = arith.addi
    // CHECK: tile.named_barrier_sync %[[ID]], 128
    tile.named_barrier_sync %id, 128
    // CHECK: tile.named_barrier_arrive %[[ID]], 384
    tile.named_barrier_arrive %id, 384
    gpu.return
  }
}

// -----

func.func @sync_id_0() {
  %id = arith.constant 0 : i32
  // expected-error @below {{named barriers 0 to 8 belong to gpu.barrier and the tile ops' warpgroups: expected an id in [9, 16), got 0 (T-BAR-1)}}
  tile.named_barrier_sync %id, 256
  return
}

// -----

func.func @sync_id_8() {
  %id = arith.constant 8 : i32
  // expected-error @below {{expected an id in [9, 16), got 8 (T-BAR-1)}}
  tile.named_barrier_sync %id, 256
  return
}

// -----

func.func @sync_id_16() {
  %id = arith.constant 16 : i32
  // expected-error @below {{expected an id in [9, 16), got 16 (T-BAR-1)}}
  tile.named_barrier_sync %id, 256
  return
}

// -----

func.func @arrive_id_0() {
  %id = arith.constant 0 : i32
  // expected-error @below {{named barriers 0 to 8 belong to gpu.barrier and the tile ops' warpgroups: expected an id in [9, 16), got 0 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 256
  return
}

// -----

func.func @arrive_id_8() {
  %id = arith.constant 8 : i32
  // expected-error @below {{expected an id in [9, 16), got 8 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 256
  return
}

// -----

func.func @arrive_id_16() {
  %id = arith.constant 16 : i32
  // expected-error @below {{expected an id in [9, 16), got 16 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 256
  return
}

// -----

func.func @arrive_id_negative() {
  %id = arith.constant -1 : i32
  // expected-error @below {{expected an id in [9, 16), got -1 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 256
  return
}

// -----

func.func @sync_threads_0(%id: i32) {
  // expected-error @below {{a named barrier is met by whole warps: expected a multiple of 32 threads in [32, 1024], got 0 (T-BAR-1)}}
  tile.named_barrier_sync %id, 0
  return
}

// -----

func.func @sync_threads_48(%id: i32) {
  // expected-error @below {{a named barrier is met by whole warps: expected a multiple of 32 threads in [32, 1024], got 48 (T-BAR-1)}}
  tile.named_barrier_sync %id, 48
  return
}

// -----

func.func @sync_threads_2048(%id: i32) {
  // expected-error @below {{a named barrier is met by whole warps: expected a multiple of 32 threads in [32, 1024], got 2048 (T-BAR-1)}}
  tile.named_barrier_sync %id, 2048
  return
}

// -----

func.func @arrive_threads_0(%id: i32) {
  // expected-error @below {{expected a multiple of 32 threads in [32, 1024], got 0 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 0
  return
}

// -----

func.func @arrive_threads_48(%id: i32) {
  // expected-error @below {{expected a multiple of 32 threads in [32, 1024], got 48 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 48
  return
}

// -----

func.func @arrive_threads_2048(%id: i32) {
  // expected-error @below {{expected a multiple of 32 threads in [32, 1024], got 2048 (T-BAR-1)}}
  tile.named_barrier_arrive %id, 2048
  return
}

// -----

// (The message prints the attribute unsigned, so only its start is checked.)
func.func @arrive_threads_negative(%id: i32) {
  // expected-error @below {{a named barrier is met by whole warps: expected a multiple of 32 threads in [32, 1024], got}}
  tile.named_barrier_arrive %id, -32
  return
}
