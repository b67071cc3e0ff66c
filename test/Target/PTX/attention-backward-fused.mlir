// The attention backward's fused kernel as PTX, assembled by ptxas for
// sm_90a without spills: python/tile/kernels/attention_bwd_fused_sm90.mlir
// as written (bf16, D = 128, 64-query steps, the packed-sequence path
// live) and as autograd compiles it for
// f16 and D = 64 (128-query steps; `python -m tile attention-backward`). Per
// step of a warpgroup's 64 keys: S^T = K Q^T and dP^T = V dO^T (m64nTk16,
// two shared-memory descriptors), dV += P^T dO and dK += dS^T Q in the
// register-A form (m64nDk16), dS^T stored to shared memory (f32 pairs
// converted, 64-query span by span), fenced for the async proxy, both
// warpgroups meeting at named barrier 9; then the warpgroup's 64 x 64 part
// of dQ = dS K with dS MN-major (imm-trans-a = 1) and K MN-major
// (imm-trans-b = 1), 128 keys (m64n64k16), added into dQ's float32 sum by two
// 4-D TMA reductions of 32 columns. `.minnctapersm 1` lets ptxas apply
// setmaxnreg (C7508 otherwise).
//
// RUN: tile-opt %tile_kernels/attention_bwd_fused_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 -DS=64 < %t.bf16.d128.ptx
// RUN: %python -m tile attention-backward | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx | FileCheck %s --check-prefix=REDUCE
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.bf16.d128.ptx -o %t.bf16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS --implicit-check-not=C7508 %}
// RUN: %python -m tile attention-backward --element f16 --head-dim 64 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.f16.d64.ptx
// RUN: FileCheck %s -DT=f16 -DD=64 -DS=128 --implicit-check-not=st.global --implicit-check-not=ld.global < %t.f16.d64.ptx
// RUN: FileCheck %s --check-prefix=REDUCE < %t.f16.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.f16.d64.ptx -o %t.f16.d64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS --implicit-check-not=C7508 %}
// The packed-sequence variant (tile.attention_varlen's; the dense variants
// fold its path away: no global loads or stores above): the offsets read,
// dK and dV added by TMA reductions into the zeroed gradients (one box of
// 64 rows x D = 64 each, beside dQ's two); no spills either.
// RUN: %python -m tile attention-backward --packed --element f16 --head-dim 64 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.packed.ptx
// RUN: FileCheck %s --check-prefix=PACKED --implicit-check-not=st.global < %t.packed.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.packed.ptx -o %t.packed.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS --implicit-check-not=C7508 %}

// CHECK-LABEL: .visible .entry attention_bwd_fused_d{{[0-9]+}}(
//       CHECK: .maxntid 384, 1, 1
//  CHECK-NEXT: .minnctapersm 1
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n[[S]]k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, )+%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, 0, {{ *}}0;
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n[[D]]k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, )+%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, {{ *}}1;
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, 1, {{ *}}1;
//   CHECK-DAG: bar.sync {{[ \t]*}}9, 256;
//   CHECK-DAG: ex2.approx.ftz.f32
//   CHECK-DAG: st.shared.v2.b32
//   CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [%r{{[0-9]+}}];
//   CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
//   CHECK-NOT: atom.global
//   CHECK-NOT: red.global

// dQ's reductions: one per 32 columns of a warpgroup's 64 x 64 part,
// nothing else.
// REDUCE-COUNT-2: cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group
//     REDUCE-NOT: cp.reduce

// NO-SPILLS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// PACKED: ld.global.b32
// PACKED: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PACKED-COUNT-4: cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile.bulk_group
// PACKED-NOT: cp.reduce
