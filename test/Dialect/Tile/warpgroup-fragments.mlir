// The row-wise ops on warpgroup accumulators (online softmax):
// tile.warpgroup_row_reduce (every accepted #vector.kind),
// tile.warpgroup_broadcast_rows and tile.warpgroup_iota: round trip, and
// every message of T-TILE-9 (shapes, element counts, kinds, types, dims).
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: gpu.func @softmax_rows
gpu.module @k {
  gpu.func @softmax_rows(%s: vector<64xf32>, %t: vector<64xf32>) kernel {
    // CHECK: %[[MAX:.*]] = tile.warpgroup_row_reduce <maxnumf> %{{.*}} {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    %max = tile.warpgroup_row_reduce <maxnumf> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    // CHECK: tile.warpgroup_row_reduce <minnumf> %{{.*}} {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    %min = tile.warpgroup_row_reduce <minnumf> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    // CHECK: tile.warpgroup_row_reduce <maximumf> %{{.*}} {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    %maximum = tile.warpgroup_row_reduce <maximumf> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    // CHECK: tile.warpgroup_row_reduce <minimumf> %{{.*}} {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    %minimum = tile.warpgroup_row_reduce <minimumf> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    // CHECK: tile.warpgroup_row_reduce <add> %{{.*}} {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    %sum = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
    // A 128x64 tile: two 64-row blocks, 4 rows a thread.
    // CHECK: tile.warpgroup_row_reduce <mul> %{{.*}} {shape = array<i64: 128, 64>} : vector<64xf32> -> vector<4xf32>
    %prod = tile.warpgroup_row_reduce <mul> %t {shape = array<i64: 128, 64>} : vector<64xf32> -> vector<4xf32>
    // CHECK: tile.warpgroup_broadcast_rows %[[MAX]] {shape = array<i64: 64, 128>} : vector<2xf32> -> vector<64xf32>
    %mb = tile.warpgroup_broadcast_rows %max {shape = array<i64: 64, 128>} : vector<2xf32> -> vector<64xf32>
    // Row values of any element type, e.g. 16-bit ones for a 16-bit tile.
    %h = arith.constant dense<1.0> : vector<4xbf16>
    // CHECK: tile.warpgroup_broadcast_rows %{{.*}} {shape = array<i64: 128, 16>} : vector<4xbf16> -> vector<16xbf16>
    %hb = tile.warpgroup_broadcast_rows %h {shape = array<i64: 128, 16>} : vector<4xbf16> -> vector<16xbf16>
    // CHECK: tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
    %cols = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
    // CHECK: tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 128, 8>} : vector<8xi32>
    %rows = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 128, 8>} : vector<8xi32>
    gpu.return
  }
}

// -----

// Integer and bitwise kinds do not reduce f32 rows.
func.func @reduce_kind_and(%s: vector<64xf32>) {
  // expected-error @below {{reduces f32 rows with add, mul, maxnumf, minnumf, maximumf or minimumf, got and (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <and> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_kind_maxsi(%s: vector<64xf32>) {
  // expected-error @below {{reduces f32 rows with add, mul, maxnumf, minnumf, maximumf or minimumf, got maxsi (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <maxsi> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_kind_xor(%s: vector<64xf32>) {
  // expected-error @below {{got xor (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <xor> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_shape_m(%s: vector<64xf32>) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 32, 256>} : vector<64xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_shape_n(%s: vector<6xf32>) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 64, 12>} : vector<6xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_shape_rank(%s: vector<64xf32>) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 64, 128, 16>} : vector<64xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_elements(%s: vector<32xf32>) {
  // expected-error @below {{a thread holds 64 elements of a 64x128 warpgroup tile, got 'vector<32xf32>' (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 64, 128>} : vector<32xf32> -> vector<2xf32>
  return
}

// -----

func.func @reduce_rows(%s: vector<64xf32>) {
  // expected-error @below {{a thread holds 2 rows of a 64-row warpgroup tile, got 'vector<4xf32>' (T-TILE-9)}}
  %0 = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<4xf32>
  return
}

// -----

func.func @reduce_f16(%s: vector<64xf16>) {
  // expected-error @below {{operand #0 must be vector of 32-bit float values of ranks 1, but got 'vector<64xf16>'}}
  %0 = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 64, 128>} : vector<64xf16> -> vector<2xf32>
  return
}

// -----

func.func @broadcast_types(%m: vector<2xf32>) {
  // expected-error @below {{expected row values and accumulators of one element type (T-TILE-9)}}
  %0 = tile.warpgroup_broadcast_rows %m {shape = array<i64: 64, 128>} : vector<2xf32> -> vector<64xf16>
  return
}

// -----

func.func @broadcast_rows(%m: vector<2xf32>) {
  // expected-error @below {{a thread holds 4 rows of a 128-row warpgroup tile, got 'vector<2xf32>' (T-TILE-9)}}
  %0 = tile.warpgroup_broadcast_rows %m {shape = array<i64: 128, 64>} : vector<2xf32> -> vector<64xf32>
  return
}

// -----

func.func @broadcast_elements(%m: vector<2xf32>) {
  // expected-error @below {{a thread holds 64 elements of a 64x128 warpgroup tile, got 'vector<32xf32>' (T-TILE-9)}}
  %0 = tile.warpgroup_broadcast_rows %m {shape = array<i64: 64, 128>} : vector<2xf32> -> vector<32xf32>
  return
}

// -----

func.func @broadcast_shape(%m: vector<2xf32>) {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-9)}}
  %0 = tile.warpgroup_broadcast_rows %m {shape = array<i64: 0, 128>} : vector<2xf32> -> vector<64xf32>
  return
}

// -----

func.func @iota_dim() {
  // expected-error @below {{dim is 0 (rows) or 1 (columns), got 2 (T-TILE-9)}}
  %0 = tile.warpgroup_iota {dim = 2 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
  return
}

// -----

// (The message prints the attribute unsigned, so only its start is checked.)
func.func @iota_negative_dim() {
  // expected-error @below {{dim is 0 (rows) or 1 (columns), got}}
  %0 = tile.warpgroup_iota {dim = -1 : i64, shape = array<i64: 64, 128>} : vector<64xi32>
  return
}

// -----

func.func @iota_elements() {
  // expected-error @below {{a thread holds 128 elements of a 128x128 warpgroup tile, got 'vector<64xi32>' (T-TILE-9)}}
  %0 = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 128, 128>} : vector<64xi32>
  return
}

// -----

func.func @iota_shape() {
  // expected-error @below {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-9)}}
  %0 = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 64, 100>} : vector<50xi32>
  return
}

// -----

func.func @iota_type() {
  // expected-error @below {{result #0 must be vector of 32-bit signless integer values of ranks 1, but got 'vector<64xi64>'}}
  %0 = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 64, 128>} : vector<64xi64>
  return
}
