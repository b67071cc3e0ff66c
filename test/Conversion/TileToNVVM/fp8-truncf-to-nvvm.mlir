// arith.truncf to f8E4M3FN / f8E5M2 in device code -> nvvm.convert.f32x2.to.f8x2
// (cvt.rn.satfinite, a pair of elements each; the first element in the low
// byte, so passed second), then arith.truncf's overflow where satfinite
// would clamp: a magnitude above 464 (0x43E80000) gives NaN (0x7F with the
// sign) for E4M3FN, one of 61440 (0x47700000) or more +-inf (0x7C) for
// E5M2; NaN (bits above 0x7F800000) keeps its conversion. f16 and bf16
// extend to f32 first; an odd last element pairs with itself. Host code and
// other float types keep arith.truncf.
// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

// CHECK-LABEL: gpu.func @scalar_e4m3(
//  CHECK-SAME: %[[X:[a-z0-9]+]]: f32
//       CHECK: %[[PAIR:.*]] = nvvm.convert.f32x2.to.f8x2 %[[X]], %[[X]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
//       CHECK: %[[BYTE:.*]] = llvm.extractelement %[[PAIR]][%{{.*}} : i64] : vector<2xi8>
//       CHECK: %[[BITS:.*]] = llvm.bitcast %[[X]] : f32 to i32
//       CHECK: %[[MAG:.*]] = llvm.and %[[BITS]], %{{.*}} : i32
//       CHECK: %[[INF:.*]] = llvm.mlir.constant(2139095040 : i32) : i32
//       CHECK: %[[NOTNAN:.*]] = llvm.icmp "ule" %[[MAG]], %[[INF]] : i32
//       CHECK: %[[LIMIT:.*]] = llvm.mlir.constant(1139277824 : i32) : i32
//       CHECK: %[[OVER:.*]] = llvm.icmp "ugt" %[[MAG]], %[[LIMIT]] : i32
//       CHECK: %[[BOTH:.*]] = llvm.and %[[NOTNAN]], %[[OVER]] : i1
//       CHECK: %[[NAN:.*]] = llvm.mlir.constant(127 : i8) : i8
//       CHECK: %[[SIGNED:.*]] = llvm.or %{{.*}}, %[[NAN]] : i8
//       CHECK: llvm.select %[[BOTH]], %[[SIGNED]], %[[BYTE]] : i1, i8
gpu.module @scalar {
  gpu.func @scalar_e4m3(%x: f32, %out: memref<4xf8E4M3FN>) kernel {
    %c0 = arith.constant 0 : index
    %q = arith.truncf %x : f32 to f8E4M3FN
    memref.store %q, %out[%c0] : memref<4xf8E4M3FN>
    gpu.return
  }
}

// CHECK-LABEL: gpu.func @vector_e5m2(
//  CHECK-SAME: %[[V:[a-z0-9]+]]: vector<3xf16>
//       CHECK: %[[E0:.*]] = llvm.extractelement %[[V]]
//       CHECK: %[[F0:.*]] = llvm.fpext %[[E0]] : f16 to f32
//       CHECK: %[[E1:.*]] = llvm.extractelement %[[V]]
//       CHECK: %[[F1:.*]] = llvm.fpext %[[E1]] : f16 to f32
//       CHECK: nvvm.convert.f32x2.to.f8x2 %[[F1]], %[[F0]] {{.*}} : vector<2xi8>(f8E5M2)
//       CHECK: llvm.mlir.constant(1198522368 : i32) : i32
//       CHECK: llvm.icmp "uge"
//       CHECK: llvm.mlir.constant(124 : i8) : i8
//       CHECK: %[[E2:.*]] = llvm.extractelement %[[V]]
//       CHECK: %[[F2:.*]] = llvm.fpext %[[E2]] : f16 to f32
//       CHECK: nvvm.convert.f32x2.to.f8x2 %[[F2]], %[[F2]] {{.*}} : vector<2xi8>(f8E5M2)
//       CHECK: llvm.mlir.undef : vector<3xi8>
//   CHECK-COUNT-3: llvm.insertelement
//       CHECK: vector.store
gpu.module @vector {
  gpu.func @vector_e5m2(%v: vector<3xf16>, %out: memref<3xf8E5M2>) kernel {
    %c0 = arith.constant 0 : index
    %w = arith.truncf %v : vector<3xf16> to vector<3xf8E5M2>
    vector.store %w, %out[%c0] : memref<3xf8E5M2>, vector<3xf8E5M2>
    gpu.return
  }
}

// CHECK-LABEL: func.func @host(
//       CHECK: arith.truncf %{{.*}} : f32 to f8E4M3FN
//   CHECK-NOT: nvvm.convert
func.func @host(%x: f32) -> f8E4M3FN {
  %q = arith.truncf %x : f32 to f8E4M3FN
  return %q : f8E4M3FN
}

// With the fast-math flag that makes the overflow value poison (nnan for
// E4M3FN, whose overflow is NaN; ninf for E5M2) the saturated bytes stand:
// one cvt a pair, its 16 bits (the first element low) one i16 of a vector
// bitcast to the bytes, no fix-up. Other flags keep it.
// CHECK-LABEL: gpu.func @poison_overflow(
//       CHECK: %[[P0:.*]] = nvvm.convert.f32x2.to.f8x2 %[[X1:.*]], %[[X0:.*]] {{.*}} : i16(f8E4M3FN)
//       CHECK: %[[V:.*]] = llvm.insertelement %[[P0]], %{{.*}}[%{{.*}} : i64] : vector<1xi16>
//       CHECK: llvm.bitcast %[[V]] : vector<1xi16> to vector<2xi8>
//   CHECK-NOT: llvm.icmp
//       CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
//   CHECK-NOT: llvm.icmp
//       CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E4M3FN)
//       CHECK: llvm.icmp "ugt"
// Four elements: pair i (elements 2i + 1, 2i, the first low) is i16 i.
//       CHECK: %[[E0:.*]] = llvm.extractelement %[[Y:[a-z0-9]+]][%{{.*}} : i64] : vector<4xf32>
//       CHECK: %[[E1:.*]] = llvm.extractelement %[[Y]][%{{.*}} : i64] : vector<4xf32>
//       CHECK: %[[Q0:.*]] = nvvm.convert.f32x2.to.f8x2 %[[E1]], %[[E0]] {{.*}} : i16(f8E4M3FN)
//       CHECK: %[[W0:.*]] = llvm.insertelement %[[Q0]], %{{.*}}[%[[I0:.*]] : i64] : vector<2xi16>
//       CHECK: %[[Q1:.*]] = nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E4M3FN)
//       CHECK: %[[W1:.*]] = llvm.insertelement %[[Q1]], %[[W0]][%{{.*}} : i64] : vector<2xi16>
//       CHECK: llvm.bitcast %[[W1]] : vector<2xi16> to vector<4xi8>
//   CHECK-NOT: llvm.icmp
gpu.module @poison {
  gpu.func @poison_overflow(%x: vector<2xf32>, %out: memref<2xf8E4M3FN>, %out5: memref<2xf8E5M2>) kernel {
    %c0 = arith.constant 0 : index
    %q = arith.truncf %x fastmath<nnan> : vector<2xf32> to vector<2xf8E4M3FN>
    vector.store %q, %out[%c0] : memref<2xf8E4M3FN>, vector<2xf8E4M3FN>
    %r = arith.truncf %x fastmath<ninf> : vector<2xf32> to vector<2xf8E5M2>
    vector.store %r, %out5[%c0] : memref<2xf8E5M2>, vector<2xf8E5M2>
    %t = arith.truncf %x fastmath<ninf> : vector<2xf32> to vector<2xf8E4M3FN>
    vector.store %t, %out[%c0] : memref<2xf8E4M3FN>, vector<2xf8E4M3FN>
    gpu.return
  }
  gpu.func @poison_pairs(%y: vector<4xf32>, %out: memref<4xf8E4M3FN>) kernel {
    %c0 = arith.constant 0 : index
    %q = arith.truncf %y fastmath<nnan> : vector<4xf32> to vector<4xf8E4M3FN>
    vector.store %q, %out[%c0] : memref<4xf8E4M3FN>, vector<4xf8E4M3FN>
    gpu.return
  }
}
