// The attention backward's kernels as PTX, assembled by ptxas for sm_90a
// without spills: python/tile/kernels/attention_bwd_sm90.mlir as written
// (bf16, D = 128) and as autograd compiles it for f16 and D = 64 (`python
// -m tile attention-backward --deterministic`), and the forward's variant that stores the
// rows' log-sum-exps (`python -m tile attention-prefill --lse`).
// @attention_bwd_dq: S = Q K^T and dP = dO V^T from two shared-memory
// descriptors each (m64n128k16, 128 keys), dQ += dS K with dS in registers
// and K MN-major (imm-trans-b = 1); @attention_bwd_dkdv: S^T = K Q^T and
// dP^T = V dO^T over 64 queries (m64n64k16), then dV += P^T dO and dK +=
// dS^T Q in the register-A form, each query tile's nlse and ndelta
// bulk-copied into shared memory with its Q and dO stage. Deterministic: no
// atomics anywhere; the gradients leave through stmatrix and 4-D TMA stores.
// Their per-row inputs (`--rows`): a 16-byte vector of dO and of O a lane,
// the row's 16 lanes reduced by a four-step butterfly, nlse and -rowsum(dO
// O) stored by the row's first lane, four rows a thread.
//
// RUN: tile-opt %tile_kernels/attention_bwd_sm90.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.bf16.d128.ptx
// RUN: FileCheck %s -DT=bf16 -DD=128 -DN=128 --implicit-check-not=atom.global --implicit-check-not=red.global --implicit-check-not=cp.reduce < %t.bf16.d128.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.bf16.d128.ptx -o %t.bf16.d128.cubin 2>&1 | FileCheck %s --check-prefix=BOTH-NO-SPILLS --implicit-check-not=C7508 %}
// RUN: %python -m tile attention-backward --deterministic --element f16 --head-dim 64 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.f16.d64.ptx
// RUN: FileCheck %s -DT=f16 -DD=64 -DN=64 --implicit-check-not=atom.global --implicit-check-not=red.global --implicit-check-not=cp.reduce < %t.f16.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.f16.d64.ptx -o %t.f16.d64.cubin 2>&1 | FileCheck %s --check-prefix=BOTH-NO-SPILLS --implicit-check-not=C7508 %}
// RUN: %python -m tile attention-backward --rows --element f16 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.rows.ptx
// RUN: FileCheck %s --check-prefix=ROWS < %t.rows.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.rows.ptx -o %t.rows.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile attention-prefill --lse | tile-opt --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.lse.ptx
// RUN: FileCheck %s --check-prefix=LSE < %t.lse.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.lse.ptx -o %t.lse.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}

// CHECK-LABEL: .visible .entry attention_bwd_dq_d{{[0-9]+}}(
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){63}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, 0, {{ *}}0;
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n[[N]]k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, )+%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, {{ *}}1;
//   CHECK-DAG: ex2.approx.ftz.f32
//   CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
//   CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
// CHECK-LABEL: .visible .entry attention_bwd_dkdv_d{{[0-9]+}}(
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, 0, {{ *}}0;
//   CHECK-DAG: wgmma.mma_async.sync.aligned.m64n[[N]]k16.f32.[[T]].[[T]] {{[{](%r[0-9]+, )+%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, {{ *}}1, {{ *}}1;
//   CHECK-DAG: ex2.approx.ftz.f32
//   CHECK-DAG: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}], %r{{[0-9]+}}, [%r{{[0-9]+}}];
//   CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group

// The rows kernel (D = 128: 16 lanes a row, 32 rows a pass, 4 passes a
// 128-slot tile): every pass's two 16-byte loads (and the forward's nlse)
// issued before the first sum, then the four rows' lane-group reductions,
// then the first lanes' stores of nlse and ndelta.
// ROWS-LABEL: .visible .entry attention_bwd_rows(
//  ROWS-COUNT-8: ld.global.v4.b32
//  ROWS-NOT: ld.global.v4.b32
//  ROWS-COUNT-16: shfl.sync.bfly.b32 {{.*}}, {{1|2|4|8}}, 31, -1;
//  ROWS-NOT: shfl.sync
//  ROWS-COUNT-8: st.global.b32
//  ROWS-NOT: ld.global

// The forward's log-sum-exps: -(c m + log2 l) of each row (-inf where l is
// 0), stored by each quad's first lane (their values are checked on the GPU
// by python/tests/test_torch_library.py's gradients).
// LSE-LABEL: .visible .entry attention_d128(
//       LSE: selp.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0fFF800000, %p{{[0-9]+}};
//       LSE: st.global.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};

// BOTH-NO-SPILLS-COUNT-2: bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NO-SPILLS: bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
