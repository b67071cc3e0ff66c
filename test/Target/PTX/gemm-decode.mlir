// The decode kernels of python/tile/ops/decode.py (C^T = B^T A^T for
// M <= 128) as PTX, assembled by ptxas: B's 64-row slices are wgmma's A
// operand — K-major for C = A B^T, MN-major for C = A B (imm-trans-a = 1,
// A's descriptor with leading byte offset 64 rows x 128 B = 8192) — and A's
// rows its B operand (n = 8, 16, 32 or 128 here); the epilogue stores C
// element by element (st.global.b16, no vector stores). C = A B^T with two K
// spans (128 of K) a stage, with split-K (tile.split_k_reduce, whose fixup
// prefetches the next split at n = 32 and 64: 16 and 32 accumulators a
// thread, n = 64 with bias, residual and GELU without spills), and C = A B
// over 128 columns of C a CTA. The protocol checker simulates each kernel's
// roles and proves the ring.
//
// RUN: %python -m tile gemm-decode --layout nt --rows 16 --stages 8 --spans 2 > %t.nt.mlir
// RUN: tile-opt %t.nt.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.nt.ptx
// RUN: FileCheck %s --check-prefix=NT < %t.nt.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.nt.ptx -o %t.nt.cubin %}
// RUN: %python -m tile gemm-decode --layout nn --rows 8 --stages 6 --element bf16 > %t.nn.mlir
// RUN: tile-opt %t.nn.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.nn.ptx
// RUN: FileCheck %s --check-prefix=NN < %t.nn.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.nn.ptx -o %t.nn.cubin %}
// RUN: %python -m tile gemm-decode --layout nt --rows 32 --stages 4 --spans 2 --split-k > %t.sk.mlir
// RUN: tile-opt %t.sk.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.sk.ptx
// RUN: FileCheck %s --check-prefix=SPLITK < %t.sk.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sk.ptx -o %t.sk.cubin %}
// RUN: tile-opt %t.sk.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// RUN: %python -m tile gemm-decode --layout nt --rows 64 --stages 6 --spans 2 --split-k --bias column --residual --activation gelu > %t.sk64.mlir
// RUN: tile-opt %t.sk64.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.sk64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sk64.ptx -o %t.sk64.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile gemm-decode --layout nn --rows 128 --columns 128 --stages 6 > %t.wide.mlir
// RUN: tile-opt %t.wide.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.wide.ptx
// RUN: FileCheck %s --check-prefix=WIDE < %t.wide.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.wide.ptx -o %t.wide.cubin %}
// RUN: tile-opt %t.wide.mlir -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// RUN: tile-opt %t.nt.mlir -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// RUN: tile-opt %t.nn.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// A fused epilogue on C^T (split-K: after the fixup): the bias (per column
// of C, per row of C^T) and the residual read element by element through
// transposed views, SiLU with ex2.approx and div.approx between them; the
// protocol checker still proves the ring.
// RUN: %python -m tile gemm-decode --layout nt --rows 16 --stages 8 --split-k --element bf16 --bias column --residual --activation silu > %t.fused.mlir
// RUN: tile-opt %t.fused.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fused.ptx
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.fused.ptx -o %t.fused.cubin %}
// RUN: tile-opt %t.fused.mlir -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// An FP8 C from bf16 operands (split-K: after the fixup), not saturating:
// C^T's elements scaled, each converted (cvt.rn.satfinite with the
// overflow NaN) and stored as one byte, the warp's amax by redux.sync and
// one atomic max; the protocol checker proves the ring.
// RUN: %python -m tile gemm-decode --layout nt --rows 16 --stages 8 --split-k --element bf16 --fp8-out f8E4M3FN --no-saturate > %t.fp8out.mlir
// RUN: tile-opt %t.fp8out.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fp8out.ptx
// RUN: FileCheck %s --check-prefix=FP8OUT < %t.fp8out.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.fp8out.ptx -o %t.fp8out.cubin %}
// RUN: tile-opt %t.fp8out.mlir -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF-FP8OUT --implicit-check-not=error: --implicit-check-not=warning:
// FP8 (e4m3 A, e5m2 B, f16 C), split along K: 128 of K a span, wgmma
// m64n16k32 with B's tile as its A operand, the dequantizing epilogue's
// scale loads (2 of sb, 4 of sa a thread) after the fixup; no spills; the
// protocol checker proves the ring.
// RUN: %python -m tile gemm-decode --layout nt --rows 16 --stages 6 --spans 2 --split-k --element f8E4M3FN --b-element f8E5M2 --out f16 > %t.fp8.mlir
// RUN: tile-opt %t.fp8.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fp8.ptx
// RUN: FileCheck %s --check-prefix=FP8 < %t.fp8.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fp8.ptx -o %t.fp8.cubin 2>&1 | FileCheck %s --check-prefix=FP8-PTXAS %}
// RUN: tile-opt %t.fp8.mlir -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// RUN: not %python -m tile gemm-decode --layout nn --element f8E4M3FN 2>&1 | FileCheck %s --check-prefix=FP8-NN

// NT-LABEL: .entry gemm_decode_nt_r16_s8_k2(
// NT: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// NT: wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// NT-NOT: st.global.v2
// NT: st.global.b16

// NN-LABEL: .entry gemm_decode_nn_r8_s6(
// NN: add.s32 {{.*}}, 33554432;
// NN: or.b64 {{.*}}, 4611686293305294848;
// NN: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 1, 0;
// NN-NOT: st.global.v2
// NN: st.global.b16

// Split-K: the partials stored as vectors, the warpgroup's named barrier,
// the count between two fences, the flag through shared memory.
// SPLITK-LABEL: .entry gemm_decode_nt_r32_s4_k2_sk(
// SPLITK: st.global.v4.b32
// SPLITK: bar.sync {{.*}}, 128;
// SPLITK: fence.acq_rel.gpu;
// SPLITK: atom.global.add.u32
// SPLITK: fence.acq_rel.gpu;
// SPLITK: st.shared.b32
// SPLITK: bar.sync {{.*}}, 128;
// SPLITK: ld.shared.b32
// SPLITK: ld.global.v4.b32
// SPLITK: st.global.b32 [%rd{{[0-9]+}}], 0;

// 128 columns of C a CTA (M <= 128): two 64-column B boxes a stage (C = A B)
// and two m64n128k16 wgmmas per K step, one per 64-row chunk of B^T.
// WIDE-LABEL: .entry gemm_decode_nn_r128_s6_c128(
// WIDE-COUNT-3: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WIDE-COUNT-2: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 1, 0;
// WIDE: st.global.b16

// PROOF: remark: role protocol: 4 roles {{.*}} simulated with sample values 1, 200, 520: nothing to report

// Gated (SwiGLU) with a residual over 128 columns a CTA, split along K: B
// read as (N/16) x 2 x 8 x K, two 4-D boxes a stage (the gate rows into
// rows 0..63, the up rows into 64..127, T-TMA-25), both m64 blocks of one
// wgmma m64n16 pair, the SiLU of the first times the second, the residual,
// 16-bit stores; no spills; the protocol checker proves the ring.
// RUN: %python -m tile gemm-decode --layout nt --rows 16 --stages 4 --columns 128 --split-k --element bf16 --gated --activation silu --residual > %t.gated.mlir
// RUN: tile-opt %t.gated.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.gated.ptx
// RUN: FileCheck %s --check-prefix=GATED < %t.gated.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.gated.ptx -o %t.gated.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: tile-opt %t.gated.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-verify-async-protocol=explain-roles -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROOF --implicit-check-not=error: --implicit-check-not=warning:
// GATED-LABEL: .entry gemm_decode_nt_r16_s4_c128_sk(
// GATED-COUNT-2: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// GATED: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// GATED: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// GATED: ex2.approx.f32
// GATED: div.approx.f32
// GATED: ld.global.b16
// GATED: st.global.b16

// FUSED-LABEL: .entry gemm_decode_nt_r16_s8_sk(
// FUSED: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// FUSED: atom.global.add.u32
// FUSED: ld.global.b16
// FUSED: ex2.approx.f32
// FUSED: div.approx.f32
// FUSED: ld.global.b16
// FUSED: st.global.b16

// FP8-LABEL: .entry gemm_decode_nt_r16_s6_k2_sk_e4m3fn_e5m2_f16(
// FP8: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// FP8-COUNT-8: wgmma.mma_async.sync.aligned.m64n16k32.f32.e5m2.e4m3
// FP8-NOT: wgmma.mma_async
// FP8: atom.global.add.u32
// FP8-COUNT-6: ld.global.b32
// FP8: st.global.b16
// FP8-PTXAS: 0 bytes spill stores, 0 bytes spill loads
// FP8-NN: an FP8 decode kernel is nt (both operands K-major)

// The first lanes of the consumer's warps, which raise the amax, are roles
// of their own.
// PROOF-FP8OUT: remark: role protocol: 6 roles (1 from thread 0, 124 from thread 1, 3 from thread 32, 1 from thread 128, 124 from thread 129, 3 from thread 160) {{.*}}: nothing to report
// FP8OUT: wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16
// FP8OUT: mul.rn.f32
// FP8OUT-NOT: min.NaN.f32
// FP8OUT: cvt.rn.satfinite.e4m3x2.f32
// FP8OUT: st.global.b8
// FP8OUT: redux.sync.max.s32
// FP8OUT: atom.global.max.s32

// The n = 64 split kernel with a prefetching fixup and a fused epilogue:
// NO-SPILLS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
