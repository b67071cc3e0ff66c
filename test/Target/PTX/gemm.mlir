// The GEMM examples as PTX, assembled by ptxas: the Ampere-style hgemm
// (cp.async.cg, ldmatrix x4 and x4.trans, mma.sync m16n8k16 for f16 and,
// with the example's f16 replaced by bf16, for bf16 — which NVGPU cannot
// type, so tile.mma_sync emits nvvm.mma.sync itself) and the Hopper GEMM
// (TMA, mbarrier rings, setmaxnreg, wgmma m64n256k16, the stmatrix + TMA
// store epilogue; for C = A B, B's
// descriptor is MN-major — leading byte offset 64 rows x 128 B = 8192, so
// 512 << 16 | 64 << 32 | 1 << 62 = 4611686293338849280 — and the wgmma
// transposes B: imm-trans-b = 1).
//
// RUN: tile-opt %S/../../../examples/hgemm_sm80.mlir --tile-to-ptx-pipeline="chip=sm_80" | tile-translate --extract-ptx -o %t.f16.ptx
// RUN: FileCheck %s --check-prefix=F16 < %t.f16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f16.ptx -o %t.f16.cubin %}
// RUN: sed 's/^!e = f16/!e = bf16/' %S/../../../examples/hgemm_sm80.mlir | tile-opt --tile-to-ptx-pipeline="chip=sm_80" | tile-translate --extract-ptx -o %t.bf16.ptx
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.bf16.ptx -o %t.bf16.cubin %}
// RUN: %f32-out %S/../../../examples/hgemm_sm80.mlir | tile-opt --tile-to-ptx-pipeline="chip=sm_80" | tile-translate --extract-ptx -o %t.f32out.ptx
// RUN: FileCheck %s --check-prefix=F32OUT < %t.f32out.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.f32out.ptx -o %t.f32out.cubin %}
// RUN: tile-opt %tile_kernels/gemm_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=SM90 < %t.sm90.ptx
// RUN: FileCheck %s --check-prefix=LAYOUT < %t.sm90.ptx
// RUN: tile-opt %S/../../../examples/gemm_sm90_multicast.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.mc.ptx
// RUN: FileCheck %s --check-prefix=MULTICAST < %t.mc.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.mc.ptx -o %t.mc.cubin %}
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.sm90.ptx -o %t.sm90.cubin %}
// The same kernels with 128-wide tiles (tile.matmul's narrow shapes): wgmma
// m64n128k16, B in 128-row boxes (nt) or two 64-column chunks (nn).
// RUN: %python -m tile gemm --tile-n 128 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.narrow.ptx
// RUN: FileCheck %s --check-prefix=NARROW < %t.narrow.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.narrow.ptx -o %t.narrow.cubin %}
// With 64-wide tiles (a few row tiles of a long K, small squares): wgmma
// m64n64k16, one 64x64 staging chunk a warpgroup, eight ring stages, the
// split tiles' 32 partials a thread; no spills.
// RUN: %python -m tile gemm --tile-n 64 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.slim.ptx
// RUN: FileCheck %s --check-prefix=SLIM < %t.slim.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.slim.ptx -o %t.slim.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// Ping-pong consumers (each warpgroup 128 rows of every other tile: two
// wgmmas a K step on one B descriptor; the turns are named barriers of 256
// threads, their ids 9 + warpgroup in a register), plain and with the
// gated SiLU and a residual.
// RUN: %python -m tile gemm --tile-n 128 --pingpong | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.pingpong.ptx
// RUN: FileCheck %s --check-prefix=PINGPONG < %t.pingpong.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.pingpong.ptx -o %t.pingpong.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// RUN: %python -m tile gemm --tile-n 128 --pingpong --activation silu --gated --residual | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.pingpong-gated.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.pingpong-gated.ptx -o %t.pingpong-gated.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// RUN: %python -m tile gemm-fp8 --tile-n 128 --pingpong | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fp8-pingpong.ptx
// RUN: FileCheck %s --check-prefix=FP8-PINGPONG < %t.fp8-pingpong.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fp8-pingpong.ptx -o %t.fp8-pingpong.cubin 2>&1 | FileCheck %s --check-prefix=FP8-PINGPONG-PTXAS %}
// The widths that fit the waves (224, 160, 96): wgmma m64n224k16 (and
// n160, n96), C through 64x32 staging chunks, A B's B in 32-column chunks
// read MN-major with a 64-byte swizzle, and @gemm_fp8_nt m64n224k32; no
// spills.
// RUN: %python -m tile gemm --tile-n 224 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fit224.ptx
// RUN: FileCheck %s --check-prefix=FIT < %t.fit224.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fit224.ptx -o %t.fit224.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// RUN: %python -m tile gemm --tile-n 160 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fit160.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fit160.ptx -o %t.fit160.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// RUN: %python -m tile gemm --tile-n 96 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fit96.ptx
// RUN: FileCheck %s --check-prefix=FIT96 < %t.fit96.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fit96.ptx -o %t.fit96.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// RUN: %python -m tile gemm-fp8 --tile-n 224 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fp8-fit.ptx
// RUN: FileCheck %s --check-prefix=FP8-FIT < %t.fp8-fit.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fp8-fit.ptx -o %t.fp8-fit.cubin 2>&1 | FileCheck %s --check-prefix=FP8-PINGPONG-PTXAS %}
// C whose rows TMA cannot write (tile.warpgroup_coalesced_store): no TMA
// store, each warp's rows through the staging buffers between
// bar.warp.sync, then 2-byte stores a lane; no spills, cooperative (224
// wide) and ping-pong (128 wide, with GELU).
// RUN: %python -m tile gemm --element bf16 --tile-n 224 --no-tma-c | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.rows224.ptx
// RUN: FileCheck %s --check-prefix=ROWS < %t.rows224.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.rows224.ptx -o %t.rows224.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// RUN: %python -m tile gemm --element bf16 --tile-n 128 --pingpong --activation gelu --no-tma-c | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.rows-pingpong.ptx
// RUN: FileCheck %s --check-prefix=ROWS < %t.rows-pingpong.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.rows-pingpong.ptx -o %t.rows-pingpong.cubin 2>&1 | FileCheck %s --check-prefix=SLIM-PTXAS %}
// With 192-wide tiles (N = 576 and shapes whose waves fit the SMs better):
// wgmma m64n192k16, three 64x64 staging chunks a warpgroup, and the split
// tiles' 96 partials a thread stored and summed in 16-byte chunks.
// RUN: %python -m tile gemm --tile-n 192 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.mid.ptx
// RUN: FileCheck %s --check-prefix=MID < %t.mid.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.mid.ptx -o %t.mid.cubin 2>&1 | FileCheck %s --check-prefix=MID-PTXAS %}
// A fused epilogue (tile.ops.epilogue): SwiGLU over interleaved gate/up
// columns plus a residual, the 64x128 half-width output tile stored in two
// 64x64 TMA chunks; the residual read in 4-byte pairs, SiLU as
// x / (1 + 2^(-x log2 e)) with ex2.approx and div.approx.
// RUN: %python -m tile gemm --element bf16 --gated --activation silu --residual | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fused.ptx
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.fused.ptx -o %t.fused.cubin %}
// A M-major (`python -m tile gemm --a-mn-major`: A passed as a row-major K x
// M matrix, as a backward pass's dB = A^T dC has it; compiled and checked
// here, not yet chosen by tile.matmul): two 64x64 boxes of A a stage (2-D
// TMA, K rows first), and each warpgroup's M chunk read MN-major, wgmma's
// imm-trans-a = 1, in both layouts of B; no spills.
// RUN: %python -m tile gemm --a-mn-major | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.amn.ptx
// RUN: FileCheck %s --check-prefix=A-MN < %t.amn.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.amn.ptx -o %t.amn.cubin 2>&1 | FileCheck %s --check-prefix=A-MN-PTXAS %}
// A-MN-LABEL: .visible .entry gemm_nt(
// A-MN-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1, {{ *}}1, 1, {{ *}}0;
// A-MN-LABEL: .visible .entry gemm_nn(
// A-MN-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1, {{ *}}1, 1, {{ *}}1;
// A-MN-PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// An FP8 C (tile.ops.epilogue's `out`), saturating: the scale and clamp,
// each pair converted with cvt.rn.satfinite and stored as 2 bytes into
// 64-byte-row chunks, the warp's amax by redux.sync and one atomic max.
// RUN: %python -m tile gemm --element bf16 --fp8-out f8E4M3FN | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.fp8out.ptx
// RUN: FileCheck %s --check-prefix=FP8OUT < %t.fp8out.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.fp8out.ptx -o %t.fp8out.cubin 2>&1 | FileCheck %s --check-prefix=FP8OUT-PTXAS %}

// F16: .target sm_80
// F16: cp.async.cg.shared.global
// F16: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// F16: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F16: st.global.v4.b32
// F16: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16

// With an f32 C (`!out`), the staged tile goes out in 16-byte rows of 4.
// F32OUT: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// F32OUT: st.global.v4.b32
// F32OUT-NOT: cvt.rn.f16.f32

// BF16: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

// SM90: .target sm_90a
// The three tensor maps are 128-byte by-value parameters (T-TMA-22).
// SM90: .visible .entry gemm_nt(
// SM90-NEXT: .param .align 128 .b8 gemm_nt_param_0[128],
// SM90-NEXT: .param .align 128 .b8 gemm_nt_param_1[128],
// SM90-NEXT: .param .align 128 .b8 gemm_nt_param_2[128],
// SM90-NEXT: .param .u64 gemm_nt_param_3,
// SM90-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// SM90-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// SM90-DAG: wgmma.fence.sync.aligned;
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// SM90-DAG: wgmma.commit_group.sync.aligned;
// SM90-DAG: wgmma.wait_group.sync.aligned 1;
// The epilogue: stmatrix into the staging ring between named barriers of
// the warpgroup, TMA stores in bulk groups.
// SM90-DAG: cp.async.bulk.wait_group.read 1;
// SM90-DAG: bar.sync %r{{[0-9]+}}, 128;
// SM90-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// SM90-DAG: fence.proxy.async.shared::cta;
// SM90-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// SM90-DAG: cp.async.bulk.commit_group;
// SM90-DAG: cp.async.bulk.wait_group 0;
// LAYOUT-LABEL: .entry gemm_nt(
// LAYOUT: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// LAYOUT-LABEL: .entry gemm_nn(
// LAYOUT: add.s32 {{.*}}, 33554432;
// LAYOUT: or.b64 {{.*}}, 4611686293305294848;
// LAYOUT: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;

// The clustered kernel: barrier init fenced for the cluster, the CTAs meet,
// one arrival with the stage's 48 KB, A loaded alone and B's half
// multicast, releases on the local and the peer's empty barrier (CTA-scope
// release, T-MBAR-6), the CTAs meet again before exit.
// MULTICAST: fence.mbarrier_init.release.cluster;
// MULTICAST: barrier.cluster.arrive.aligned;
// MULTICAST: barrier.cluster.wait.aligned;
// MULTICAST-DAG: mbarrier.arrive.shared::cluster.b64 _
// MULTICAST-DAG: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, {{.*}}, %r{{[0-9]+}};
// MULTICAST-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// MULTICAST: barrier.cluster.arrive.aligned;
// MULTICAST: barrier.cluster.wait.aligned;
// FUSED-LABEL: .entry gemm_nt(
// FUSED: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// FUSED: mul.rn.f32 [[T:%r[0-9]+]], [[G:%r[0-9]+]], 0fBFB8AA3B;
// FUSED-NEXT: ex2.approx.f32 [[E:%r[0-9]+]], [[T]];
// FUSED-NEXT: add.rn.f32 [[D:%r[0-9]+]], [[E]], 0f3F800000;
// FUSED-NEXT: div.approx.f32 [[S:%r[0-9]+]], [[G]], [[D]];
// FUSED-NEXT: mul.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, [[S]];
// FUSED: ld.global.v2.b16
// FUSED: stmatrix.sync.aligned.m8n8.x4.shared.b16
// FUSED: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// FUSED-LABEL: .entry gemm_nn(
// NARROW-LABEL: .entry gemm_nt(
// NARROW: setmaxnreg.dec.sync.aligned.u32 40;
// NARROW: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// NARROW-NOT: m64n256k16
// NARROW: stmatrix.sync.aligned.m8n8.x4.shared.b16
// NARROW-LABEL: .entry gemm_nn(
// NARROW: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// NARROW-NOT: m64n256k16

// SLIM-LABEL: .entry gemm_nt(
// SLIM: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// SLIM-NOT: m64n128k16
// SLIM: st.global.v4.b32
// SLIM: ld.global.v4.b32
// SLIM: stmatrix.sync.aligned.m8n8.x4.shared.b16
// SLIM-LABEL: .entry gemm_nn(
// SLIM: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// SLIM-PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads

// FIT-LABEL: .entry gemm_nt(
// FIT: wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// FIT: stmatrix.sync.aligned.m8n8.x4.shared.b16
// FIT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// FIT-LABEL: .entry gemm_nn(
// FIT: wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;

// FP8-FIT-LABEL: .entry gemm_fp8_nt(
// FP8-FIT: wgmma.mma_async.sync.aligned.m64n224k32.f32.e4m3.e4m3
// FP8-FIT: stmatrix.sync.aligned.m8n8.x4.shared.b16

// FIT96-LABEL: .entry gemm_nt(
// FIT96: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
// FIT96-LABEL: .entry gemm_nn(
// FIT96: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;

// FP8-PINGPONG-LABEL: .entry gemm_fp8_nt(
// FP8-PINGPONG: bar.sync %r{{[0-9]+}}, 256;
// FP8-PINGPONG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// FP8-PINGPONG: bar.arrive %r{{[0-9]+}}, 256;
// FP8-PINGPONG-LABEL: .entry gemm_fp8_nt_multicast(
// FP8-PINGPONG-PTXAS: Compiling entry function 'gemm_fp8_nt' for 'sm_90a'
// FP8-PINGPONG-PTXAS: 0 bytes spill stores, 0 bytes spill loads

// ROWS-LABEL: .entry gemm_nt(
// ROWS-NOT: cp.async.bulk.tensor.2d.global.shared
// ROWS: stmatrix.sync.aligned.m8n8.x4.shared.b16
// ROWS: bar.warp.sync -1;
// ROWS: ld.shared.{{[bu]}}16
// ROWS: st.global.b16
// ROWS-LABEL: .entry gemm_nn(
// ROWS-NOT: cp.async.bulk.tensor.2d.global.shared

// PINGPONG-LABEL: .entry gemm_nt(
// PINGPONG: bar.arrive %r{{[0-9]+}}, 256;
// PINGPONG: bar.sync %r{{[0-9]+}}, 256;
// PINGPONG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, %rd[[B:[0-9]+]], p, 1, 1, 0, 0;
// PINGPONG-NEXT: }
// PINGPONG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, %rd[[B]], p, 1, 1, 0, 0;
// PINGPONG: bar.arrive %r{{[0-9]+}}, 256;
// PINGPONG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// PINGPONG-LABEL: .entry gemm_nn(
// PINGPONG: bar.sync %r{{[0-9]+}}, 256;

// MID-LABEL: .entry gemm_nt(
// MID: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// MID-NOT: m64n256k16
// MID-PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
// MID: st.global.v4.b32
// MID: ld.global.v4.b32
// MID: stmatrix.sync.aligned.m8n8.x4.shared.b16
// A chunk's staging buffer is free once the store three chunks back read it.
// MID: cp.async.bulk.wait_group.read 2;
// MID-LABEL: .entry gemm_nn(
// MID: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 1;
// MID-NOT: m64n256k16

// FP8OUT-LABEL: .entry gemm_nt(
// FP8OUT: .param .u64 gemm_nt_param_11
// The scale, loaded once.
// FP8OUT: ld.global.b32
// FP8OUT: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// FP8OUT: max.NaN.f32
// FP8OUT: mul.rn.f32
// FP8OUT: min.NaN.f32
// FP8OUT: cvt.rn.satfinite.e4m3x2.f32
// FP8OUT: st.shared.v2.b8
// FP8OUT-NOT: stmatrix
// FP8OUT: fence.proxy.async.shared::cta;
// FP8OUT: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// FP8OUT: redux.sync.max.s32
// FP8OUT: atom.global.max.s32
// FP8OUT-LABEL: .entry gemm_nn(
// FP8OUT-PTXAS-COUNT-2: 0 bytes spill stores, 0 bytes spill loads
