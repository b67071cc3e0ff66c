// tile.reduce as PTX, assembled by ptxas for sm_90a: a warp sum (the
// butterfly: shfl.sync.bfly by 1, 2, 4, 8, 16 with all 32 lanes), a quad
// maximum (bfly by 1 and 2, max.NaN: maximumf propagates NaN), a warp i32
// sum in one redux.sync, a warpgroup sum (named barrier 1 + w of 128
// threads around the scratch) and a block sum (bar.sync 0 around it).
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// sm_75 has no redux.sync: the i32 sum is a butterfly too.
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_75" | tile-translate --extract-ptx -o %t75.ptx
// RUN: FileCheck %s --check-prefix=SM75 < %t75.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_75 %t75.ptx -o %t75.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry reductions(
// The warp sum.
//      CHECK: shfl.sync.bfly.b32 [[S1:%r[0-9]+]], [[V:%r[0-9]+]], 1, 31, -1;
// CHECK-NEXT: add.rn.f32 [[A1:%r[0-9]+]], [[V]], [[S1]];
// CHECK-NEXT: shfl.sync.bfly.b32 [[S2:%r[0-9]+]], [[A1]], 2, 31, -1;
//      CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 4, 31, -1;
//      CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 8, 31, -1;
//      CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16, 31, -1;
// The quad maximum.
//      CHECK: shfl.sync.bfly.b32 [[Q1:%r[0-9]+]], [[V]], 1, 31, -1;
// CHECK-NEXT: max.NaN.f32 [[M1:%r[0-9]+]], [[V]], [[Q1]];
// CHECK-NEXT: shfl.sync.bfly.b32 [[Q2:%r[0-9]+]], [[M1]], 2, 31, -1;
// CHECK-NEXT: max.NaN.f32 {{%r[0-9]+}}, [[M1]], [[Q2]];
// The i32 sum.
//      CHECK: mov.b32 [[ALL:%r[0-9]+]], -1;
// CHECK-NEXT: redux.sync.add.s32 {{%r[0-9]+}}, {{%r[0-9]+}}, [[ALL]];
// The warpgroup: bar.sync 1 + w, 128 before and after the partial's store,
// then the 4 partials.
//      CHECK: add.s32 [[ID:%r[0-9]+]], {{%r[0-9]+}}, 1;
// CHECK-NEXT: bar.sync [[ID]], 128;
//      CHECK: st.shared.b32
//      CHECK: bar.sync [[ID]], 128;
//      CHECK: ld.shared.v4.b32
// The block: bar.sync 0 around the partial's store; lanes past warp 7 add -0.
//      CHECK: bar.sync 0;
//      CHECK: st.shared.b32
//      CHECK: bar.sync 0;
//      CHECK: ld.shared.b32
//      CHECK: setp.lt.u64 [[IN:%p[0-9]+]], {{%rd[0-9]+}}, 8;
// CHECK-NEXT: selp.f32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0f80000000, [[IN]];
//      CHECK: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 16, 31, -1;
//
// SM75: .target sm_75
// SM75-NOT: redux.sync
// SM75: bar.sync 0;

gpu.module @k {
  gpu.func @reductions(%x: memref<?xf32>, %k: memref<?xi32>, %y: memref<?xf32>,
                       %z: memref<?xi32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %v = memref.load %x[%tid] : memref<?xf32>
    %i = memref.load %k[%tid] : memref<?xi32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %s = tile.reduce add %v over warp : f32
    memref.store %s, %y[%c0] : memref<?xf32>
    %m = tile.reduce maximumf %v over warp, lanes 4 : f32
    memref.store %m, %y[%c1] : memref<?xf32>
    %r = tile.reduce add %i over warp : i32
    memref.store %r, %z[%c0] : memref<?xi32>
    %w = tile.reduce add %v over warpgroup : f32
    memref.store %w, %y[%c2] : memref<?xf32>
    %b = tile.reduce add %v over block : f32
    memref.store %b, %y[%c3] : memref<?xf32>
    gpu.return
  }
}
