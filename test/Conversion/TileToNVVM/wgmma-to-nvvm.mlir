// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

// A zero accumulator is wgmma's scale-d = 0 (D = A * B): no register of it
// is materialized. Any other accumulator is read (scale-d = 1).
// CHECK-LABEL: gpu.func @fresh_and_accumulated(
gpu.module @k {
  gpu.func @fresh_and_accumulated(%da: i64, %db: i64, %acc: vector<32xf32>) -> vector<32xf32> {
    %zero = arith.constant dense<0.0> : vector<32xf32>
    // CHECK: %[[UNDEF:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32
    // CHECK-NOT: llvm.insertvalue
    // CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[UNDEF]], <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
    %fresh = tile.wgmma %da, %db, %zero {n = 64 : i64, inputType = f16} : vector<32xf32>
    // CHECK-COUNT-32: llvm.insertvalue
    // CHECK: nvvm.wgmma.mma_async {{.*}}, D[<f32>, <one>], A[<f16>, <one>, <row>]
    %sum = tile.wgmma %da, %db, %acc {n = 64 : i64, inputType = f16} : vector<32xf32>
    // A non-zero constant is read as any accumulator.
    %ones = arith.constant dense<1.0> : vector<32xf32>
    // CHECK: nvvm.wgmma.mma_async {{.*}}, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
    %biased = tile.wgmma %da, %db, %ones {n = 64 : i64, inputType = f8E4M3FN} : vector<32xf32>
    %r = arith.addf %fresh, %sum : vector<32xf32>
    %s = arith.addf %r, %biased : vector<32xf32>
    gpu.return %s : vector<32xf32>
  }

  // f16 accumulators: two to a register (f16x2), 16 registers for m64n64.
  // CHECK-LABEL: gpu.func @f16_accumulators(
  gpu.func @f16_accumulators(%da: i64, %db: i64, %acc: vector<32xf16>) -> vector<32xf16> {
    // CHECK-COUNT-16: llvm.insertvalue %{{.*}}, %{{.*}}[{{[0-9]+}}] : !llvm.struct<(vector<2xf16>
    // CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<f16>, <one>], A[<e5m2>, <one>, <row>], B[<e4m3>, <one>, <col>]
    // CHECK-COUNT-16: llvm.extractvalue
    %r = tile.wgmma %da, %db, %acc {n = 64 : i64, inputType = f8E5M2, inputTypeB = f8E4M3FN} : vector<32xf16>
    gpu.return %r : vector<32xf16>
  }
}
