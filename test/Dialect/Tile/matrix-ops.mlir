// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @matrix
func.func @matrix(%s: memref<64x64xf16, 3>, %t: memref<64x64xbf16, 3>, %i: index,
                  %c: vector<2x2xf32>, %ch: vector<2x2xf16>) {
  // CHECK: tile.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] x4 : memref<64x64xf16, 3> -> vector<4x2xf16>
  %a = tile.ldmatrix %s[%i, %i] x4 : memref<64x64xf16, 3> -> vector<4x2xf16>
  // CHECK: tile.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] x2 trans : memref<64x64xf16, 3> -> vector<2x2xf16>
  %b = tile.ldmatrix %s[%i, %i] x2 trans : memref<64x64xf16, 3> -> vector<2x2xf16>
  // CHECK: tile.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] x1 : memref<64x64xbf16, 3> -> vector<1x2xbf16>
  %e = tile.ldmatrix %t[%i, %i] x1 : memref<64x64xbf16, 3> -> vector<1x2xbf16>
  // CHECK: tile.mma_sync %{{.*}}, %{{.*}}, %{{.*}} {shape = array<i64: 16, 8, 16>} : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>
  %d = tile.mma_sync %a, %b, %c {shape = array<i64: 16, 8, 16>} : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>
  // CHECK: tile.mma_sync {{.*}} : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>
  %dh = tile.mma_sync %a, %b, %ch {shape = array<i64: 16, 8, 16>} : vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>
  // CHECK: tile.stmatrix %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] x2 trans : vector<2x2xf16>, memref<64x64xf16, 3>
  tile.stmatrix %b, %s[%i, %i] x2 trans : vector<2x2xf16>, memref<64x64xf16, 3>
  // CHECK: tile.setmaxnreg dec 40
  tile.setmaxnreg dec 40
  // CHECK: tile.setmaxnreg inc 232
  tile.setmaxnreg inc 232
  return
}
