// FP8 outputs in device code, lowered to PTX and assembled (sm_90a):
// arith.truncf to f8E4M3FN and f8E5M2 (T-TARGET-7) as
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32, a pair of elements each, with
// arith.truncf's overflow (NaN / +-inf) selected where satfinite would
// clamp; and a wgmma accumulator tile stored to an e4m3 matrix
// (tile.warpgroup_mma_store converts with arith.truncf, pairs as one 2-byte
// store).
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_80" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: .entry quantize(
//       CHECK: cvt.rn.satfinite.e4m3x2.f32
//       CHECK: cvt.rn.satfinite.e5m2x2.f32
//       CHECK: st.global.b8
// CHECK-LABEL: .entry store_tile(
//       CHECK: cvt.rn.satfinite.e4m3x2.f32
//       CHECK: st.global.v2.b8
// PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// SM80: error: 'arith.truncf' op to 'f8E4M3FN' converts with cvt.rn.satfinite.e4m3x2.f32, which needs sm_89 and PTX ISA 7.8, but the target is sm_80 with PTX 8.0 (T-TARGET-7)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @quantize(%x: memref<?xf32>, %q: memref<?xf8E4M3FN>, %r: memref<?xf8E5M2>) kernel {
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %i = arith.muli %tid, %c2 : index
      %v = vector.load %x[%i] : memref<?xf32>, vector<2xf32>
      %e4 = arith.truncf %v : vector<2xf32> to vector<2xf8E4M3FN>
      %e5 = arith.truncf %v : vector<2xf32> to vector<2xf8E5M2>
      vector.store %e4, %q[%i] : memref<?xf8E4M3FN>, vector<2xf8E4M3FN>
      vector.store %e5, %r[%i] : memref<?xf8E5M2>, vector<2xf8E5M2>
      gpu.return
    }
    gpu.func @store_tile(%acc: vector<8xf32>, %c: memref<?x?xf8E4M3FN>, %m: index, %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      tile.warpgroup_mma_store %acc, %c[%c0, %c0] bounds [%m, %n] {shape = array<i64: 64, 16>}
          : vector<8xf32>, memref<?x?xf8E4M3FN>
      gpu.return
    }
  }
}
