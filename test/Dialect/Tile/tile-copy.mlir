// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @copy
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8):(1,1)>} : memref<?x?xf16> to memref<128x32xf16, 3>
func.func @copy(%a: memref<?x?xf16>, %s: memref<128x32xf16, 3>, %i: index) {
  tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<?x?xf16> to memref<128x32xf16, 3>
  return
}

// -----

func.func @not_whole_tilers(%a: memref<?x?xf16>, %s: memref<48x32xf16, 3>, %i: index) {
  // expected-error @below {{tile 'memref<48x32xf16, 3>' is not a whole number of 32x32 tilers (T-TILE-1)}}
  tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<?x?xf16> to memref<48x32xf16, 3>
  return
}

// -----

// Values down a column are not contiguous in a row-major tile.
func.func @column_values(%a: memref<?x?xf16>, %s: memref<64x64xf16, 3>, %i: index) {
  // expected-error @below {{thread 0's values are not contiguous along the rows, so one cp.async cannot copy them (T-TILE-1)}}
  tile.copy %a[%i, %i] to %s {threads = #tile.layout<(8,16):(16,1)>, values = #tile.layout<(8,1)>}
      : memref<?x?xf16> to memref<64x64xf16, 3>
  return
}

// -----

func.func @copy_size(%a: memref<?x?xf16>, %s: memref<32x48xf16, 3>, %i: index) {
  // expected-error @below {{each thread copies 12 bytes; cp.async copies 4, 8 or 16 (T-TILE-1)}}
  tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,8):(8,1)>, values = #tile.layout<(1,6)>}
      : memref<?x?xf16> to memref<32x48xf16, 3>
  return
}

// -----

func.func @to_global(%a: memref<?x?xf16>, %g: memref<32x32xf16>, %i: index) {
  // expected-error @below {{expected a global and a dense shared memref of one integer or float element type of whole bytes, got 'memref<?x?xf16>' and 'memref<32x32xf16>' (T-TILE-1)}}
  tile.copy %a[%i, %i] to %g {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<?x?xf16> to memref<32x32xf16>
  return
}

// -----

// A stage of a ring, and the shared-to-global direction (epilogue).
// CHECK-LABEL: func.func @staged
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}] {{.*}} : memref<?x?xf16> to memref<3x128x32xf16, 3>
// CHECK: tile.copy %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] {{.*}} : memref<3x128x32xf16, 3> to memref<?x?xf16>
func.func @staged(%a: memref<?x?xf16>, %s: memref<3x128x32xf16, 3>, %i: index) {
  tile.copy %a[%i, %i] to %s[%i] {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<?x?xf16> to memref<3x128x32xf16, 3>
  tile.copy %s[%i] to %a[%i, %i] {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<3x128x32xf16, 3> to memref<?x?xf16>
  return
}

// -----

func.func @missing_stage(%a: memref<?x?xf16>, %s: memref<3x128x32xf16, 3>, %i: index) {
  // expected-error @below {{copies rank-2 tiles: a rank-2 global memref with its (row, column) and a shared tile indexed in its leading dimensions (T-TILE-1)}}
  tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<?x?xf16> to memref<3x128x32xf16, 3>
  return
}

// -----

func.func @store_bounds(%a: memref<?x?xf16>, %s: memref<128x32xf16, 3>, %i: index) {
  // expected-error @below {{takes 2 bounds [rows, columns] of the global matrix, got 1 (T-TILE-1)}}
  tile.copy %s to %a[%i, %i] bounds [%i] {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<128x32xf16, 3> to memref<?x?xf16>
  return
}

// -----

// T-TILE-5: the expansion is bounded (a 4096x1024 tile of 32x32 tilers is
// 4096 copies per thread; one more row of tilers is too many).
func.func @too_many_copies(%a: memref<?x?xf16>, %s: memref<4128x1024xf16, 3>, %i: index) {
  // expected-error @below {{expands into 4128 copies per thread; at most 4096: loop over smaller tiles (T-TILE-5)}}
  tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
      : memref<?x?xf16> to memref<4128x1024xf16, 3>
  return
}
