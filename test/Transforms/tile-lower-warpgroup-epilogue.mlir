// RUN: tile-opt %s -tile-lower-tile-ops -canonicalize | FileCheck %s

// tile.warpgroup_add of a 16-bit residual (unit column stride) to a 64x16
// tile: per element pair one 4-byte vector load at (row + 8 h, column + 8 j)
// from the thread's origin (row 16 (warp mod 4) + lane / 4, column 2 (lane
// mod 4)), each element extended and added. Where the tile lies inside the
// residual, unclamped loads at constant offsets and no selects; else each
// load clamped into it and each sum kept only inside it.
// CHECK-LABEL: gpu.func @residual
//       CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?xbf16, strided<[?, 1]>>
//       CHECK: %[[COLS:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?xbf16, strided<[?, 1]>>
//       CHECK: %[[ROW_END:.*]] = arith.addi %{{.*}}, %c64 : index
//       CHECK: %[[ROWS_FIT:.*]] = arith.cmpi ule, %[[ROW_END]], %[[ROWS]] : index
//       CHECK: %[[COL_END:.*]] = arith.addi %{{.*}}, %c16 : index
//       CHECK: %[[COLS_FIT:.*]] = arith.cmpi ule, %[[COL_END]], %[[COLS]] : index
//       CHECK: %[[WHOLE:.*]] = arith.andi %[[ROWS_FIT]], %[[COLS_FIT]] : i1
//       CHECK: scf.if %[[WHOLE]] -> (vector<8xf32>) {
//   CHECK-NOT: arith.minui
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 4 : i64} : memref<?x?xbf16, strided<[?, 1]>>, vector<2xbf16>
//   CHECK-NOT: arith.select
//       CHECK: } else {
//       CHECK: %[[LAST_ROW:.*]] = arith.subi %[[ROWS]], %c1 : index
//       CHECK: %[[LAST_COL:.*]] = arith.subi %[[COLS]], %c2 : index
//       CHECK: %[[R:.*]] = arith.minui %[[ROW:.*]], %[[LAST_ROW]] : index
//       CHECK: %[[ROW_IN:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
//       CHECK: %[[C:.*]] = arith.minui %[[COL:.*]], %[[LAST_COL]] : index
//       CHECK: %[[COL_IN:.*]] = arith.cmpi ult, %[[COL]], %[[COLS]] : index
//       CHECK: %[[PAIR:.*]] = vector.load %{{.*}}[%[[R]], %[[C]]] {alignment = 4 : i64} : memref<?x?xbf16, strided<[?, 1]>>, vector<2xbf16>
//       CHECK: %[[X0:.*]] = vector.extract %[[PAIR]][0] : bf16 from vector<2xbf16>
//       CHECK: %[[W0:.*]] = arith.extf %[[X0]] : bf16 to f32
//       CHECK: %[[IN:.*]] = arith.andi %[[ROW_IN]], %[[COL_IN]] : i1
//       CHECK: %[[A0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<8xf32>
//       CHECK: %[[S0:.*]] = arith.addf %[[A0]], %[[W0]] : f32
//       CHECK: arith.select %[[IN]], %[[S0]], %[[A0]] : f32
// Four pairs: (row, column + 8), (row + 8, column), (row + 8, column + 8).
// CHECK-COUNT-3: vector.load %{{.*}} {alignment = 4 : i64} : memref<?x?xbf16, strided<[?, 1]>>, vector<2xbf16>
//   CHECK-NOT: vector.load
//       CHECK: gpu.return
gpu.module @residual {
  gpu.func @residual(%acc: vector<8xf32>, %res: memref<?x?xbf16, strided<[?, 1]>>, %m0: index,
                     %n0: index, %out: memref<8xf32>) kernel {
    %0 = tile.warpgroup_add %acc, %res[%m0, %n0] {shape = array<i64: 64, 16>}
        : memref<?x?xbf16, strided<[?, 1]>>, vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// A bias per row (an f32 view with strides [1, 0]): one load per row the
// thread holds (row + 0, row + 8), added to the row's four elements (in
// both branches; the clamped one keeps the sums inside the view).
// CHECK-LABEL: gpu.func @row_bias
//       CHECK: scf.if
//       CHECK: %[[R0:.*]] = memref.load %{{.*}}[%{{.*}}, %c0] : memref<?x?xf32, strided<[1, 0]>>
// CHECK-COUNT-4: arith.addf %{{.*}}, %[[R0]] : f32
//       CHECK: %[[R8:.*]] = memref.load %{{.*}}[%{{.*}}, %c0] : memref<?x?xf32, strided<[1, 0]>>
// CHECK-COUNT-4: arith.addf %{{.*}}, %[[R8]] : f32
//       CHECK: } else {
// CHECK-COUNT-2: memref.load
//   CHECK-NOT: memref.load
gpu.module @row_bias {
  gpu.func @row_bias(%acc: vector<8xf32>, %b: memref<?x?xf32, strided<[1, 0]>>, %m0: index,
                     %n0: index, %out: memref<8xf32>) kernel {
    %0 = tile.warpgroup_add %acc, %b[%m0, %n0] {shape = array<i64: 64, 16>}
        : memref<?x?xf32, strided<[1, 0]>>, vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// A bias per column (a bf16 view with strides [0, 1]) of a 128x8 tile: one
// 4-byte pair load, at row 0, for the thread's two columns, added to all
// four of its rows (64 i + 8 h).
// CHECK-LABEL: gpu.func @column_bias
//       CHECK: scf.if
//       CHECK: %[[PAIR:.*]] = vector.load %{{.*}}[%c0, %{{.*}}] {alignment = 4 : i64} : memref<?x?xbf16, strided<[0, 1]>>, vector<2xbf16>
// CHECK-COUNT-8: arith.addf
//       CHECK: } else {
//       CHECK: vector.load
//   CHECK-NOT: vector.load
gpu.module @column_bias {
  gpu.func @column_bias(%acc: vector<8xf32>, %b: memref<?x?xbf16, strided<[0, 1]>>, %m0: index,
                        %n0: index, %out: memref<8xf32>) kernel {
    %0 = tile.warpgroup_add %acc, %b[%m0, %n0] {shape = array<i64: 128, 8>}
        : memref<?x?xbf16, strided<[0, 1]>>, vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// Gated SiLU of a 64x32 tile (16 accumulators: 4 blocks of 8 columns, 4 a
// thread each): element t of the gate blocks 0 and 2 times element t of
// the up blocks 1 and 3, SiLU as x / (1 + e^-x), each element's chain
// before the next's.
// CHECK-LABEL: gpu.func @swiglu
//       CHECK: %[[G0:.*]] = vector.extract %[[ACC:.*]][0] : f32 from vector<16xf32>
//       CHECK: %[[NEG:.*]] = arith.negf %[[G0]] : f32
//       CHECK: %[[EXP:.*]] = math.exp %[[NEG]] fastmath<afn> : f32
//       CHECK: %[[DEN:.*]] = arith.addf %[[EXP]], %{{.*}} : f32
//       CHECK: %[[SILU:.*]] = arith.divf %[[G0]], %[[DEN]] fastmath<afn> : f32
//       CHECK: %[[U0:.*]] = vector.extract %[[ACC]][4] : f32 from vector<16xf32>
//       CHECK: %[[P0:.*]] = arith.mulf %[[SILU]], %[[U0]] : f32
//       CHECK: vector.extract %[[ACC]][1] : f32 from vector<16xf32>
//       CHECK: vector.extract %[[ACC]][8] : f32 from vector<16xf32>
//       CHECK: vector.extract %[[ACC]][12] : f32 from vector<16xf32>
//       CHECK: vector.from_elements %[[P0]], {{.*}} : vector<8xf32>
gpu.module @swiglu {
  gpu.func @swiglu(%acc: vector<16xf32>, %out: memref<8xf32>) kernel {
    %0 = tile.warpgroup_activation <silu> %acc {gated = true, shape = array<i64: 64, 32>}
        : vector<16xf32> -> vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// GELU (erf), its tanh form and ReLU element by element; the identity
// folds away.
// CHECK-LABEL: gpu.func @activations
//   CHECK-NOT: tile.warpgroup_activation
//       CHECK: %[[X:.*]] = vector.extract %{{.*}}[0] : f32 from vector<8xf32>
//       CHECK: %[[S:.*]] = arith.mulf %[[X]], %{{.*}} : f32
//       CHECK: math.erf %[[S]] : f32
//       CHECK: math.tanh
//       CHECK: arith.maximumf
gpu.module @activations {
  gpu.func @activations(%acc: vector<8xf32>, %out: memref<8xf32>) kernel {
    %0 = tile.warpgroup_activation <identity> %acc {shape = array<i64: 64, 16>}
        : vector<8xf32> -> vector<8xf32>
    %1 = tile.warpgroup_activation <gelu> %0 {shape = array<i64: 64, 16>}
        : vector<8xf32> -> vector<8xf32>
    %2 = tile.warpgroup_activation <gelu_tanh> %1 {shape = array<i64: 64, 16>}
        : vector<8xf32> -> vector<8xf32>
    %3 = tile.warpgroup_activation <relu> %2 {shape = array<i64: 64, 16>}
        : vector<8xf32> -> vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %3, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// From shared memory (a zero-stride view of per-row values, as attention's
// backward reads its log-sum-exps): the clamped form only, no branch.
// CHECK-LABEL: gpu.func @shared_rows
//   CHECK-NOT: scf.if
//       CHECK: arith.minui
//       CHECK: memref.load %{{.*}} : memref<?x?xf32, strided<[1, 0]>, 3>
//       CHECK: arith.select
gpu.module @shared_rows {
  gpu.func @shared_rows(%acc: vector<8xf32>, %rows: memref<?x?xf32, strided<[1, 0]>, 3>,
                        %out: memref<8xf32>) kernel {
    %c0 = arith.constant 0 : index
    %0 = tile.warpgroup_add %acc, %rows[%c0, %c0] {shape = array<i64: 64, 16>}
        : memref<?x?xf32, strided<[1, 0]>, 3>, vector<8xf32>
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}
