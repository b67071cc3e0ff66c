// wgmma with 8-bit float operands as PTX, assembled by ptxas for sm_90a: the
// kernel of Integration/GPU/wgmma-fp8.mlir (k32 per instruction, e4m3 x e4m3
// and e4m3 x e5m2, and e4m3 x e4m3 into f16 accumulators: 16 registers of
// two f16 for m64n64; no imm-scale/imm-trans operands, which PTX allows only
// for f16/bf16). The descriptors of the 128-element rows are those of a
// 64-element f16 row: both are one 128-byte span.
//
// RUN: tile-opt %S/../../Integration/GPU/wgmma-fp8.mlir --tile-to-ptx-pipeline="chip=sm_90a" -o %t.mlir
// RUN: tile-translate --extract-ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: tile-opt %S/../../Integration/GPU/wgmma-fp8.mlir -tile-swizzle-accesses -convert-tile-to-nvvm | FileCheck %s --check-prefix=NVVM

// CHECK-LABEL: .visible .entry wgmma_fp8(
//       CHECK: wgmma.fence.sync.aligned;
//       CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{[{]}}%r{{[0-9]+}}, {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
//       CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e5m2 {{[{]}}%r{{[0-9]+}}, {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
//       CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f16.e4m3.e4m3 {{[{](%r[0-9]+, ){15}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
//       CHECK: wgmma.commit_group.sync.aligned;
//       CHECK: wgmma.wait_group.sync.aligned 0;

// Layout type 1 (128B) << 62 | stride byte offset 1024 >> 4 << 32 (the high
// word); leading 16 >> 4 << 16 added to the low word.
// NVVM: llvm.mlir.constant(65536 : i32) : i32
// NVVM: llvm.mlir.constant(4611686293305294848 : i64) : i64
// NVVM: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// NVVM: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
// NVVM: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<f16>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>] : !llvm.struct<({{(vector<2xf16>, ){15}vector<2xf16>}})>
