// The fused attention kernel as PTX, assembled by ptxas for sm_90a:
// python/tile/kernels/attention_sm90.mlir as written (bf16, D = 128) and
// its variants as tile.attention compiles them (`python -m tile
// attention-prefill`: `!e` f16, the head-dimension aliases for D = 64,
// the softcap branch folded away without --softcap). Both head dimensions
// (@attention_d128, @attention_d64) take their four tensor maps by
// value (T-TMA-22), lower the producer's registers and raise the
// consumers' (setmaxnreg), load Q, K and V with 4-D TMA boxes
// (cp.async.bulk.tensor.4d ... mbarrier::complete_tx), wait for their turn
// at a named barrier of the two ping-pong warpgroups (bar.sync id, 256),
// issue S = Q K^T as m64n128k16 wgmmas from two shared-memory descriptors
// (128 keys; 8 K steps for a head dimension of 128 over two 64-wide
// chunks, 4 for 64), then O += P V with P in registers (the register-A
// form: four .b32 A registers, V MN-major: imm-trans-b = 1; m64n128k16 for
// D = 128, m64n64k16 for D = 64), hand the turn over (bar.arrive id, 256),
// compute the softmax with quad shuffles and ex2.approx.ftz.f32, and store
// O through stmatrix and 4-D TMA stores (bulk groups). Compiled as
// tile.attention compiles it, with a 32-bit index (its scalar parameters are
// .u32) and 32-bit shared addresses.
//
// RUN: tile-opt %tile_kernels/attention_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.file.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 --implicit-check-not=__nv_exp2f < %t.file.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.file.ptx -o %t.file.cubin %}
// RUN: %python -m tile attention-prefill --element bf16 --head-dim 128 --softcap --left-edge | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 --implicit-check-not=__nv_exp2f < %t.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 --check-prefix=D128 < %t.bf16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.bf16.d128.ptx -o %t.bf16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element f16 --head-dim 128 --softcap | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.f16.d128.ptx
// RUN: FileCheck %s -DT=f16 -DD=128 --implicit-check-not=__nv_exp2f < %t.f16.d128.ptx
// RUN: FileCheck %s -DT=f16 --check-prefix=D128 < %t.f16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.f16.d128.ptx -o %t.f16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element bf16 --head-dim 64 --softcap --left-edge | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.bf16.d64.ptx
// RUN: FileCheck %s -DT=bf16 -DD=64 --implicit-check-not=__nv_exp2f < %t.bf16.d64.ptx
// RUN: FileCheck %s -DT=bf16 --check-prefix=D64 < %t.bf16.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.bf16.d64.ptx -o %t.bf16.d64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element f16 --head-dim 64 --softcap | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.f16.d64.ptx
// RUN: FileCheck %s -DT=f16 -DD=64 --implicit-check-not=__nv_exp2f < %t.f16.d64.ptx
// RUN: FileCheck %s -DT=f16 --check-prefix=D64 < %t.f16.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.f16.d64.ptx -o %t.f16.d64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element bf16 --head-dim 128 --cache-rows 16 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.cache16.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 --implicit-check-not=__nv_exp2f < %t.cache16.bf16.d128.ptx
// RUN: FileCheck %s --check-prefix=CACHE < %t.cache16.bf16.d128.ptx
// RUN: FileCheck %s --check-prefix=CACHE128 < %t.cache16.bf16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.cache16.bf16.d128.ptx -o %t.cache16.bf16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element f16 --head-dim 64 --cache-rows 64 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.cache64.f16.d64.ptx
// RUN: FileCheck %s -DT=f16 -DD=64 --implicit-check-not=__nv_exp2f < %t.cache64.f16.d64.ptx
// RUN: FileCheck %s --check-prefix=CACHE < %t.cache64.f16.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.cache64.f16.d64.ptx -o %t.cache64.f16.d64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element bf16 --head-dim 128 --cache-rows 0 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.lengths.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 --implicit-check-not=__nv_exp2f < %t.lengths.bf16.d128.ptx
// RUN: FileCheck %s --check-prefix=LENGTHS < %t.lengths.bf16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.lengths.bf16.d128.ptx -o %t.lengths.bf16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element bf16 --head-dim 128 --packed --softcap | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.packed.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 --implicit-check-not=__nv_exp2f < %t.packed.bf16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.packed.bf16.d128.ptx -o %t.packed.bf16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element f16 --head-dim 128 --packed --lse | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.packed.lse.f16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.packed.lse.f16.d128.ptx -o %t.packed.lse.f16.d128.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element bf16 --head-dim 64 --packed --softcap | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.packed.bf16.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.packed.bf16.d64.ptx -o %t.packed.bf16.d64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --element f8E4M3FN --softcap --left-edge | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.fp8.ptx
// RUN: FileCheck %s --check-prefix=FP8 --implicit-check-not=1139277824 < %t.fp8.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fp8.ptx -o %t.fp8.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill > %t.nocap.mlir
// RUN: not grep -q "arith.andi %%softcap" %t.nocap.mlir
// RUN: grep -q "%%use_cap = arith.constant false" %t.nocap.mlir
// RUN: grep -q "%%has_left = arith.constant false" %t.nocap.mlir
// RUN: %python -m tile attention-prefill --left-edge | grep -q "%%has_left = arith.constant true"
// RUN: tile-opt %t.nocap.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.nocap.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.nocap.ptx -o %t.nocap.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: not %python -m tile attention-prefill --cache-rows 16 --softcap 2>&1 | FileCheck %s --check-prefix=NO-CACHE-SOFTCAP

// The variants tile.attention compiles with the softcap branch (folded
// away for calls without a cap: the nocap lines) and the window's left
// edge (--left-edge; folded away for calls without one, whose masked
// blocks then compare no left edge: the nocap lines), the KV-cache variants
// and tile.attention_varlen's (--packed: units of the packed row tiles,
// each a binary search of cu_seqlens_q; with the softcap branch, and
// autograd's with the log-sum-exps) assemble without spills; a KV-cache variant with the softcap
// branch is refused (it spills a few bytes: such calls take the split-KV
// kernels). The file as written keeps every path live.
// NO-SPILLS: bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NO-CACHE-SOFTCAP: error: the KV-cache variants of the prefill kernel have no softcap

// A KV cache's producer: after Q's copies (a chunk's 16 KB announced
// each), a K block through the block table: a box thread's table entry
// (loaded before the stage's wait), then its box at that page's rows of
// the KV head (the outermost coordinate, page x H_b + head: one 5-D box of
// a page's 8-row groups with every chunk); the registers split 40 / 232.
// Its ring of 8-row groups holding both chunks (D = 128) gives the
// consumers' descriptors a stride byte offset of 2048 bytes (128 x 16, the
// groups' stride, T-WGMMA-6; 1024 with one chunk, as tile.attention's).
// CACHE128: or.b64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, 4611686568183201792;
// D128-NOT: 4611686568183201792
// A contiguous cache's per-sequence lengths (--cache-rows 0): no box
// threads, the register split as written.
// LENGTHS-DAG: setmaxnreg.dec.sync.aligned.u32 24;
// LENGTHS-DAG: setmaxnreg.inc.sync.aligned.u32 240;
// CACHE-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// CACHE-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CACHE: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [{{%r[0-9]+}}], {{%r[0-9]+}};
// CACHE: ld.global.b32 [[PAGE:%r[0-9]+]], [
// CACHE: mad.lo.s32 [[SLOT:%r[0-9]+]], [[PAGE]], %r{{[0-9]+}}, %r{{[0-9]+}};
// CACHE: cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, [[SLOT]]}], [%r{{[0-9]+}}];

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry attention_d
//  CHECK-SAME: {{^}}[[D]](
//  CHECK-NEXT: .param .align 128 .b8 attention_d[[D]]_param_0[128],
//  CHECK-NEXT: .param .align 128 .b8 attention_d[[D]]_param_1[128],
//  CHECK-NEXT: .param .align 128 .b8 attention_d[[D]]_param_2[128],
//  CHECK-NEXT: .param .align 128 .b8 attention_d[[D]]_param_3[128],
//  CHECK-NEXT: .param .u64 .ptr .align 1 attention_d[[D]]_param_4,
//   CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 {{[0-9]+}};
//   CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 {{[0-9]+}};
//   CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}, {{[{]}}%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}{{[}]}}], [%r{{d?[0-9]+}}];
//   CHECK-DAG: bar.sync %r{{[0-9]+}}, 256;
//   CHECK-DAG: bar.arrive %r{{[0-9]+}}, 256;
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
//   CHECK-DAG: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1;
//   CHECK-DAG: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, -1;
//   CHECK-DAG: ex2.approx.ftz.f32 %r{{[0-9]+}}, %r{{[0-9]+}};
//   CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
//   CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group [%r{{d?[0-9]+}}, {{[{]}}%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}{{[}]}}], [%r{{d?[0-9]+}}];
//   CHECK-DAG: cp.async.bulk.commit_group;

// A consumer's block in order: its turn, the 8 K steps of S = Q K^T (D =
// 128) left pending (wait 1), then the 8 register-A steps of P V over the
// 128 keys left pending too (wait 2), then the other warpgroup's turn
// (FlashAttention-3's order, #pv_wait 2), the wait for S (wait 1) and
// only then K's release (a release before that wait would be safe by the
// producer's order, so the protocol checker reports none: the order is
// pinned here).
// D128-LABEL: .visible .entry attention_d128(
//       D128: bar.sync %r{{[0-9]+}}, 256;
//  D128-NEXT: wgmma.fence.sync.aligned;
// D128-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
//       D128: wgmma.commit_group.sync.aligned;
//  D128-NEXT: wgmma.wait_group.sync.aligned 1;
//       D128: wgmma.fence.sync.aligned;
// D128-COUNT-8: wgmma.mma_async.sync.aligned.m64n128k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;
//   D128-NOT: wgmma.mma_async
//       D128: wgmma.commit_group.sync.aligned;
//  D128-NEXT: wgmma.wait_group.sync.aligned 2;
//       D128: bar.arrive %r{{[0-9]+}}, 256;
//       D128: wgmma.wait_group.sync.aligned 1;
//       D128: mbarrier.arrive.shared.b64
//       D128: ex2.approx.ftz.f32

// The same for D = 64: S in 4 K steps of one 64-wide chunk, P V as
// m64n64k16 over the 128 keys.
// D64-LABEL: .visible .entry attention_d64(
//       D64: bar.sync %r{{[0-9]+}}, 256;
//  D64-NEXT: wgmma.fence.sync.aligned;
// D64-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
//   D64-NOT: wgmma.mma_async
//       D64: wgmma.commit_group.sync.aligned;
//  D64-NEXT: wgmma.wait_group.sync.aligned 1;
//       D64: wgmma.fence.sync.aligned;
// D64-COUNT-8: wgmma.mma_async.sync.aligned.m64n64k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;
//   D64-NOT: wgmma.mma_async
//       D64: wgmma.commit_group.sync.aligned;
//  D64-NEXT: wgmma.wait_group.sync.aligned 1;
//       D64: bar.arrive %r{{[0-9]+}}, 256;
//       D64: ex2.approx.ftz.f32

// The FP8 variant (e4m3 Q, K and V^T, bf16 O): Q, K and V^T each one 4-D
// box of 128 rows of 128 bytes; a consumer's block as D = 128's with e4m3
// wgmmas: the 4 K steps of S = Q K^T (k32, two descriptors), then P
// converted by one cvt a pair (no overflow fix-up: the nnan truncf,
// T-TARGET-7) and the 4 register-A steps of P V (four .b32 A registers,
// no transpose operand: V^T is K-major, T-WGMMA-5), S done (wait 1) before
// the turn is handed on (#pv_wait 1, as D = 64's);
// the (B, Hkv) descale factors loaded once a unit; O stored by TMA in
// bf16.
// FP8-LABEL: .visible .entry attention_d128(
//       FP8: ld.global.b32
//       FP8: bar.sync %r{{[0-9]+}}, 256;
//  FP8-NEXT: wgmma.fence.sync.aligned;
// FP8-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1;
//       FP8: wgmma.commit_group.sync.aligned;
//  FP8-NEXT: wgmma.wait_group.sync.aligned 1;
//       FP8: wgmma.fence.sync.aligned;
// FP8-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1;
//   FP8-NOT: wgmma.mma_async
//       FP8: wgmma.commit_group.sync.aligned;
//  FP8-NEXT: wgmma.wait_group.sync.aligned 1;
//       FP8: bar.arrive %r{{[0-9]+}}, 256;
//       FP8: cvt.rn.satfinite.e4m3x2.f32
//       FP8: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
