// The RoPE kernels of python/tile/ops/rope.py as PTX, assembled by ptxas.
// q and k, bf16, head dim 128: a thread loads 16 bytes of a row's first
// half and the matching 16 of its second half (64 elements, 128 bytes
// further), the same two vectors of the cos and of the sin table's row,
// rotates them in f32 (products and a difference/sum, each rounded to f32)
// and stores both vectors back where they came from: four 128-bit loads
// and two 128-bit stores, one code path for q and k (the rows of k follow
// q's in the grid). Offsets are 64-bit: s64 products of the indices and
// the views' dynamic strides, u64 divisions (taken in 32 bits at run time
// when the operands fit) splitting a row into (b, s, h). q alone, f16,
// head dim 64: the second half 64 bytes further.
//
// RUN: %python -m tile rope > %t.mlir
// RUN: tile-opt %t.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,QK < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: %python -m tile rope --element f16 --head-dim 64 --no-k > %t.q.mlir
// RUN: tile-opt %t.q.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.q.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,Q < %t.q.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.q.ptx -o %t.q.cubin %}

// QK-LABEL: .visible .entry rope_qk(
// Q-LABEL: .visible .entry rope(
// CHECK: .maxntid 256, 1, 1
// CHECK: mul.lo.s64
// CHECK: div.u64
// CHECK: div.u64
// CHECK: mul.lo.s64
// QK: ld.global.v4.b32 {{.*}}, [[[X:%rd[0-9]+]]];
// QK: ld.global.v4.b32 {{.*}}, [[[X]]+128];
// QK: ld.global.v4.b32 {{.*}}, [[[COS:%rd[0-9]+]]];
// QK: ld.global.v4.b32 {{.*}}, [[[COS]]+128];
// QK: ld.global.v4.b32 {{.*}}, [[[SIN:%rd[0-9]+]]];
// QK: ld.global.v4.b32 {{.*}}, [[[SIN]]+128];
// Q: ld.global.v4.b32 {{.*}}, [[[X:%rd[0-9]+]]];
// Q: ld.global.v4.b32 {{.*}}, [[[X]]+64];
// Q: ld.global.v4.b32 {{.*}}, [[[COS:%rd[0-9]+]]];
// Q: ld.global.v4.b32 {{.*}}, [[[COS]]+64];
// Q: ld.global.v4.b32 {{.*}}, [[[SIN:%rd[0-9]+]]];
// Q: ld.global.v4.b32 {{.*}}, [[[SIN]]+64];
// CHECK-NOT: ld.global
// CHECK-COUNT-16: mul.rn.f32
// CHECK-COUNT-8: sub.rn.f32
// CHECK-COUNT-16: mul.rn.f32
// CHECK-COUNT-8: add.rn.f32
// QK: cvt.rn.bf16x2.f32
// Q: cvt.rn.f16x2.f32
// CHECK: st.global.v4.b32 [[[X]]], {
// QK: st.global.v4.b32 [[[X]]+128], {
// Q: st.global.v4.b32 [[[X]]+64], {
// CHECK-NOT: st.global
// CHECK-NOT: ld.global
// CHECK: ret;
