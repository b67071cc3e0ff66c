// math.exp2 fastmath<afn> on f32 in device code (inside a gpu.module) -> the
// llvm.nvvm.ex2.approx.ftz.f32 intrinsic (PTX ex2.approx.ftz.f32): a scalar
// directly, a 1-D vector element by element. Without afn, f64, n-D vectors,
// and host code keep math.exp2 (upstream lowers them).
// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: gpu.func @exp2_f32(
//  CHECK-SAME: %[[X:[a-z0-9]+]]: f32, %[[V:[a-z0-9]+]]: vector<4xf32>)
//       CHECK: %[[S:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]]) : (f32) -> f32
//       CHECK: %[[U:.*]] = llvm.mlir.undef : vector<4xf32>
//       CHECK: %[[I0:.*]] = llvm.mlir.constant(0 : i64) : i64
//  CHECK-NEXT: %[[E0:.*]] = llvm.extractelement %[[V]][%[[I0]] : i64] : vector<4xf32>
//  CHECK-NEXT: %[[X0:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[E0]]) : (f32) -> f32
//       CHECK: %[[R0:.*]] = llvm.insertelement %[[X0]], %[[U]][%{{.*}} : i64] : vector<4xf32>
//       CHECK: %[[I1:.*]] = llvm.mlir.constant(1 : i64) : i64
//  CHECK-NEXT: %[[E1:.*]] = llvm.extractelement %[[V]][%[[I1]] : i64] : vector<4xf32>
//  CHECK-NEXT: %[[X1:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[E1]]) : (f32) -> f32
//       CHECK: %[[R1:.*]] = llvm.insertelement %[[X1]], %[[R0]][%{{.*}} : i64] : vector<4xf32>
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
//   CHECK-NOT: llvm.call_intrinsic
//       CHECK: %[[R3:.*]] = llvm.insertelement %{{.*}}, %{{.*}}[%{{.*}} : i64] : vector<4xf32>
//       CHECK: gpu.return %[[S]], %[[R3]] : f32, vector<4xf32>
// f64, or not a 1-D vector: untouched.
// CHECK-LABEL: gpu.func @exp2_other_types(
//   CHECK-NOT: llvm.call_intrinsic
//       CHECK: math.exp2 %{{.*}} fastmath<afn> : f64
//       CHECK: math.exp2 %{{.*}} fastmath<afn> : vector<2xf64>
//       CHECK: math.exp2 %{{.*}} fastmath<afn> : vector<2x2xf32>
//   CHECK-NOT: llvm.call_intrinsic
// Without afn: libdevice's accuracy, left to upstream.
// CHECK-LABEL: gpu.func @exp2_exact(
//   CHECK-NOT: llvm.call_intrinsic
//       CHECK: math.exp2 %{{.*}} : f32
// A func.func inside the gpu.module is device code too.
// CHECK-LABEL: func.func @device_helper(
//       CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
//   CHECK-NOT: math.exp2
gpu.module @k {
  gpu.func @exp2_f32(%x: f32, %v: vector<4xf32>) -> (f32, vector<4xf32>) {
    %0 = math.exp2 %x fastmath<afn> : f32
    %1 = math.exp2 %v fastmath<fast> : vector<4xf32>
    gpu.return %0, %1 : f32, vector<4xf32>
  }
  gpu.func @exp2_other_types(%d: f64, %vd: vector<2xf64>, %m: vector<2x2xf32>)
      -> (f64, vector<2xf64>, vector<2x2xf32>) {
    %0 = math.exp2 %d fastmath<afn> : f64
    %1 = math.exp2 %vd fastmath<afn> : vector<2xf64>
    %2 = math.exp2 %m fastmath<afn> : vector<2x2xf32>
    gpu.return %0, %1, %2 : f64, vector<2xf64>, vector<2x2xf32>
  }
  gpu.func @exp2_exact(%x: f32) -> f32 {
    %0 = math.exp2 %x : f32
    gpu.return %0 : f32
  }
  func.func @device_helper(%x: f32) -> f32 {
    %0 = math.exp2 %x fastmath<afn> : f32
    return %0 : f32
  }
}

// Host code (outside any gpu.module): untouched.
// CHECK-LABEL: func.func @host(
//  CHECK-SAME: %[[X:[a-z0-9]+]]: f32)
//  CHECK-NEXT: %[[E:.*]] = math.exp2 %[[X]] fastmath<afn> : f32
//  CHECK-NEXT: return %[[E]] : f32
func.func @host(%x: f32) -> f32 {
  %0 = math.exp2 %x fastmath<afn> : f32
  return %0 : f32
}
