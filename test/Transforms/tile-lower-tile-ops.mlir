// RUN: tile-opt %s -tile-lower-tile-ops -canonicalize | FileCheck %s

// A CuTe TiledCopy (threads (32,4):(4,1), values (1,8)): thread t copies 8
// f16 at row t / 4, column 8 (t % 4) of each 32x32 tiler, one 16-byte
// cp.async.cg per tiler repeat (2 x 1).
// CHECK-LABEL: gpu.func @copy
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//       CHECK:   %[[T:.*]] = gpu.thread_id x
//       CHECK:   %[[ACTIVE:.*]] = arith.cmpi ult, %[[T]], %[[C128]] : index
//       CHECK:   scf.if %[[ACTIVE]] {
//       CHECK:     scf.for %[[RM:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:       tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}], 16 bytes, cache = cg : memref<?x?xf16> to memref<64x32xf16, 3>
gpu.module @kernels {
  gpu.func @copy(%a: memref<?x?xf16>, %i: index) kernel {
    %s = tile.shared_alloc : memref<64x32xf16, 3>
    tile.copy %a[%i, %i] to %s {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<64x32xf16, 3>
    gpu.return
  }
}

// tile.tma_copy: thread (0, 0, 0) announces the box bytes (64 x 64 f16 =
// 8192) on the barrier, then starts the TMA load.
// CHECK-LABEL: gpu.func @tma_copy
//   CHECK-DAG:   %[[BYTES:.*]] = arith.constant 8192 : i32
//       CHECK:   %[[X:.*]] = gpu.thread_id x
//       CHECK:   arith.cmpi eq, %[[X]]
//       CHECK:   %[[Y:.*]] = gpu.thread_id y
//       CHECK:   %[[Z:.*]] = gpu.thread_id z
//       CHECK:   scf.if
//  CHECK-NEXT:     tile.mbarrier_arrive_expect_tx %[[BARS:.*]][%[[I:.*]]], %[[BYTES]]
//  CHECK-NEXT:     tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}, %[[BARS]][%[[I]]] :
//   CHECK-NOT:   tile.tma_copy
!desc = !tile.tma_desc<memref<?x256xf16>, box = [64, 64], swizzle = b128>
gpu.module @tma {
  gpu.func @tma_copy(%d: !desc, %i: index) kernel {
    %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    tile.tma_copy %d[%i, %i] to %s, %bars[%i] : !desc, memref<64x64xf16, 3>, !tile.mbarrier<count = 2>
    gpu.return
  }
}

// tile.warp_specialize: warpgroup 0 (thread x / 128 == 0) lowers its
// registers and runs the producer; the others raise theirs and run the
// consumer with their index (warpgroup - 1).
// CHECK-LABEL: gpu.func @ws
//   CHECK-DAG:   %[[C128:.*]] = arith.constant 128 : index
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//       CHECK:   %[[T:.*]] = gpu.thread_id x
//       CHECK:   %[[WG:.*]] = arith.divui %[[T]], %[[C128]] : index
//       CHECK:   %[[P:.*]] = arith.cmpi eq, %[[WG]], %[[C0]] : index
//       CHECK:   scf.if %[[P]] {
//  CHECK-NEXT:     tile.setmaxnreg dec 40
//  CHECK-NEXT:     memref.store %{{.*}}, %{{.*}}[%{{.*}}]
//  CHECK-NEXT:   } else {
//  CHECK-NEXT:     tile.setmaxnreg inc 232
//  CHECK-NEXT:     %[[C:.*]] = arith.subi %[[WG]], %[[C1]] : index
//  CHECK-NEXT:     memref.store %{{.*}}, %{{.*}}[%[[C]]]
gpu.module @ws {
  gpu.func @ws(%out: memref<3xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    tile.warp_specialize producer(registers = 40) {
      memref.store %one, %out[%c2] : memref<3xf32>
    } consumers(2, registers = 232) {
    ^bb0(%consumer: index):
      memref.store %one, %out[%consumer] : memref<3xf32>
    }
    gpu.return
  }
}

// tile.mma on 2x2 warps of 32x32 parts of a 64x64x32 tile: per 16-wide K
// step 2 ldmatrix.x4 of A, 2 of B (2 n8 fragments each), 2x4 mma.sync; two
// register stages: step 1's fragments are loaded before step 0's MMAs.
// CHECK-LABEL: gpu.func @mma
// CHECK-COUNT-8: tile.ldmatrix %{{.*}}[%{{.*}}, %{{.*}}] x4 : memref<64x32xf16, 3> -> vector<4x2xf16>
// CHECK-COUNT-16: tile.mma_sync {{.*}} {shape = array<i64: 16, 8, 16>}
//   CHECK-NOT: tile.mma_sync
// The transposed B (K x N) is read with ldmatrix.trans.
// CHECK: tile.ldmatrix %{{.*}} x4 trans : memref<32x64xf16, 3>
// The epilogue: 2x4 fragments x 2 row halves, one vector<2xf16> store each,
// word-aligned when the row stride, offset and first column are even (known
// only at run time for memref<?x?xf16>), else unaligned.
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
// CHECK: scf.if
// CHECK-COUNT-16: vector.store %{{.*}} {alignment = 4 : i64} : memref<?x?xf16>, vector<2xf16>
// CHECK: } else {
// CHECK-COUNT-16: vector.store %{{.*}}] : memref<?x?xf16>, vector<2xf16>
// tile.warpgroup_mma: fence, 4 K steps of (descriptor B, descriptor A,
// wgmma n = 256), commit, wait 1.
// CHECK: tile.wgmma_fence
// CHECK-NEXT: %[[DB:.*]] = tile.wgmma_descriptor %{{.*}} : memref<4x256x64xf16, 3>
// CHECK-NEXT: %[[DA:.*]] = tile.wgmma_descriptor %{{.*}} : memref<4x128x64xf16, 3>
// CHECK-NEXT: tile.wgmma %[[DA]], %[[DB]], %{{.*}} {inputType = f16, n = 256 : i64} : vector<128xf32>
// CHECK-COUNT-3: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f16, n = 256 : i64} : vector<128xf32>
// CHECK-NEXT: tile.wgmma_commit_group
// CHECK-NEXT: tile.wgmma_wait_group 1
gpu.module @mma {
  gpu.func @mma(%sa: memref<64x32xf16, 3>, %sb: memref<64x32xf16, 3>, %sbt: memref<32x64xf16, 3>,
                %acc: vector<2x4x2x2xf32>, %c: memref<?x?xf16>, %i: index,
                %wacc: vector<128xf32>) kernel {
    %wa = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
    %wb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x256x64xf16, 3>
    %0 = tile.mma %sa, %sb, %acc {warps = array<i64: 2, 2>}
        : memref<64x32xf16, 3>, memref<64x32xf16, 3>, vector<2x4x2x2xf32>
    %1 = tile.mma %sa, %sbt, %0 {warps = array<i64: 2, 2>, transpose_b}
        : memref<64x32xf16, 3>, memref<32x64xf16, 3>, vector<2x4x2x2xf32>
    tile.mma_store %1, %c[%i, %i] {warps = array<i64: 2, 2>} : vector<2x4x2x2xf32>, memref<?x?xf16>
    %2 = tile.warpgroup_mma %wa[%i, %i, %i], %wb[%i, %i, %i], %wacc {shape = array<i64: 64, 256, 64>, wait = 1 : i32}
        : memref<4x128x64xf16, 3>, memref<4x256x64xf16, 3>, vector<128xf32>
    gpu.return
  }
}

// tile.warpgroup_mma of 8-bit floats: a 128-element K slice (one 128-byte
// span) is 4 K steps of 32 (m64nNk32), descriptors at K = 0, 32, 64, 96.
// CHECK-LABEL: gpu.func @mma_fp8
//       CHECK: tile.wgmma_fence
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x256x128xf8E5M2, 3>
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x128x128xf8E4M3FN, 3>
//  CHECK-NEXT: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f8E4M3FN, inputTypeB = f8E5M2, n = 256 : i64} : vector<128xf32>
//  CHECK-NEXT: %[[K1:.*]] = arith.addi %{{.*}}, %c32
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}, %[[K1]]] : memref<4x256x128xf8E5M2, 3>
//       CHECK: arith.addi %{{.*}}, %c64
//       CHECK: %[[K3:.*]] = arith.addi %{{.*}}, %c96
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%{{.*}}, %{{.*}}, %[[K3]]] : memref<4x256x128xf8E5M2, 3>
//       CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f8E4M3FN, inputTypeB = f8E5M2, n = 256 : i64} : vector<128xf32>
//  CHECK-NEXT: tile.wgmma_commit_group
gpu.module @mma_fp8 {
  gpu.func @mma_fp8(%wacc: vector<128xf32>, %i: index) kernel {
    %wa = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x128xf8E4M3FN, 3>
    %wb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x256x128xf8E5M2, 3>
    %0 = tile.warpgroup_mma %wa[%i, %i, %i], %wb[%i, %i, %i], %wacc {shape = array<i64: 64, 256, 128>, wait = 1 : i32}
        : memref<4x128x128xf8E4M3FN, 3>, memref<4x256x128xf8E5M2, 3>, vector<128xf32>
    gpu.return
  }
}

// f16 accumulators of a 128-row tile (two m64n64 blocks of 32 f16): a zero
// accumulator stays a zero constant per block (wgmma's scale-d = 0), the
// blocks of the result are put back into one vector<64xf16> (canonicalized).
// CHECK-LABEL: gpu.func @mma_f16_accumulators
//       CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<32xf16>
//       CHECK: tile.wgmma %{{.*}}, %{{.*}}, %[[Z]] {inputType = f8E4M3FN, n = 64 : i64} : vector<32xf16>
//       CHECK: tile.wgmma %{{.*}}, %{{.*}}, %[[Z]] {inputType = f8E4M3FN, n = 64 : i64} : vector<32xf16>
//       CHECK: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f8E4M3FN, n = 64 : i64} : vector<32xf16>
//       CHECK: %[[C:.*]] = vector.from_elements {{.*}} : vector<64xf16>
//  CHECK-NEXT: tile.wgmma_commit_group
//  CHECK-NEXT: tile.wgmma_wait_group 0
//  CHECK-NEXT: gpu.return %[[C]] : vector<64xf16>
gpu.module @mma_f16_accumulators {
  gpu.func @mma_f16_accumulators(%i: index) -> vector<64xf16> {
    %zero = arith.constant dense<0.0> : vector<64xf16>
    %wa = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x128xf8E4M3FN, 3>
    %wb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x64x128xf8E4M3FN, 3>
    %0 = tile.warpgroup_mma %wa[%i, %i, %i], %wb[%i, %i, %i], %zero {shape = array<i64: 128, 64, 64>, wait = 0 : i32}
        : memref<4x128x128xf8E4M3FN, 3>, memref<4x64x128xf8E4M3FN, 3>, vector<64xf16>
    gpu.return %0 : vector<64xf16>
  }
}

// tile.warpgroup_scale of a 64x16 tile (8 accumulators a thread: 2
// fragments x 2 row halves x 2 columns): the thread's origin row is
// 16 (warp mod 4) + lane / 4, its column 2 (lane mod 4); 2 row factors
// (rows + 0, + 8) and per fragment 2 column factors (+ 8 j + {0, 1}), each
// index clamped to the extent - 1; every element times its row's, then its
// column's factor.
// CHECK-LABEL: gpu.func @scale
//       CHECK: %[[DIM:.*]] = memref.dim %{{.*}}, %c0 : memref<?xf32>
//       CHECK: %[[LAST:.*]] = arith.subi %[[DIM]], %c1 : index
//       CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
//       CHECK: %[[R0:.*]] = arith.minui %[[ROW]], %[[LAST]] : index
//       CHECK: %[[F0:.*]] = memref.load %{{.*}}[%[[R0]]] : memref<?xf32>
//       CHECK: %[[ROW8:.*]] = arith.addi %[[ROW]], %c8 : index
//       CHECK: %[[R8:.*]] = arith.minui %[[ROW8]], %[[LAST]] : index
//       CHECK: %[[F8:.*]] = memref.load %{{.*}}[%[[R8]]] : memref<?xf32>
// One factor for every column: the clamp folds to element 0.
//       CHECK: %[[C:.*]] = memref.load %{{.*}}[%c0] : memref<1xf32>
//       CHECK: %[[E0:.*]] = vector.extract %{{.*}}[0] : f32 from vector<8xf32>
//       CHECK: %[[E0R:.*]] = arith.mulf %[[E0]], %[[F0]] fastmath<contract> : f32
//       CHECK: arith.mulf %[[E0R]], %[[C]] fastmath<contract> : f32
//       CHECK: %[[E2:.*]] = vector.extract %{{.*}}[2] : f32 from vector<8xf32>
//       CHECK: arith.mulf %[[E2]], %[[F8]] fastmath<contract> : f32
// CHECK-COUNT-3: memref.load %{{.*}}[%c0] : memref<1xf32>
//   CHECK-NOT: memref.load
//       CHECK: vector.from_elements {{.*}} : vector<8xf32>
gpu.module @scale {
  gpu.func @scale(%acc: vector<8xf32>, %rows: memref<?xf32>, %one: memref<1xf32>, %m0: index, %n0: index,
                  %out: memref<8xf32>) kernel {
    %0 = tile.warpgroup_scale %acc rows %rows[%m0] : memref<?xf32> columns %one[%n0] : memref<1xf32>
        {shape = array<i64: 64, 16>} : vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// tile.warpgroup_rows of a 128-row tile: the rows 64 i + 8 h from the
// thread's origin (4 of them), clamped; then tile.warpgroup_scale by those
// values in registers multiplies element 4 j + 2 h + e of block i by
// element 2 i + h.
// CHECK-LABEL: gpu.func @rows
//       CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %c1 : index
//       CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
//       CHECK: arith.minui %[[ROW]], %[[LAST]] : index
//       CHECK: %[[R8:.*]] = arith.addi %[[ROW]], %c8 : index
//       CHECK: arith.minui %[[R8]], %[[LAST]] : index
//       CHECK: %[[R64:.*]] = arith.addi %[[ROW]], %c64 : index
//       CHECK: arith.minui %[[R64]], %[[LAST]] : index
//       CHECK: %[[R72:.*]] = arith.addi %[[ROW]], %c72 : index
//       CHECK: %[[I72:.*]] = arith.minui %[[R72]], %[[LAST]] : index
//       CHECK: %[[F72:.*]] = memref.load %{{.*}}[%[[I72]]] : memref<?xf32>
// (canonicalized: the vector of row values is folded away)
//       CHECK: %[[E6:.*]] = vector.extract %{{.*}}[6] : f32 from vector<8xf32>
//       CHECK: arith.mulf %[[E6]], %[[F72]] fastmath<contract> : f32
//       CHECK: %[[E7:.*]] = vector.extract %{{.*}}[7] : f32 from vector<8xf32>
//       CHECK: arith.mulf %[[E7]], %[[F72]] fastmath<contract> : f32
gpu.module @rows {
  gpu.func @rows(%acc: vector<8xf32>, %src: memref<?xf32>, %m0: index, %out: memref<8xf32>) kernel {
    %f = tile.warpgroup_rows %src[%m0] {shape = array<i64: 128, 8>} : memref<?xf32> -> vector<4xf32>
    %0 = tile.warpgroup_scale %acc row_factors %f : vector<4xf32> {shape = array<i64: 128, 8>} : vector<8xf32>
    %c0 = arith.constant 0 : index
    vector.store %0, %out[%c0] : memref<8xf32>, vector<8xf32>
    gpu.return
  }
}

// tile.copy with bounds: a tile wholly inside [rows, cols) copies as without
// bounds; otherwise the bytes inside the matrix, min(max(cols - col, 0), 8)
// f16 in a row below `rows` (else 0), become cp.async's src-size, and a copy
// with nothing inside reads from (0, 0).
// CHECK-LABEL: gpu.func @zero_fill
//       CHECK:   %[[END_R:.*]] = arith.addi %{{.*}}, %c64 : index
//       CHECK:   arith.cmpi sle, %[[END_R]], %{{.*}} : index
//       CHECK:   scf.if
//       CHECK:     tile.async_copy %{{.*}}, 16 bytes, cache = cg : memref<?x?xf16>
//       CHECK:   } else {
//       CHECK:   %[[LEFT:.*]] = arith.subi %[[COLS:.*]], %[[COL:.*]] : index
//       CHECK:   %[[POS:.*]] = arith.maxsi %[[LEFT]], %[[ZERO:.*]] : index
//       CHECK:   %[[IN:.*]] = arith.minsi %[[POS]], %{{.*}} : index
//       CHECK:   %[[INROWS:.*]] = arith.cmpi slt, %[[ROW:.*]], %[[ROWS:.*]] : index
//       CHECK:   %[[VALID:.*]] = arith.select %[[INROWS]], %[[IN]], %[[ZERO]] : index
//       CHECK:   %[[ANY:.*]] = arith.cmpi sgt, %[[VALID]], %[[ZERO]] : index
//       CHECK:   %[[R:.*]] = arith.select %[[ANY]], %[[ROW]], %[[ZERO]] : index
//       CHECK:   %[[C:.*]] = arith.select %[[ANY]], %[[COL]], %[[ZERO]] : index
//       CHECK:   %[[BYTES:.*]] = arith.muli %[[VALID]], %{{.*}} : index
//       CHECK:   %[[SRC:.*]] = arith.index_cast %[[BYTES]] : index to i32
//       CHECK:   tile.async_copy %{{.*}}[%[[R]], %[[C]]] to %{{.*}}, 16 bytes, cache = cg, src_bytes = %[[SRC]]
gpu.module @zero_fill {
  gpu.func @zero_fill(%a: memref<?x?xf16>, %i: index, %rows: index, %cols: index) kernel {
    %s = tile.shared_alloc : memref<64x32xf16, 3>
    tile.copy %a[%i, %i] to %s bounds [%rows, %cols] {threads = #tile.layout<(32,4):(4,1)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<64x32xf16, 3>
    gpu.return
  }
}

// tile.mma_store {stmatrix}: lane l addresses row (l mod 8) + 8 ((l / 8) mod 2)
// and column 8 (l / 16) of each pair of fragments; 2x4 fragments per warp
// make 2x2 stmatrix.x4.
// CHECK-LABEL: gpu.func @stmatrix
// CHECK-COUNT-4: tile.stmatrix %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] x4 : vector<4x2xf16>, memref<64x64xf16, 3>
//   CHECK-NOT: tile.stmatrix
//   CHECK-NOT: vector.store
gpu.module @stmatrix {
  gpu.func @stmatrix(%acc: vector<2x4x2x2xf32>, %i: index) kernel {
    %sc = tile.shared_alloc : memref<64x64xf16, 3>
    tile.mma_store %acc, %sc[%i, %i] {warps = array<i64: 2, 2>, stmatrix} : vector<2x4x2x2xf32>, memref<64x64xf16, 3>
    gpu.return
  }
}

// tile.warpgroup_mma with an MN-major B (four 64-column chunks of 64 K rows):
// each 16-wide K step moves B's K-row index (the second-to-last), takes an
// mn_major descriptor and transposes B in the wgmma.
// CHECK-LABEL: gpu.func @mn_major_b
//  CHECK-SAME: (%{{.*}}: vector<128xf32>, %[[I:.*]]: index, %[[Q:.*]]: index, %[[R:.*]]: index, %[[Z:.*]]: index)
//       CHECK: tile.wgmma_fence
//       CHECK: %[[DB0:.*]] = tile.wgmma_descriptor %{{.*}}[%[[I]], %[[Q]], %[[R]], %[[Z]]] {mn_major} : memref<4x4x64x64xf16, 3>
//       CHECK: tile.wgmma %{{.*}}, %[[DB0]], %{{.*}} {inputType = f16, n = 256 : i64, transpose_b} : vector<128xf32>
//       CHECK: %[[K16:.*]] = arith.addi %[[R]], %c16 : index
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[I]], %[[Q]], %[[K16]], %[[Z]]] {mn_major} : memref<4x4x64x64xf16, 3>
//       CHECK-COUNT-3: tile.wgmma %{{.*}}, %{{.*}}, %{{.*}} {inputType = f16, n = 256 : i64, transpose_b} : vector<128xf32>
//       CHECK: tile.wgmma_commit_group
gpu.module @mn_major {
  gpu.func @mn_major_b(%wacc: vector<128xf32>, %i: index, %q: index, %r: index, %z: index) kernel {
    %wa = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
    %wb = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x4x64x64xf16, 3>
    %0 = tile.warpgroup_mma %wa[%i, %i, %i], %wb[%i, %q, %r, %z], %wacc
        {shape = array<i64: 64, 256, 64>, wait = 1 : i32, transpose_b}
        : memref<4x128x64xf16, 3>, memref<4x4x64x64xf16, 3>, vector<128xf32>
    gpu.return
  }
}

// tile.warpgroup_tma_store of a 64x128 tile in 64x64 chunks through two
// staging buffers: per chunk the first thread of the warpgroup waits for
// the buffer (bulk wait_group.read 1), the warpgroup meets at named barrier
// 1 + thread x / 128, four stmatrix.x4 write the chunk, a fence for the
// async proxy, the barrier again, then the TMA store and its bulk group.
// The TMA store survives -canonicalize (it writes the tensor: MemWrite on
// the descriptor). Chunk 1 goes to buffer 1 at column n + 64.
// CHECK-LABEL: gpu.func @tma_epilogue
//  CHECK-SAME: (%{{.*}}: vector<64xf32>, %[[DC:.*]]: !tile.tma_desc{{.*}}, %[[WG:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
//       CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c128 : index
//       CHECK: %[[ID1:.*]] = arith.addi %[[GROUP]], %c1 : index
//       CHECK: %[[ID:.*]] = arith.index_cast %[[ID1]] : index to i32
//       CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
//       CHECK: scf.if %[[FIRST]] {
//  CHECK-NEXT:   tile.bulk_wait_group 1 read
//       CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK-COUNT-4: tile.stmatrix %{{.*}}, %[[STAGING:.*]][%[[WG]], %c0, %{{.*}}, %{{.*}}] x4 : vector<4x2xf16>, memref<2x2x64x64xf16, 3>
//       CHECK: tile.fence_proxy_async shared_cta
//  CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
//  CHECK-NEXT: scf.if %[[FIRST]] {
//  CHECK-NEXT:   tile.tma_store %[[STAGING]][%[[WG]], %c0] to %[[DC]][%[[M]], %[[N]]]
//  CHECK-NEXT:   tile.bulk_commit_group
//  CHECK-NEXT:   tile.bulk_wait_group 1 read
//       CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK-COUNT-4: tile.stmatrix %{{.*}}, %[[STAGING]][%[[WG]], %c1, %{{.*}}, %{{.*}}] x4
//       CHECK: tile.fence_proxy_async shared_cta
//  CHECK-NEXT: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
//  CHECK-NEXT: scf.if %[[FIRST]] {
//  CHECK-NEXT:   %[[N64:.*]] = arith.addi %[[N]], %c64 : index
//  CHECK-NEXT:   tile.tma_store %[[STAGING]][%[[WG]], %c1] to %[[DC]][%[[M]], %[[N64]]]
//  CHECK-NEXT:   tile.bulk_commit_group
!dc = !tile.tma_desc<memref<?x?xf16>, box = [64, 64], swizzle = b128>
gpu.module @epilogue {
  gpu.func @tma_epilogue(%acc: vector<64xf32>, %c: !dc, %wg: index, %m: index, %n: index) kernel {
    %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xf16, 3>
    tile.warpgroup_tma_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 128>}
        : vector<64xf32>, memref<2x2x64x64xf16, 3>, !dc
    gpu.return
  }
}

// An 8-bit C (stmatrix moves 16-bit values): each thread converts its pairs
// (arith.truncf, cvt.rn.satfinite later) and stores them, 2 bytes each, at
// row 16 (warp) + lane / 4 + 8 h, column 2 (lane mod 4) + 8 j of its chunk:
// 64 x 64 / 128 threads / 2 = 16 pairs a chunk, then the fence, the barrier
// and the TMA store as for 16-bit elements.
// CHECK-LABEL: gpu.func @tma_epilogue_fp8
//       CHECK: scf.if %{{.*}} {
//  CHECK-NEXT:   tile.bulk_wait_group 1 read
//       CHECK: nvvm.barrier
//   CHECK-NOT: tile.stmatrix
// CHECK-COUNT-16: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf8E4M3FN>
//   CHECK-NOT: tile.stmatrix
//       CHECK: vector.store %{{.*}}, %[[STAGING8:.*]][%{{.*}}, %c0, %{{.*}}, %{{.*}}] : memref<2x2x64x64xf8E4M3FN, 3>, vector<2xf8E4M3FN>
//       CHECK: tile.fence_proxy_async shared_cta
//  CHECK-NEXT: nvvm.barrier
//  CHECK-NEXT: scf.if %{{.*}} {
//  CHECK-NEXT:   tile.tma_store %[[STAGING8]][%{{.*}}, %c0] to
!dc8 = !tile.tma_desc<memref<?x?xf8E4M3FN>, box = [64, 64], swizzle = b64>
gpu.module @epilogue_fp8 {
  gpu.func @tma_epilogue_fp8(%acc: vector<64xf32>, %c: !dc8, %wg: index, %m: index, %n: index) kernel {
    %staging = tile.shared_alloc {swizzle = #tile.swizzle<b64>} : memref<2x2x64x64xf8E4M3FN, 3>
    tile.warpgroup_tma_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 128>}
        : vector<64xf32>, memref<2x2x64x64xf8E4M3FN, 3>, !dc8
    gpu.return
  }
}

// tile.warpgroup_coalesced_store of a 64x128 tile in 64x64 chunks through
// two staging buffers: per chunk each warp syncs, writes its 16 rows with
// four stmatrix.x4, syncs again, then loops over the rows: inside dst's
// rows, each lane loads columns lane and lane + 32 of the row from the
// buffer and stores each inside dst's columns. Chunk 1 uses buffer 1.
// CHECK-LABEL: gpu.func @coalesced_epilogue
//  CHECK-SAME: (%{{.*}}: vector<64xf32>, %[[C:.*]]: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %[[WG:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index)
//   CHECK-NOT: nvvm.barrier
//       CHECK: %[[ROWS:.*]] = memref.dim %[[C]], %c0
//       CHECK: %[[COLUMNS:.*]] = memref.dim %[[C]], %c1
//       CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-4: tile.stmatrix %{{.*}}, %[[STAGING:.*]][%[[WG]], %c0, %{{.*}}, %{{.*}}] x4 : vector<4x2xbf16>, memref<2x2x64x64xbf16, 3>
//  CHECK-NEXT: nvvm.bar.warp.sync
//       CHECK: scf.for %[[R:.*]] = %c0 to %c16 step %c1 {
//       CHECK:   %[[ROW:.*]] = arith.addi %{{.*}}, %[[R]] : index
//       CHECK:   %[[IN_ROWS:.*]] = arith.cmpi slt, %[[ROW]], %[[ROWS]] : index
//  CHECK-NEXT:   scf.if %[[IN_ROWS]] {
//       CHECK:     memref.load %[[STAGING]][%[[WG]], %c0, %{{.*}}, %{{.*}}] : memref<2x2x64x64xbf16, 3>
//       CHECK:     arith.cmpi slt, %{{.*}}, %[[COLUMNS]] : index
//       CHECK:     memref.store %{{.*}}, %[[C]][%[[ROW]], %{{.*}}]
//       CHECK:     memref.load %[[STAGING]][%[[WG]], %c0, %{{.*}}, %{{.*}}]
//       CHECK:     memref.store %{{.*}}, %[[C]][%[[ROW]], %{{.*}}]
//       CHECK: nvvm.bar.warp.sync
// CHECK-COUNT-4: tile.stmatrix %{{.*}}, %[[STAGING]][%[[WG]], %c1, %{{.*}}, %{{.*}}] x4
//   CHECK-NOT: nvvm.barrier
//   CHECK-NOT: tile.tma_store
//       CHECK: gpu.return
!c_rows = memref<?x?xbf16, strided<[?, 1], offset: ?>>
gpu.module @coalesced {
  gpu.func @coalesced_epilogue(%acc: vector<64xf32>, %c: !c_rows, %wg: index, %m: index, %n: index) kernel {
    %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xbf16, 3>
    tile.warpgroup_coalesced_store %acc, %staging[%wg] to %c[%m, %n] {shape = array<i64: 64, 128>}
        : vector<64xf32>, memref<2x2x64x64xbf16, 3>, !c_rows
    gpu.return
  }
}

// tile.copy shared -> global with bounds: a tile wholly inside stores whole
// vectors; otherwise a row inside stores its whole vector where it fits and
// element by element where it crosses the column bound. The vectors are
// 16-byte aligned when the global row stride and first column are
// multiples of 8 (tested at run time: memref<?x?xf16>), else unaligned. The
// shared side is always 16-byte aligned: each thread's 8 values start at a
// tile column that is a multiple of 8, in a 128-byte aligned buffer.
// CHECK-LABEL: gpu.func @bounded_store
//       CHECK: scf.if %{{.*}} {
//       CHECK:   memref.extract_strided_metadata
//       CHECK:   scf.if %{{.*}} {
//       CHECK:     vector.load %{{.*}} {alignment = 16 : i64} : memref<32x64xf16, 3>, vector<8xf16>
//       CHECK:     vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
//       CHECK:   } else {
//       CHECK:     vector.store %{{.*}}] : memref<?x?xf16>, vector<8xf16>
//       CHECK: } else {
//       CHECK:   scf.if %{{.*}} {
//       CHECK:     arith.cmpi slt, %[[ROW:.*]], %[[ROWS:.*]] : index
//       CHECK:     vector.store %{{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
//       CHECK:   } else {
// CHECK-COUNT-8: memref.store %{{.*}} : memref<?x?xf16>
gpu.module @store_copy {
  gpu.func @bounded_store(%c: memref<?x?xf16>, %m0: index, %n0: index, %m: index, %n: index) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %sc = tile.shared_alloc : memref<32x64xf16, 3>
    tile.copy %sc to %c[%m0, %n0] bounds [%m, %n]
        {threads = #tile.layout<(16,8):(8,1)>, values = #tile.layout<(1,8)>}
        : memref<32x64xf16, 3> to memref<?x?xf16>
    gpu.return
  }
}

// The decode form: an MN-major A (two 64-row blocks of one 64-element chunk
// each: the second block's descriptor starts one chunk on) and the C^T tile
// stored transposed, element by element: accumulator (row r, column c) of
// the thread goes to dst[i + c, j + r], bounded by dst's rows and columns.
// CHECK-LABEL: gpu.func @mn_major_a
//  CHECK-SAME: (%{{.*}}: vector<8xf32>, %[[I:[a-z0-9]+]]: index, %[[Q:[a-z0-9]+]]: index, %[[R:[a-z0-9]+]]: index, %[[Z:[a-z0-9]+]]: index
//       CHECK: tile.wgmma_fence
//       CHECK: %[[DB0:.*]] = tile.wgmma_descriptor %{{.*}} : memref<4x8x64xf16, 3>
//       CHECK: %[[DA0:.*]] = tile.wgmma_descriptor %{{.*}}[%[[I]], %[[Q]], %[[R]], %[[Z]]] {mn_major} : memref<4x2x64x64xf16, 3>
//       CHECK: tile.wgmma %[[DA0]], %[[DB0]], %{{.*}} {inputType = f16, n = 8 : i64, transpose_a} : vector<4xf32>
//       CHECK: %[[Q1:.*]] = arith.addi %[[Q]], %c1 : index
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[I]], %[[Q1]], %[[R]], %[[Z]]] {mn_major} : memref<4x2x64x64xf16, 3>
//       CHECK: tile.wgmma_commit_group
//   CHECK-NOT: vector.store
// Element (row r, column c) of the thread: dst row = i (%[[Z]]) + c with
// c = 2 (lane mod 4) for the first element, dst column = j (%[[I]]) + r with
// r = 16 warp + lane / 4.
//       CHECK: %[[COLUMN:.*]] = arith.addi %[[I]], %{{.*}} : index
//       CHECK: %[[ROW:.*]] = arith.addi %[[Z]], %{{.*}} : index
//       CHECK: %[[IN:.*]] = arith.andi
//       CHECK: scf.if %[[IN]] {
//       CHECK:   memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COLUMN]]] : memref<?x?xf16>
//   CHECK-NOT: vector.store
gpu.module @mn_major_a {
  gpu.func @mn_major_a(%wacc: vector<8xf32>, %i: index, %q: index, %r: index, %z: index,
                       %c: memref<?x?xf16>, %m: index, %n: index) kernel {
    %wa = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x2x64x64xf16, 3>
    %wb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x8x64xf16, 3>
    %0 = tile.warpgroup_mma %wa[%i, %q, %r, %z], %wb[%i, %z, %z], %wacc
        {shape = array<i64: 128, 8, 64>, wait = 0 : i32, transpose_a}
        : memref<4x2x64x64xf16, 3>, memref<4x8x64xf16, 3>, vector<8xf32>
    tile.warpgroup_mma_store %0, %c[%z, %i] bounds [%m, %n] {shape = array<i64: 128, 8>, transpose}
        : vector<8xf32>, memref<?x?xf16>
    gpu.return
  }
}

// tile.split_k_reduce: one split yields the accumulators; otherwise the
// thread's 4-element chunks are stored at element 4 (128 c + thread mod 128)
// of the split's rows ((tile * splits + split) * 128 ..., addressed through a
// flat view of the row-major workspace: 128 x 4 elements a split), the
// warpgroup meets, its first thread counts (fence, atomic add, fence) and
// writes whether it was last to its warpgroup's slot (thread x / 128) of a
// static shared flag array, the warpgroup meets again and the last CTA sums
// every split's row in split order and resets the counter.
// CHECK-LABEL: gpu.func @split_k
//  CHECK-SAME: (%[[ACC:[a-z0-9]+]]: vector<4xf32>, %[[WS:[a-z0-9]+]]: memref<?x4xf32>, %[[CNT:[a-z0-9]+]]: memref<?xi32>, %[[T:[a-z0-9]+]]: index, %[[S:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index)
//       CHECK: %[[FLAG:.*]] = tile.shared_alloc : memref<8xi32, 3>
//       CHECK: %[[TID:.*]] = gpu.thread_id x
//       CHECK: %[[THREAD:.*]] = arith.remui %[[TID]], %c128 : index
//       CHECK: %[[WG:.*]] = arith.divui %[[TID]], %c128 : index
//       CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[WS]] {{\[\[}}0, 1]] : memref<?x4xf32> into memref<?xf32>
//       CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[N]], %c1 : index
//       CHECK: scf.if %[[ONE]] -> (i1, vector<4xf32>) {
//  CHECK-NEXT:   scf.yield %true, %[[ACC]]
//       CHECK: } else {
//       CHECK:   %[[TS:.*]] = arith.muli %[[T]], %[[N]] : index
//       CHECK:   %[[TSS:.*]] = arith.addi %[[TS]], %[[S]] : index
//       CHECK:   %[[BASE:.*]] = arith.muli %[[TSS]], %c512 : index
//       CHECK:   %[[E:.*]] = arith.muli %[[THREAD]], %c4 : index
//       CHECK:   %[[AT:.*]] = arith.addi %[[BASE]], %[[E]] : index
//       CHECK:   vector.store %[[ACC]], %[[FLAT]][%[[AT]]] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
//       CHECK:   nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
//       CHECK:   scf.if %[[FIRST:.*]] {
//       CHECK:     llvm.fence syncscope("device") acq_rel
//       CHECK:     %[[OLD:.*]] = memref.atomic_rmw addi %c1_i32, %[[CNT]][%[[T]]] : (i32, memref<?xi32>) -> i32
//       CHECK:     llvm.fence syncscope("device") acq_rel
//       CHECK:     memref.store %{{.*}}, %[[FLAG]][%[[WG]]] : memref<8xi32, 3>
//       CHECK:   nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
//       CHECK:   %[[WORD:.*]] = memref.load %[[FLAG]][%[[WG]]] : memref<8xi32, 3>
//       CHECK:   %[[LAST:.*]] = arith.cmpi ne, %[[WORD]], %c0_i32 : i32
//       CHECK:   scf.if %[[LAST]] -> (vector<4xf32>) {
//       CHECK:     scf.for %[[SPLIT:.*]] = %c0 to %[[N]] step %c1
//       CHECK:       vector.load %[[FLAT]][%{{.*}}] {alignment = 16 : i64} : memref<?xf32>, vector<4xf32>
//       CHECK:       arith.addf
//       CHECK:     scf.if %[[FIRST]] {
//  CHECK-NEXT:       memref.store %c0_i32, %[[CNT]][%[[T]]] : memref<?xi32>
gpu.module @split_k {
  gpu.func @split_k(%acc: vector<4xf32>, %ws: memref<?x4xf32>, %counters: memref<?xi32>,
                    %t: index, %s: index, %n: index) kernel {
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n
        : vector<4xf32>, memref<?x4xf32>, memref<?xi32>
    scf.if %last {
      vector.store %sum, %ws[%t, %t] : memref<?x4xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// With `prefetch`, the last CTA's sum carries the next split's chunks:
// split 0's before the loop, split s + 1's loaded (or, for its own split,
// taken from acc) before split s's are added; the sums stay in split order.
// CHECK-LABEL: gpu.func @split_k_prefetch
//  CHECK-SAME: (%[[ACC:[a-z0-9]+]]: vector<4xf32>, %{{[a-z0-9]+}}: memref<?x4xf32>, %{{[a-z0-9]+}}: memref<?xi32>, %{{[a-z0-9]+}}: index, %[[S:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index)
//       CHECK: scf.if %{{.*}} -> (vector<4xf32>) {
//       CHECK:   %[[MINE0:.*]] = arith.cmpi eq, %[[S]], %c0 : index
//       CHECK:   %[[FIRST:.*]] = scf.if %[[MINE0]] -> (vector<4xf32>) {
//  CHECK-NEXT:     scf.yield %[[ACC]] : vector<4xf32>
//  CHECK-NEXT:   } else {
//       CHECK:     vector.load
//       CHECK:   %[[SUM:.*]]:2 = scf.for %[[I:.*]] = %c0 to %[[N]] step %c1 iter_args(%[[SOFAR:.*]] = %{{.*}}, %[[CUR:.*]] = %[[FIRST]])
//       CHECK:     %[[NEXT:.*]] = arith.addi %[[I]], %c1 : index
//       CHECK:     %[[MORE:.*]] = arith.cmpi ult, %[[NEXT]], %[[N]] : index
//       CHECK:     %[[AHEAD:.*]] = scf.if %[[MORE]] -> (vector<4xf32>) {
//       CHECK:       %[[MINE:.*]] = arith.cmpi eq, %[[NEXT]], %[[S]] : index
//       CHECK:       scf.if %[[MINE]] -> (vector<4xf32>) {
//  CHECK-NEXT:         scf.yield %[[ACC]] : vector<4xf32>
//  CHECK-NEXT:       } else {
//       CHECK:         vector.load
//       CHECK:     } else {
//  CHECK-NEXT:       scf.yield %[[CUR]] : vector<4xf32>
//       CHECK:     %[[ADDED:.*]] = arith.addf %[[SOFAR]], %[[CUR]] : vector<4xf32>
//       CHECK:     scf.yield %[[ADDED]], %[[AHEAD]] : vector<4xf32>, vector<4xf32>
//       CHECK:   scf.yield %[[SUM]]#0 : vector<4xf32>
gpu.module @split_k_prefetch {
  gpu.func @split_k_prefetch(%acc: vector<4xf32>, %ws: memref<?x4xf32>, %counters: memref<?xi32>,
                             %t: index, %s: index, %n: index) kernel {
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n prefetch
        : vector<4xf32>, memref<?x4xf32>, memref<?xi32>
    scf.if %last {
      vector.store %sum, %ws[%t, %t] : memref<?x4xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// With `prefetch` and a row per thread (6 accumulators): six scalar chunks a
// split, loaded at (split base + thread) * 6 + c, and the thread's own six
// taken from acc; the loop carries the six sums and the six loaded values.
// CHECK-LABEL: gpu.func @split_k_prefetch_rows
//  CHECK-SAME: (%[[ACC:[a-z0-9]+]]: vector<6xf32>
//       CHECK: %[[OWN0:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [0]
//       CHECK: %[[OWN5:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [5]
//       CHECK: scf.for {{.*}} -> (vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>, vector<1xf32>)
//       CHECK:   scf.yield %[[OWN0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OWN5]] :
//       CHECK:   vector.load %{{.*}} {alignment = 4 : i64} : memref<?xf32>, vector<1xf32>
gpu.module @split_k_prefetch_rows {
  gpu.func @split_k_prefetch_rows(%acc: vector<6xf32>, %ws: memref<?x6xf32>, %counters: memref<?xi32>,
                                  %t: index, %s: index, %n: index) kernel {
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n prefetch
        : vector<6xf32>, memref<?x6xf32>, memref<?xi32>
    scf.if %last {
      vector.store %sum, %ws[%t, %t] : memref<?x6xf32>, vector<6xf32>
    }
    gpu.return
  }
}

// Accumulators that are no multiple of 4: a row per thread, element c of
// thread t of a split at (split base + t) * 6 + c of the flat workspace.
// CHECK-LABEL: gpu.func @split_k_rows
//       CHECK: %[[THREAD:.*]] = arith.remui %{{.*}}, %c128 : index
//       CHECK: %[[FLAT:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<?x6xf32> into memref<?xf32>
//       CHECK: %[[BASE:.*]] = arith.muli %{{.*}}, %c768 : index
//       CHECK: %[[ROW:.*]] = arith.muli %[[THREAD]], %c6 : index
//       CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %[[ROW]] : index
//       CHECK: vector.store %{{.*}}, %[[FLAT]][%[[AT]]] {alignment = 4 : i64} : memref<?xf32>, vector<1xf32>
gpu.module @split_k_rows {
  gpu.func @split_k_rows(%acc: vector<6xf32>, %ws: memref<?x6xf32>, %counters: memref<?xi32>,
                         %t: index, %s: index, %n: index) kernel {
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n
        : vector<6xf32>, memref<?x6xf32>, memref<?xi32>
    gpu.return
  }
}

// With `slots`, a tile's rows start at tile * slots (the bound on splits of
// stream-K tiles), not tile * splits.
// CHECK-LABEL: gpu.func @split_k_slots
//  CHECK-SAME: (%[[ACC:[a-z0-9]+]]: vector<4xf32>, %{{[a-z0-9]+}}: memref<?x4xf32>, %{{[a-z0-9]+}}: memref<?xi32>, %[[T:[a-z0-9]+]]: index, %[[S:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index)
//       CHECK:   %[[TS:.*]] = arith.muli %[[T]], %c2 : index
//       CHECK:   arith.addi %[[TS]], %[[S]] : index
gpu.module @split_k_slots {
  gpu.func @split_k_slots(%acc: vector<4xf32>, %ws: memref<?x4xf32>, %counters: memref<?xi32>,
                          %t: index, %s: index, %n: index) kernel {
    %c2 = arith.constant 2 : index
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %n slots %c2
        : vector<4xf32>, memref<?x4xf32>, memref<?xi32>
    scf.if %last {
      vector.store %sum, %ws[%t, %t] : memref<?x4xf32>, vector<4xf32>
    }
    gpu.return
  }
}

// tile.tile_coord: groups of `group` tile rows, down a group's rows column
// after column.
// CHECK-LABEL: func.func @tile_coord
//  CHECK-SAME: (%[[T:[a-z0-9]+]]: index, %[[ROWS:[a-z0-9]+]]: index, %[[COLS:[a-z0-9]+]]: index)
//       CHECK: %[[IN:.*]] = arith.muli %[[COLS]], %c4 : index
//       CHECK: %[[G:.*]] = arith.divui %[[T]], %[[IN]] : index
//       CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %c4 : index
//       CHECK: %[[LEFT:.*]] = arith.subi %[[ROWS]], %[[FIRST]] : index
//       CHECK: %[[H:.*]] = arith.minui %[[LEFT]], %c4 : index
//       CHECK: %[[LOCAL:.*]] = arith.remui %[[T]], %[[IN]] : index
//       CHECK: %[[R:.*]] = arith.remui %[[LOCAL]], %[[H]] : index
//       CHECK: %[[ROW:.*]] = arith.addi %[[FIRST]], %[[R]] : index
//       CHECK: %[[COL:.*]] = arith.divui %[[LOCAL]], %[[H]] : index
//       CHECK: return %[[ROW]], %[[COL]]
func.func @tile_coord(%t: index, %rows: index, %cols: index) -> (index, index) {
  %row, %col = tile.tile_coord %t in [%rows, %cols] group 4
  return %row, %col : index, index
}

// tile.work_count data_parallel: ceil((tiles - worker) / workers) units,
// nothing shared.
// CHECK-LABEL: func.func @work_count_data_parallel
//  CHECK-SAME: (%[[T:[a-z0-9]+]]: index, %[[K:[a-z0-9]+]]: index, %[[C:[a-z0-9]+]]: index, %[[W:[a-z0-9]+]]: index)
//       CHECK: %[[A:.*]] = arith.addi %[[T]], %[[W]] : index
//       CHECK: %[[B:.*]] = arith.addi %[[C]], %c1 : index
//       CHECK: %[[D:.*]] = arith.subi %[[A]], %[[B]] : index
//       CHECK: %[[U:.*]] = arith.divui %[[D]], %[[W]] : index
//       CHECK: return %[[U]]
func.func @work_count_data_parallel(%t: index, %k: index, %c: index, %w: index) -> index {
  %units = tile.work_count data_parallel tiles %t iters %k worker %c of %w
  return %units : index
}

// tile.work_unit split_k: the tail is the last tiles mod workers tiles when
// 2 (tiles mod workers) <= workers and iters >= 2, each cut into
// s = min(workers / r, iters, 8) ranges; worker w's tail unit is split
// w mod s of tail tile w / s, iterations split iters / s .. (split + 1)
// iters / s; data-parallel units select whole tiles w + unit x workers.
// (Their coverage is checked by running them: tile-schedule-coverage.mlir.)
// CHECK-LABEL: func.func @work_unit_split_k
//  CHECK-SAME: (%[[U:[a-z0-9]+]]: index, %[[T:[a-z0-9]+]]: index, %[[K:[a-z0-9]+]]: index, %[[C:[a-z0-9]+]]: index, %[[W:[a-z0-9]+]]: index)
//       CHECK: %[[R:.*]] = arith.remui %[[T]], %[[W]] : index
//       CHECK: %[[R2:.*]] = arith.addi %[[R]], %[[R]] : index
//       CHECK: %[[PER:.*]] = arith.divui %[[W]], %{{.*}} : index
//       CHECK: %[[S0:.*]] = arith.minui %[[PER]], %[[K]] : index
//       CHECK: %[[S1:.*]] = arith.minui %[[S0]], %c8 : index
//       CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[S1]], %c1 : index
//       CHECK: %[[DP:.*]] = arith.cmpi ult, %[[U]], %{{.*}} : index
//       CHECK: %[[TAIL:.*]] = arith.divui %[[C]], %[[S]] : index
//       CHECK: %[[SPLIT:.*]] = arith.remui %[[C]], %[[S]] : index
//       CHECK: %[[LO:.*]] = arith.muli %[[SPLIT]], %[[K]] : index
//       CHECK: %[[FIRST:.*]] = arith.divui %[[LO]], %[[S]] : index
//       CHECK: return {{.*}} : index, index, index, index, index, index
//   CHECK-NOT: tile.work_unit
func.func @work_unit_split_k(%i: index, %t: index, %k: index, %c: index, %w: index)
    -> (index, index, index, index, index, index) {
  %tile, %first, %count, %fixup, %split, %splits = tile.work_unit %i of split_k
      tiles %t iters %k worker %c of %w
  return %tile, %first, %count, %fixup, %split, %splits
      : index, index, index, index, index, index
}

// tile.warpgroup_mma_rs of a 128x64x64 tile, A in registers and B MN-major
// (one 64-column chunk of 64 K rows): the accumulators split into the two
// 64-row blocks, fence, per 16-wide K step one mn_major descriptor of B (its
// K-row index advanced by the step) and one tile.wgmma_rs per block on the
// block's 8 A elements of the step: block i, step k takes elements
// i K/2 + k/2 .. + 7 (block 1 starts at K/2 = 32); the blocks are joined,
// commit, wait.
// CHECK-LABEL: gpu.func @mma_rs
//  CHECK-SAME: (%[[P:[a-z0-9]+]]: vector<64xbf16>, %{{[a-z0-9]+}}: vector<64xf32>, %[[S:[a-z0-9]+]]: index, %[[Q:[a-z0-9]+]]: index, %[[R:[a-z0-9]+]]: index, %[[Z:[a-z0-9]+]]: index)
//       CHECK: %[[ACC0:.*]] = vector.from_elements {{.*}} : vector<32xf32>
//       CHECK: %[[ACC1:.*]] = vector.from_elements {{.*}} : vector<32xf32>
//  CHECK-NEXT: tile.wgmma_fence
//  CHECK-NEXT: %[[DB0:.*]] = tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Q]], %[[R]], %[[Z]]] {mn_major} : memref<2x1x64x64xbf16, 3>
//  CHECK-NEXT: %[[A00:.*]] = vector.shuffle %[[P]], %[[P]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<64xbf16>, vector<64xbf16>
//  CHECK-NEXT: %[[D00:.*]] = tile.wgmma_rs %[[A00]], %[[DB0]], %[[ACC0]] {n = 64 : i64, transpose_b} : vector<8xbf16>, vector<32xf32>
//  CHECK-NEXT: %[[A10:.*]] = vector.shuffle %[[P]], %[[P]] [32, 33, 34, 35, 36, 37, 38, 39] : vector<64xbf16>, vector<64xbf16>
//  CHECK-NEXT: %[[D10:.*]] = tile.wgmma_rs %[[A10]], %[[DB0]], %[[ACC1]] {n = 64 : i64, transpose_b} : vector<8xbf16>, vector<32xf32>
//  CHECK-NEXT: %[[K16:.*]] = arith.addi %[[R]], %c16 : index
//  CHECK-NEXT: %[[DB1:.*]] = tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Q]], %[[K16]], %[[Z]]] {mn_major} : memref<2x1x64x64xbf16, 3>
//  CHECK-NEXT: %[[A01:.*]] = vector.shuffle %[[P]], %[[P]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<64xbf16>, vector<64xbf16>
//  CHECK-NEXT: %[[D01:.*]] = tile.wgmma_rs %[[A01]], %[[DB1]], %[[D00]] {n = 64 : i64, transpose_b} : vector<8xbf16>, vector<32xf32>
//  CHECK-NEXT: %[[A11:.*]] = vector.shuffle %[[P]], %[[P]] [40, 41, 42, 43, 44, 45, 46, 47] : vector<64xbf16>, vector<64xbf16>
//  CHECK-NEXT: %[[D11:.*]] = tile.wgmma_rs %[[A11]], %[[DB1]], %[[D10]] {n = 64 : i64, transpose_b} : vector<8xbf16>, vector<32xf32>
//  CHECK-NEXT: %[[K32:.*]] = arith.addi %[[R]], %c32 : index
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Q]], %[[K32]], %[[Z]]] {mn_major}
//  CHECK-NEXT: vector.shuffle %[[P]], %[[P]] [16, 17, 18, 19, 20, 21, 22, 23]
//  CHECK-NEXT: %[[D02:.*]] = tile.wgmma_rs %{{.*}}, %{{.*}}, %[[D01]]
//  CHECK-NEXT: vector.shuffle %[[P]], %[[P]] [48, 49, 50, 51, 52, 53, 54, 55]
//  CHECK-NEXT: %[[D12:.*]] = tile.wgmma_rs %{{.*}}, %{{.*}}, %[[D11]]
//  CHECK-NEXT: %[[K48:.*]] = arith.addi %[[R]], %c48 : index
//  CHECK-NEXT: %[[DB3:.*]] = tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Q]], %[[K48]], %[[Z]]] {mn_major}
//  CHECK-NEXT: %[[A03:.*]] = vector.shuffle %[[P]], %[[P]] [24, 25, 26, 27, 28, 29, 30, 31]
//  CHECK-NEXT: %[[D03:.*]] = tile.wgmma_rs %[[A03]], %[[DB3]], %[[D02]] {n = 64 : i64, transpose_b}
//  CHECK-NEXT: %[[A13:.*]] = vector.shuffle %[[P]], %[[P]] [56, 57, 58, 59, 60, 61, 62, 63]
//  CHECK-NEXT: %[[D13:.*]] = tile.wgmma_rs %[[A13]], %[[DB3]], %[[D12]] {n = 64 : i64, transpose_b}
//   CHECK-NOT: tile.wgmma_rs
//       CHECK: vector.extract %[[D03]][31] : f32 from vector<32xf32>
//       CHECK: vector.extract %[[D13]][0] : f32 from vector<32xf32>
//       CHECK: %[[O:.*]] = vector.from_elements {{.*}} : vector<64xf32>
//  CHECK-NEXT: tile.wgmma_commit_group
//  CHECK-NEXT: tile.wgmma_wait_group 1
//  CHECK-NEXT: gpu.return %[[O]] : vector<64xf32>
// 8-bit floats (a 64x128x128 tile, B K-major): 32-wide K steps, four wgmmas,
// each descriptor 32 columns on; step k's fragment is its 16 accumulator
// elements with row r's 8-column blocks first (4 of each: 0, 1 of block 0,
// 4, 5 of block 1), then row r + 8's (2, 3, 6, 7), then blocks 2 and 3
// alike: the registers stay in place and the K order is T-WGMMA-5's.
// CHECK-LABEL: gpu.func @mma_rs_fp8
//  CHECK-SAME: (%[[P8:[a-z0-9]+]]: vector<64xf8E4M3FN>
//       CHECK: tile.wgmma_fence
//       CHECK: tile.wgmma_descriptor
//  CHECK-NEXT: %[[F0:.*]] = vector.shuffle %[[P8]], %[[P8]] [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15] : vector<64xf8E4M3FN>, vector<64xf8E4M3FN>
//  CHECK-NEXT: tile.wgmma_rs %[[F0]], %{{.*}}, %{{.*}} {n = 128 : i64} : vector<16xf8E4M3FN>, vector<64xf32>
//       CHECK: vector.shuffle %[[P8]], %[[P8]] [16, 17, 20, 21, 18, 19, 22, 23, 24, 25, 28, 29, 26, 27, 30, 31]
//       CHECK: vector.shuffle %[[P8]], %[[P8]] [32, 33, 36, 37, 34, 35, 38, 39, 40, 41, 44, 45, 42, 43, 46, 47]
//       CHECK: vector.shuffle %[[P8]], %[[P8]] [48, 49, 52, 53, 50, 51, 54, 55, 56, 57, 60, 61, 58, 59, 62, 63]
//  CHECK-NEXT: tile.wgmma_rs
//  CHECK-NEXT: tile.wgmma_commit_group
//  CHECK-NEXT: tile.wgmma_wait_group 0
// A zero accumulator stays a zero constant (scale-d = 0) for each block;
// K-major B keeps its indices for the first K step.
// CHECK-LABEL: gpu.func @mma_rs_zero
//  CHECK-SAME: (%[[P:[a-z0-9]+]]: vector<16xf16>, %[[I:[a-z0-9]+]]: index)
//       CHECK: %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<32xf16>
//       CHECK: tile.wgmma_fence
//  CHECK-NEXT: %[[DB:.*]] = tile.wgmma_descriptor %{{.*}}[%[[I]], %[[I]]] : memref<64x64xf16, 3>
//  CHECK-NEXT: %[[A0:.*]] = vector.shuffle %[[P]], %[[P]] [0, 1, 2, 3, 4, 5, 6, 7] : vector<16xf16>, vector<16xf16>
//  CHECK-NEXT: tile.wgmma_rs %[[A0]], %[[DB]], %[[Z]] {n = 64 : i64} : vector<8xf16>, vector<32xf16>
//  CHECK-NEXT: %[[A1:.*]] = vector.shuffle %[[P]], %[[P]] [8, 9, 10, 11, 12, 13, 14, 15] : vector<16xf16>, vector<16xf16>
//  CHECK-NEXT: tile.wgmma_rs %[[A1]], %[[DB]], %[[Z]] {n = 64 : i64} : vector<8xf16>, vector<32xf16>
//   CHECK-NOT: tile.wgmma_rs
//       CHECK: tile.wgmma_commit_group
//  CHECK-NEXT: tile.wgmma_wait_group 0
gpu.module @mma_rs {
  gpu.func @mma_rs(%p: vector<64xbf16>, %o: vector<64xf32>, %s: index, %q: index, %r: index, %z: index) -> vector<64xf32> {
    %sv = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x1x64x64xbf16, 3>
    %0 = tile.warpgroup_mma_rs %p, %sv[%s, %q, %r, %z], %o {shape = array<i64: 128, 64, 64>, wait = 1 : i32, transpose_b}
        : vector<64xbf16>, memref<2x1x64x64xbf16, 3>, vector<64xf32>
    gpu.return %0 : vector<64xf32>
  }
  gpu.func @mma_rs_fp8(%p: vector<64xf8E4M3FN>, %o: vector<64xf32>, %s: index) -> vector<64xf32> {
    %c0 = arith.constant 0 : index
    %sv = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x128xf8E4M3FN, 3>
    %0 = tile.warpgroup_mma_rs %p, %sv[%s, %c0, %c0], %o {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
        : vector<64xf8E4M3FN>, memref<2x128x128xf8E4M3FN, 3>, vector<64xf32>
    gpu.return %0 : vector<64xf32>
  }
  gpu.func @mma_rs_zero(%p: vector<16xf16>, %i: index) -> vector<64xf16> {
    %zero = arith.constant dense<0.0> : vector<64xf16>
    %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
    %0 = tile.warpgroup_mma_rs %p, %sb[%i, %i], %zero {shape = array<i64: 128, 64, 16>, wait = 0 : i32}
        : vector<16xf16>, memref<64x64xf16, 3>, vector<64xf16>
    gpu.return %0 : vector<64xf16>
  }
}

// K over two 64-element swizzle spans (a head dimension of 128 as two TMA
// boxes): K-major operands (A as (chunks, M, span), B as (stages, chunks,
// N, span)) take the steps K < 64 in the indexed chunk at columns
// + 0, 16, 32, 48, and K >= 64 in the next chunk (chunk index + 1) at the
// same columns.
// CHECK-LABEL: gpu.func @k_spans
//  CHECK-SAME: (%{{[a-z0-9]+}}: vector<64xf32>, %[[AC:[a-z0-9]+]]: index, %[[ROW:[a-z0-9]+]]: index, %[[S:[a-z0-9]+]]: index, %[[BC:[a-z0-9]+]]: index, %[[BN:[a-z0-9]+]]: index)
//   CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG: %[[C48:.*]] = arith.constant 48 : index
//       CHECK: tile.wgmma_fence
//  CHECK-NEXT: %[[DB0:.*]] = tile.wgmma_descriptor %{{.*}}[%[[S]], %[[BC]], %[[BN]], %[[C0]]] : memref<2x2x128x64xbf16, 3>
//  CHECK-NEXT: %[[DA0:.*]] = tile.wgmma_descriptor %{{.*}}[%[[AC]], %[[ROW]], %[[C0]]] : memref<2x128x64xbf16, 3>
//  CHECK-NEXT: tile.wgmma %[[DA0]], %[[DB0]], %{{.*}} {inputType = bf16, n = 128 : i64} : vector<64xf32>
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[BC]], %[[BN]], %[[C48]]] : memref<2x2x128x64xbf16, 3>
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%[[AC]], %[[ROW]], %[[C48]]] : memref<2x128x64xbf16, 3>
//  CHECK-NEXT: tile.wgmma
// K = 64: the next chunk, column 0 again.
//  CHECK-NEXT: %[[BC1:.*]] = arith.addi %[[BC]], %[[C1]] : index
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[BC1]], %[[BN]], %[[C0]]] : memref<2x2x128x64xbf16, 3>
//  CHECK-NEXT: %[[AC1:.*]] = arith.addi %[[AC]], %[[C1]] : index
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%[[AC1]], %[[ROW]], %[[C0]]] : memref<2x128x64xbf16, 3>
//  CHECK-NEXT: tile.wgmma
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %{{.*}}, %[[BN]], %[[C48]]] : memref<2x2x128x64xbf16, 3>
//  CHECK-NEXT: %[[AC1_3:.*]] = arith.addi %[[AC]], %[[C1]] : index
//  CHECK-NEXT: tile.wgmma_descriptor %{{.*}}[%[[AC1_3]], %[[ROW]], %[[C48]]] : memref<2x128x64xbf16, 3>
//  CHECK-NEXT: tile.wgmma
//  CHECK-NEXT: tile.wgmma_commit_group
//  CHECK-NEXT: tile.wgmma_wait_group 1
// The register-A form over two spans of a K-major B: the A elements follow
// K (step k takes k/2 .. k/2 + 7), B's chunk index moves at K = 64.
// CHECK-LABEL: gpu.func @rs_k_spans
//  CHECK-SAME: (%[[P:[a-z0-9]+]]: vector<64xf16>, %{{[a-z0-9]+}}: vector<64xf32>, %[[C:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index)
//   CHECK-DAG: %[[K0:.*]] = arith.constant 0 : index
//   CHECK-DAG: %[[K48:.*]] = arith.constant 48 : index
//   CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[C]], %[[N]], %[[K48]]] : memref<2x128x64xf16, 3>
//  CHECK-NEXT: vector.shuffle %[[P]], %[[P]] [24, 25, 26, 27, 28, 29, 30, 31] : vector<64xf16>, vector<64xf16>
//  CHECK-NEXT: tile.wgmma_rs
//  CHECK-NEXT: %[[C1:.*]] = arith.addi %[[C]], %[[ONE]] : index
//  CHECK-NEXT: %[[DB4:.*]] = tile.wgmma_descriptor %{{.*}}[%[[C1]], %[[N]], %[[K0]]] : memref<2x128x64xf16, 3>
//  CHECK-NEXT: %[[A4:.*]] = vector.shuffle %[[P]], %[[P]] [32, 33, 34, 35, 36, 37, 38, 39] : vector<64xf16>, vector<64xf16>
//  CHECK-NEXT: tile.wgmma_rs %[[A4]], %[[DB4]], %{{.*}} {n = 128 : i64} : vector<8xf16>, vector<64xf32>
//       CHECK: vector.shuffle %[[P]], %[[P]] [56, 57, 58, 59, 60, 61, 62, 63]
//  CHECK-NEXT: tile.wgmma_rs
//  CHECK-NEXT: tile.wgmma_commit_group
//  CHECK-NEXT: tile.wgmma_wait_group 0
gpu.module @k_spans {
  gpu.func @k_spans(%acc: vector<64xf32>, %ac: index, %row: index, %s: index, %bc: index,
                    %bn: index) kernel {
    // K over two spans starts at column 0 (T-WGMMA-3).
    %ak = arith.constant 0 : index
    %bk = arith.constant 0 : index
    %sq = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x2x128x64xbf16, 3>
    %0 = tile.warpgroup_mma %sq[%ac, %row, %ak], %sk[%s, %bc, %bn, %bk], %acc {shape = array<i64: 64, 128, 128>, wait = 1 : i32}
        : memref<2x128x64xbf16, 3>, memref<2x2x128x64xbf16, 3>, vector<64xf32>
    gpu.return
  }
  gpu.func @rs_k_spans(%p: vector<64xf16>, %acc: vector<64xf32>, %c: index, %n: index) kernel {
    %k = arith.constant 0 : index
    %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
    %0 = tile.warpgroup_mma_rs %p, %sb[%c, %n, %k], %acc {shape = array<i64: 64, 128, 128>, wait = 0 : i32}
        : vector<64xf16>, memref<2x128x64xf16, 3>, vector<64xf32>
    gpu.return
  }
}

// tile.warpgroup_row_reduce of a 64x32 tile (16 accumulators a thread): row
// h of the thread holds elements 4 j + 2 h + {0, 1}; a pairwise tree over
// those 8 (4 + 2 + 1 combines), then butterfly shuffles by 1 and 2 within
// the quad of lanes, each combined.
// CHECK-LABEL: gpu.func @row_max
//  CHECK-SAME: (%[[S:[a-z0-9]+]]: vector<16xf32>)
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i32
//   CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i32
//   CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i32
//       CHECK: %[[E0:.*]] = vector.extract %[[S]][0] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E1:.*]] = vector.extract %[[S]][1] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E4:.*]] = vector.extract %[[S]][4] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E5:.*]] = vector.extract %[[S]][5] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E8:.*]] = vector.extract %[[S]][8] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E9:.*]] = vector.extract %[[S]][9] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E12:.*]] = vector.extract %[[S]][12] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E13:.*]] = vector.extract %[[S]][13] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[M01:.*]] = arith.maxnumf %[[E0]], %[[E1]] : f32
//  CHECK-NEXT: %[[M45:.*]] = arith.maxnumf %[[E4]], %[[E5]] : f32
//  CHECK-NEXT: %[[M89:.*]] = arith.maxnumf %[[E8]], %[[E9]] : f32
//  CHECK-NEXT: %[[M1213:.*]] = arith.maxnumf %[[E12]], %[[E13]] : f32
//  CHECK-NEXT: %[[MA:.*]] = arith.maxnumf %[[M01]], %[[M45]] : f32
//  CHECK-NEXT: %[[MB:.*]] = arith.maxnumf %[[M89]], %[[M1213]] : f32
//  CHECK-NEXT: %[[ROW0:.*]] = arith.maxnumf %[[MA]], %[[MB]] : f32
//  CHECK-NEXT: %[[X1:.*]], %{{.*}} = gpu.shuffle xor %[[ROW0]], %[[C1]], %[[C32]] : f32
//  CHECK-NEXT: %[[Q1:.*]] = arith.maxnumf %[[ROW0]], %[[X1]] : f32
//  CHECK-NEXT: %[[X2:.*]], %{{.*}} = gpu.shuffle xor %[[Q1]], %[[C2]], %[[C32]] : f32
//  CHECK-NEXT: %[[R0:.*]] = arith.maxnumf %[[Q1]], %[[X2]] : f32
//  CHECK-NEXT: vector.extract %[[S]][2] : f32 from vector<16xf32>
//  CHECK-NEXT: vector.extract %[[S]][3] : f32 from vector<16xf32>
//  CHECK-NEXT: vector.extract %[[S]][6] : f32 from vector<16xf32>
//       CHECK: vector.extract %[[S]][15] : f32 from vector<16xf32>
//       CHECK: gpu.shuffle xor %{{.*}}, %[[C1]], %[[C32]] : f32
//       CHECK: %[[X2B:.*]], %{{.*}} = gpu.shuffle xor %[[Q1B:.*]], %[[C2]], %[[C32]] : f32
//  CHECK-NEXT: %[[R1:.*]] = arith.maxnumf %[[Q1B]], %[[X2B]] : f32
//  CHECK-NEXT: %[[V:.*]] = vector.from_elements %[[R0]], %[[R1]] : vector<2xf32>
//  CHECK-NEXT: gpu.return %[[V]] : vector<2xf32>
// A 128x16 sum: rows 2 i + h; the last (block 1, h = 1) is elements
// 8 + 2 + {0, 1} and 8 + 6 + {0, 1}, summed in a tree of 2 + 1 adds.
// CHECK-LABEL: gpu.func @row_sum
//  CHECK-SAME: (%[[S:[a-z0-9]+]]: vector<16xf32>)
// CHECK-COUNT-3: gpu.shuffle xor
//       CHECK: %[[E10:.*]] = vector.extract %[[S]][10] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E11:.*]] = vector.extract %[[S]][11] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E14:.*]] = vector.extract %[[S]][14] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[E15:.*]] = vector.extract %[[S]][15] : f32 from vector<16xf32>
//  CHECK-NEXT: %[[A:.*]] = arith.addf %[[E10]], %[[E11]] : f32
//  CHECK-NEXT: %[[B:.*]] = arith.addf %[[E14]], %[[E15]] : f32
//  CHECK-NEXT: %[[T:.*]] = arith.addf %[[A]], %[[B]] : f32
//  CHECK-NEXT: gpu.shuffle xor %[[T]]
//       CHECK: gpu.shuffle xor
//       CHECK: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
//   CHECK-NOT: gpu.shuffle
// tile.warpgroup_broadcast_rows of a 128x16 tile: element 4 j + 2 h + e of
// block i is row value 2 i + h.
// CHECK-LABEL: gpu.func @broadcast
//  CHECK-SAME: (%[[M:[a-z0-9]+]]: vector<4xf32>)
//  CHECK-NEXT: %[[B:.*]] = vector.shuffle %[[M]], %[[M]] [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 2, 2, 3, 3] : vector<4xf32>, vector<4xf32>
//  CHECK-NEXT: gpu.return %[[B]] : vector<16xf32>
// tile.warpgroup_iota of a 128x16 tile: the thread's origin (row 16 (warp
// mod 4) + lane / 4, column 2 (lane mod 4)) plus 64 i + 8 h (rows) or
// 8 j + e (columns).
// CHECK-LABEL: gpu.func @iota
//   CHECK-DAG: %[[COLS:.*]] = arith.constant dense<[0, 1, 0, 1, 8, 9, 8, 9, 0, 1, 0, 1, 8, 9, 8, 9]> : vector<16xi32>
//   CHECK-DAG: %[[ROWS:.*]] = arith.constant dense<[0, 0, 8, 8, 0, 0, 8, 8, 64, 64, 72, 72, 64, 64, 72, 72]> : vector<16xi32>
//       CHECK: %[[TID:.*]] = gpu.thread_id x
//       CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32 : index
//       CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
//       CHECK: %[[W4:.*]] = arith.remui %[[WARP]], %c4 : index
//       CHECK: %[[W16:.*]] = arith.muli %[[W4]], %c16 : index
//       CHECK: %[[L4:.*]] = arith.divui %[[LANE]], %c4 : index
//       CHECK: %[[ROW:.*]] = arith.addi %[[W16]], %[[L4]] : index
//       CHECK: %[[ROW32:.*]] = arith.index_cast %[[ROW]] : index to i32
//       CHECK: %[[ROWV:.*]] = vector.broadcast %[[ROW32]] : i32 to vector<16xi32>
//       CHECK: %[[R:.*]] = arith.addi %[[ROWV]], %[[ROWS]] : vector<16xi32>
//       CHECK: %[[LM4:.*]] = arith.remui %{{.*}}, %c4 : index
//       CHECK: %[[COL:.*]] = arith.muli %[[LM4]], %c2 : index
//       CHECK: %[[COL32:.*]] = arith.index_cast %[[COL]] : index to i32
//       CHECK: %[[COLV:.*]] = vector.broadcast %[[COL32]] : i32 to vector<16xi32>
//       CHECK: %[[C:.*]] = arith.addi %[[COLV]], %[[COLS]] : vector<16xi32>
//       CHECK: gpu.return %[[R]], %[[C]] : vector<16xi32>, vector<16xi32>
gpu.module @fragments {
  gpu.func @row_max(%s: vector<16xf32>) -> vector<2xf32> {
    %m = tile.warpgroup_row_reduce <maxnumf> %s {shape = array<i64: 64, 32>} : vector<16xf32> -> vector<2xf32>
    gpu.return %m : vector<2xf32>
  }
  gpu.func @row_sum(%s: vector<16xf32>) -> vector<4xf32> {
    %m = tile.warpgroup_row_reduce <add> %s {shape = array<i64: 128, 16>} : vector<16xf32> -> vector<4xf32>
    gpu.return %m : vector<4xf32>
  }
  gpu.func @broadcast(%m: vector<4xf32>) -> vector<16xf32> {
    %b = tile.warpgroup_broadcast_rows %m {shape = array<i64: 128, 16>} : vector<4xf32> -> vector<16xf32>
    gpu.return %b : vector<16xf32>
  }
  gpu.func @iota() -> (vector<16xi32>, vector<16xi32>) {
    %r = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 128, 16>} : vector<16xi32>
    %c = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 128, 16>} : vector<16xi32>
    gpu.return %r, %c : vector<16xi32>, vector<16xi32>
  }
}

// tile.warpgroup_tma_store through a rank-4 descriptor (box [1, 1, 64, 64]
// of a (batch, heads, rows, columns) tensor) of a 128x128 tile: the chunks'
// rows and columns offset the last two coordinates, the leading ones stay.
// CHECK-LABEL: gpu.func @tma_epilogue_rank4
//  CHECK-SAME: (%{{.*}}: vector<128xf32>, %[[O:.*]]: !tile.tma_desc{{.*}}, %[[WG:[a-z0-9]+]]: index, %[[B:[a-z0-9]+]]: index, %[[H:[a-z0-9]+]]: index, %[[M:[a-z0-9]+]]: index, %[[N:[a-z0-9]+]]: index)
//       CHECK: tile.tma_store %[[STAGING:.*]][%[[WG]], %c0] to %[[O]][%[[B]], %[[H]], %[[M]], %[[N]]] : memref<2x2x64x64xbf16, 3>
//       CHECK: %[[N64:.*]] = arith.addi %[[N]], %c64 : index
//  CHECK-NEXT: tile.tma_store %[[STAGING]][%[[WG]], %c1] to %[[O]][%[[B]], %[[H]], %[[M]], %[[N64]]]
//       CHECK: %[[M64:.*]] = arith.addi %[[M]], %c64 : index
//  CHECK-NEXT: tile.tma_store %[[STAGING]][%[[WG]], %c0] to %[[O]][%[[B]], %[[H]], %[[M64]], %[[N]]]
//       CHECK: %[[M64B:.*]] = arith.addi %[[M]], %c64 : index
//  CHECK-NEXT: %[[N64B:.*]] = arith.addi %[[N]], %c64 : index
//  CHECK-NEXT: tile.tma_store %[[STAGING]][%[[WG]], %c1] to %[[O]][%[[B]], %[[H]], %[[M64B]], %[[N64B]]]
//   CHECK-NOT: tile.tma_store
!o4 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 64, 64], swizzle = b128>
gpu.module @epilogue_rank4 {
  gpu.func @tma_epilogue_rank4(%acc: vector<128xf32>, %o: !o4, %wg: index, %b: index, %h: index, %m: index,
                               %n: index) kernel {
    %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x64xbf16, 3>
    tile.warpgroup_tma_store %acc, %staging[%wg] to %o[%b, %h, %m, %n] {shape = array<i64: 128, 128>}
        : vector<128xf32>, memref<2x2x64x64xbf16, 3>, !o4
    gpu.return
  }
}

// tile.warpgroup_tma_store of f32 partial sums with `reduce add`: each
// thread's pairs stored whole (stmatrix moves 16-bit values), then one TMA
// reduction per 64 x 32 chunk instead of a store.
// CHECK-LABEL: gpu.func @tma_reduction
//       CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %c0, %{{.*}}, %{{.*}}] : memref<2x2x64x32xf32, 3>, vector<2xf32>
//       CHECK: tile.tma_reduce add %{{.*}}[%{{.*}}, %c0] to %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x2x64x32xf32, 3>
//       CHECK: tile.tma_reduce add %{{.*}}[%{{.*}}, %c1] to %{{.*}}[%{{.*}}, %{{.*}}] : memref<2x2x64x32xf32, 3>
//   CHECK-NOT: tile.tma_store
//   CHECK-NOT: tile.stmatrix
!sum = !tile.tma_desc<memref<?x?xf32>, box = [64, 32], swizzle = b128>
gpu.module @reduction {
  gpu.func @tma_reduction(%acc: vector<32xf32>, %sum: !sum, %wg: index, %m: index, %n: index) kernel {
    %staging = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x2x64x32xf32, 3>
    tile.warpgroup_tma_store %acc, %staging[%wg] to %sum[%m, %n] reduce add {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<2x2x64x32xf32, 3>, !sum
    gpu.return
  }
}

// tile.warpgroup_mma_store into a stage of a ring: the pairs' stores keep
// the leading indices (stage, chunk) and take the fragment's row and column
// in the last two.
// CHECK-LABEL: gpu.func @store_ring_stage
//  CHECK-SAME: (%{{.*}}: vector<32xf32>, %[[S:[a-z0-9]+]]: index, %[[ROW:[a-z0-9]+]]: index)
//   CHECK-NOT: scf.if
//       CHECK: vector.store %{{.*}}, %{{.*}}[%[[S]], %c0, %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<2x1x128x64xbf16, 3>, vector<2xbf16>
gpu.module @ring_stage {
  gpu.func @store_ring_stage(%acc: vector<32xf32>, %s: index, %row: index) kernel {
    %c0 = arith.constant 0 : index
    %ring = tile.shared_alloc : memref<2x1x128x64xbf16, 3>
    tile.warpgroup_mma_store %acc, %ring[%s, %c0, %row, %c0] {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<2x1x128x64xbf16, 3>
    gpu.return
  }
}

// A 64 x 128 tile into a ring of 64-column spans: the first 64 columns
// (accumulators 0 .. 31) at span index %c0, the next at %c0 + 1, the same
// rows and columns within each span.
// CHECK-LABEL: gpu.func @store_spans
//  CHECK-SAME: (%[[ACC:[a-z0-9]+]]: vector<64xf32>, %[[S:[a-z0-9]+]]: index, %[[ROW:[a-z0-9]+]]: index)
//   CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
//       CHECK: vector.extract %[[ACC]][0]
//       CHECK: vector.store %{{.*}}, %{{.*}}[%[[S]], %c0, %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<2x2x64x64xbf16, 3>, vector<2xbf16>
//       CHECK: vector.extract %[[ACC]][32]
//       CHECK: vector.store %{{.*}}, %{{.*}}[%[[S]], %[[C1]], %{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<2x2x64x64xbf16, 3>, vector<2xbf16>
//       CHECK: vector.extract %[[ACC]][63]
//   CHECK-NOT: vector.store %{{.*}}, %{{.*}}[%[[S]], %c0,
//       CHECK: gpu.return
gpu.module @ring_spans {
  gpu.func @store_spans(%acc: vector<64xf32>, %s: index, %row: index) kernel {
    %c0 = arith.constant 0 : index
    %ring = tile.shared_alloc : memref<2x2x64x64xbf16, 3>
    tile.warpgroup_mma_store %acc, %ring[%s, %c0, %row, %c0] {shape = array<i64: 64, 128>}
        : vector<64xf32>, memref<2x2x64x64xbf16, 3>
    gpu.return
  }
}

// The same with leading dimensions whose strides are known only at run
// time: the pairs are stored as aligned words only where every stride but
// the last, the offset and the first column are even (tested at run time),
// else element-aligned; an odd static offset stores them element-aligned
// with no test.
// CHECK-LABEL: gpu.func @store_dynamic_leading
//       CHECK: memref.extract_strided_metadata
//       CHECK: scf.if
//       CHECK: vector.store {{.*}} {alignment = 4 : i64} : memref<2x?x64xbf16, strided<[?, ?, 1], offset: ?>>, vector<2xbf16>
//       CHECK: } else {
//       CHECK: vector.store {{.*}} : memref<2x?x64xbf16, strided<[?, ?, 1], offset: ?>>, vector<2xbf16>
// CHECK-LABEL: gpu.func @store_odd_offset
//   CHECK-NOT: scf.if
//   CHECK-NOT: alignment
//       CHECK: vector.store {{.*}} : memref<2x64x64xbf16, strided<[4096, 64, 1], offset: 1>>, vector<2xbf16>
//       CHECK: gpu.return
gpu.module @store_layouts {
  gpu.func @store_dynamic_leading(%acc: vector<32xf32>, %c: memref<2x?x64xbf16, strided<[?, ?, 1], offset: ?>>,
                                  %s: index, %row: index) kernel {
    %c0 = arith.constant 0 : index
    tile.warpgroup_mma_store %acc, %c[%s, %row, %c0] {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<2x?x64xbf16, strided<[?, ?, 1], offset: ?>>
    gpu.return
  }
  gpu.func @store_odd_offset(%acc: vector<32xf32>, %c: memref<2x64x64xbf16, strided<[4096, 64, 1], offset: 1>>,
                             %s: index) kernel {
    %c0 = arith.constant 0 : index
    tile.warpgroup_mma_store %acc, %c[%s, %c0, %c0] {shape = array<i64: 64, 64>}
        : vector<32xf32>, memref<2x64x64xbf16, strided<[4096, 64, 1], offset: 1>>
    gpu.return
  }
}

// tile.warpgroup_mma(_rs) with B of row groups (T-WGMMA-6), a D = 128 key
// block as (16 groups, 2 chunks, 8 rows, 64): K-major, the K steps past the
// first chunk index the chunk (the column from 0 again) and every
// descriptor has row_groups (its stride the groups'); MN-major, a 16-wide K
// step is two groups. Groups of 128 rows (the plain layout) take plain
// descriptors.
// CHECK-LABEL: gpu.func @row_groups_b
//  CHECK-SAME: (%{{.*}}: vector<64xf32>, %{{.*}}: vector<64xbf16>, %[[S:.*]]: index)
//       CHECK: %[[Z:.*]] = arith.constant 0 : index
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Z]], %[[Z]], %[[Z]], %[[Z]]] {row_groups} : memref<2x16x2x8x64xbf16, 3>
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Z]], %[[Z]], %[[Z]], %c16] {row_groups} : memref<2x16x2x8x64xbf16, 3>
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Z]], %c1, %[[Z]], %[[Z]]] {row_groups} : memref<2x16x2x8x64xbf16, 3>
//       CHECK: tile.wgmma_commit_group
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Z]], %[[Z]], %[[Z]], %[[Z]]] {mn_major, row_groups} : memref<2x16x2x8x64xbf16, 3>
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %c2, %[[Z]], %[[Z]], %[[Z]]] {mn_major, row_groups} : memref<2x16x2x8x64xbf16, 3>
//       CHECK: tile.wgmma_commit_group
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Z]], %[[Z]], %[[Z]], %[[Z]]] {mn_major} : memref<2x1x2x128x64xbf16, 3>
//       CHECK: tile.wgmma_descriptor %{{.*}}[%[[S]], %[[Z]], %[[Z]], %c16, %[[Z]]] {mn_major} : memref<2x1x2x128x64xbf16, 3>
gpu.module @row_groups {
  gpu.func @row_groups_b(%acc: vector<64xf32>, %p: vector<64xbf16>, %s: index) kernel {
    %c0 = arith.constant 0 : index
    %q = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x128x64xbf16, 3>
    %k = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x16x2x8x64xbf16, 3>
    %v = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<2x1x2x128x64xbf16, 3>
    %0 = tile.warpgroup_mma %q[%c0, %c0, %c0], %k[%s, %c0, %c0, %c0, %c0], %acc
        {shape = array<i64: 64, 128, 128>, wait = 1 : i32, b_row_groups}
        : memref<2x128x64xbf16, 3>, memref<2x16x2x8x64xbf16, 3>, vector<64xf32>
    %1 = tile.warpgroup_mma_rs %p, %k[%s, %c0, %c0, %c0, %c0], %0
        {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b, b_row_groups}
        : vector<64xbf16>, memref<2x16x2x8x64xbf16, 3>, vector<64xf32>
    %2 = tile.warpgroup_mma_rs %p, %v[%s, %c0, %c0, %c0, %c0], %1
        {shape = array<i64: 64, 128, 128>, wait = 0 : i32, transpose_b, b_row_groups}
        : vector<64xbf16>, memref<2x1x2x128x64xbf16, 3>, vector<64xf32>
    gpu.return
  }
}
