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

// tile.wgmma_rs: inline PTX of the register-A wgmma (no NVVM op takes A from
// registers). Outputs $0 .. $R-1 are the accumulator registers, then A's 8
// 16-bit elements as four .b32 registers ($R .. $R+3, bitcast from the
// vector), the B descriptor ($R+4, "l"), and the accumulator inputs tied to
// the outputs ("0" .. "R-1"). scale-d is the predicate p: 1 for an
// accumulator that is read; with transpose_b imm-trans-b = 1.
// CHECK-LABEL: gpu.func @rs_bf16(
//  CHECK-SAME: %[[A:[a-z0-9]+]]: vector<8xbf16>, %[[DB:[a-z0-9]+]]: i64, %[[ACC:[a-z0-9]+]]: vector<8xf32>)
//       CHECK: %[[AV:.*]] = llvm.bitcast %[[A]] : vector<8xbf16> to vector<4xi32>
//       CHECK: %[[A0:.*]] = llvm.extractelement %[[AV]][%{{.*}} : i64] : vector<4xi32>
//       CHECK: %[[A1:.*]] = llvm.extractelement %[[AV]][%{{.*}} : i64] : vector<4xi32>
//       CHECK: %[[A2:.*]] = llvm.extractelement %[[AV]][%{{.*}} : i64] : vector<4xi32>
//       CHECK: %[[A3:.*]] = llvm.extractelement %[[AV]][%{{.*}} : i64] : vector<4xi32>
//       CHECK: %[[C0:.*]] = llvm.extractelement %[[ACC]][%{{.*}} : i64] : vector<8xf32>
// CHECK-COUNT-6: llvm.extractelement %[[ACC]]
//       CHECK: %[[C7:.*]] = llvm.extractelement %[[ACC]][%{{.*}} : i64] : vector<8xf32>
//       CHECK: %[[D:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 {$0, $1, $2, $3, $4, $5, $6, $7}, {$8, $9, $10, $11}, $12, p, 1, 1, 1;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,r,r,r,l,0,1,2,3,4,5,6,7" %[[A0]], %[[A1]], %[[A2]], %[[A3]], %[[DB]], %[[C0]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C7]] : (i32, i32, i32, i32, i64, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
//       CHECK: llvm.extractvalue %[[D]][0] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
//       CHECK: llvm.extractvalue %[[D]][7] : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
//   CHECK-NOT: tile.wgmma_rs
// A constant zero accumulator: scale-d = 0 (setp.ne.b32 p, 0, 0), and no
// accumulator input is read or tied. K-major B: imm-trans-b = 0. N = 64:
// 32 outputs, A in $32 .. $35, the descriptor $36.
// CHECK-LABEL: gpu.func @rs_zero(
//   CHECK-NOT: llvm.extractelement %{{.*}} : vector<32xf32>
//       CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](\$[0-9]+, ){31}\$31[}]}}, {$32, $33, $34, $35}, $36, p, 1, 1, 0;\0A}", "{{(=f,){32}r}},r,r,r,l" %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}} : (i32, i32, i32, i32, i64) -> !llvm.struct<({{(f32, ){31}f32}})>
//   CHECK-NOT: tile.wgmma_rs
// f16 inputs and f16 accumulators: two to a .b32 register ("=r"), packed
// from and unpacked to vector<2xf16>; 4 registers for N = 16.
// CHECK-LABEL: gpu.func @rs_f16(
//  CHECK-SAME: %[[A:[a-z0-9]+]]: vector<8xf16>, %[[DB:[a-z0-9]+]]: i64, %[[ACC:[a-z0-9]+]]: vector<8xf16>)
//       CHECK: llvm.bitcast %[[A]] : vector<8xf16> to vector<4xi32>
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xf16> to i32
//       CHECK: %[[D:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1, 0;\0A}", "=r,=r,=r,=r,r,r,r,r,l,0,1,2,3" %{{.*}} : (i32, i32, i32, i32, i64, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
//       CHECK: %[[R0:.*]] = llvm.extractvalue %[[D]][0] : !llvm.struct<(i32, i32, i32, i32)>
//  CHECK-NEXT: llvm.bitcast %[[R0]] : i32 to vector<2xf16>
// CHECK-COUNT-3: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
//   CHECK-NOT: tile.wgmma_rs
// 8-bit floats: m64nNk32 with .e4m3 (or .e5m2) A and B; A's 16 bytes are
// the four .b32 registers; no imm-trans-b operand (K-major only).
// CHECK-LABEL: gpu.func @rs_e4m3(
//  CHECK-SAME: %[[A:[a-z0-9]+]]: vector<16xf8E4M3FN>, %[[DB:[a-z0-9]+]]: i64, %[[ACC:[a-z0-9]+]]: vector<8xf32>)
//       CHECK: %[[AI:.*]] = builtin.unrealized_conversion_cast %[[A]] : vector<16xf8E4M3FN> to vector<16xi8>
//       CHECK: llvm.bitcast %[[AI]] : vector<16xi8> to vector<4xi32>
//       CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 {$0, $1, $2, $3, $4, $5, $6, $7}, {$8, $9, $10, $11}, $12, p, 1, 1;\0A}", "=f,=f,=f,=f,=f,=f,=f,=f,r,r,r,r,l,0,1,2,3,4,5,6,7"
// CHECK-LABEL: gpu.func @rs_e5m2_f16(
//       CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n16k32.f16.e5m2.e5m2 {$0, $1, $2, $3}, {$4, $5, $6, $7}, $8, p, 1, 1;\0A}", "=r,=r,=r,=r,r,r,r,r,l,0,1,2,3"
gpu.module @rs {
  gpu.func @rs_bf16(%a: vector<8xbf16>, %db: i64, %acc: vector<8xf32>) -> vector<8xf32> {
    %0 = tile.wgmma_rs %a, %db, %acc {n = 16 : i64, transpose_b} : vector<8xbf16>, vector<8xf32>
    gpu.return %0 : vector<8xf32>
  }
  gpu.func @rs_zero(%a: vector<8xbf16>, %db: i64) -> vector<32xf32> {
    %z = arith.constant dense<0.0> : vector<32xf32>
    %0 = tile.wgmma_rs %a, %db, %z {n = 64 : i64} : vector<8xbf16>, vector<32xf32>
    gpu.return %0 : vector<32xf32>
  }
  gpu.func @rs_f16(%a: vector<8xf16>, %db: i64, %acc: vector<8xf16>) -> vector<8xf16> {
    %0 = tile.wgmma_rs %a, %db, %acc {n = 16 : i64} : vector<8xf16>, vector<8xf16>
    gpu.return %0 : vector<8xf16>
  }
  gpu.func @rs_e4m3(%a: vector<16xf8E4M3FN>, %db: i64, %acc: vector<8xf32>) -> vector<8xf32> {
    %0 = tile.wgmma_rs %a, %db, %acc {n = 16 : i64} : vector<16xf8E4M3FN>, vector<8xf32>
    gpu.return %0 : vector<8xf32>
  }
  gpu.func @rs_e5m2_f16(%a: vector<16xf8E5M2>, %db: i64, %acc: vector<8xf16>) -> vector<8xf16> {
    %0 = tile.wgmma_rs %a, %db, %acc {n = 16 : i64} : vector<16xf8E5M2>, vector<8xf16>
    gpu.return %0 : vector<8xf16>
  }
}

// tile.wgmma_fence_operand: an empty inline-asm statement with side effects
// whose outputs are its inputs' registers, tied: f32 one to a register, f16
// two (as i32).
// CHECK-LABEL: gpu.func @fence_operand(
gpu.module @fence {
  gpu.func @fence_operand(%v: vector<4xf32>, %h: vector<4xf16>) -> vector<4xf32> {
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,=f,=f,0,1,2,3" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %p = tile.wgmma_fence_operand %v : vector<4xf32>
    // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,0,1" %{{.*}}, %{{.*}} : (i32, i32) -> !llvm.struct<(i32, i32)>
    %q = tile.wgmma_fence_operand %h : vector<4xf16>
    %e = vector.extract %q[0] : f16 from vector<4xf16>
    %f = arith.extf %e : f16 to f32
    %r = vector.insert %f, %p [0] : f32 into vector<4xf32>
    gpu.return %r : vector<4xf32>
  }
}

// tile.wgmma_descriptor: the start address field is the PTX ISA's
// encode(x) = (x & 0x3FFFF) >> 4 (higher bits of a shared address, which
// a CTA launched in a cluster has, would reach the leading byte offset at
// bit 16); then the indices in 16-byte units, the leading byte offset
// (an MN-major tile's chunk stride, 32 rows x 128 B = 4096 >> 4 = 256, at
// bit 16) and the constant high word (stride byte offset 1024 >> 4 = 64,
// 128-byte swizzle: layout type 1 at bit 62).
// CHECK-LABEL: gpu.func @descriptor_address(
//       CHECK:   %[[P:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
//  CHECK-NEXT:   %[[MASK:.*]] = llvm.mlir.constant(262143 : i32) : i32
//  CHECK-NEXT:   %[[MASKED:.*]] = llvm.and %[[P]], %[[MASK]] : i32
//  CHECK-NEXT:   %[[FOUR:.*]] = llvm.mlir.constant(4 : i32) : i32
//  CHECK-NEXT:   %[[START:.*]] = llvm.lshr %[[MASKED]], %[[FOUR]] : i32
//       CHECK:   llvm.mlir.constant(16777216 : i32) : i32
//       CHECK:   %[[LOW:.*]] = llvm.add %{{.*}}, %{{.*}} : i32
//  CHECK-NEXT:   %[[WIDE:.*]] = llvm.zext %[[LOW]] : i32 to i64
//  CHECK-NEXT:   %[[HIGH:.*]] = llvm.mlir.constant(4611686293305294848 : i64) : i64
//  CHECK-NEXT:   llvm.or %[[WIDE]], %[[HIGH]] : i64
gpu.module @descriptor {
  gpu.func @descriptor_address(%k: index) -> i64 {
    %c0 = arith.constant 0 : index
    %bt = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x32x64xf16, 3>
    %d = tile.wgmma_descriptor %bt[%c0, %k, %c0] {mn_major} : memref<2x32x64xf16, 3>
    gpu.return %d : i64
  }
}
