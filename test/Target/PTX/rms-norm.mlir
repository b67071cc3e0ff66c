// The RMSNorm kernels of python/tile/ops/rms_norm.py as PTX, assembled by
// ptxas. Rows of 4096 bf16: one row a CTA of 256 threads, two 16-byte
// vectors a thread, 4096 bytes apart; the row stays in registers from its
// loads through the block reduction (a warp butterfly, the warps' sums
// through shared memory between two barriers, a second butterfly) to the
// scaled stores. Rows of 16384 f16 with the residual add: 512 threads of
// four vectors; h = x + r is rounded to f16 and stored before the
// reduction, y after it. Rows of 64 bf16: 32 rows a CTA, 8 lanes a row, a
// three-step butterfly within each group of lanes and no barrier. The
// backward for rows of 4096 bf16 with h's own gradient added: a grid-stride
// loop over rows (%nctaid.x apart), eight 16-byte loads a row (h, dy,
// dh_out two each, the weight's two), two block reductions, dh stored as
// 16-byte vectors, and after the loop the CTA's f32 partial sums of dw as
// four 16-byte stores; no atomics, no spills.
//
// RUN: %python -m tile rms-norm > %t.mlir
// RUN: tile-opt %t.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=ROW < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: %python -m tile rms-norm --element f16 --hidden 16384 --residual > %t.res.mlir
// RUN: tile-opt %t.res.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.res.ptx
// RUN: FileCheck %s --check-prefix=RES < %t.res.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.res.ptx -o %t.res.cubin %}
// RUN: %python -m tile rms-norm --hidden 64 > %t.short.mlir
// RUN: tile-opt %t.short.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.short.ptx
// RUN: FileCheck %s --check-prefix=SHORT < %t.short.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.short.ptx -o %t.short.cubin %}
// RUN: %python -m tile rms-norm --hidden 4096 --residual --backward > %t.bwd.mlir
// RUN: tile-opt %t.bwd.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.bwd.ptx
// RUN: FileCheck %s --check-prefix=BWD --implicit-check-not=atom.global --implicit-check-not=red.global < %t.bwd.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.bwd.ptx -o %t.bwd.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}

// ROW-LABEL: .visible .entry rms_norm(
// ROW: .maxntid 256, 1, 1
// ROW: mul.lo.s64
// ROW: ld.global.v4.b32 {{.*}}, [[[X:%rd[0-9]+]]];
// ROW: ld.global.v4.b32 {{.*}}, [[[X]]+4096];
// ROW: ld.global.v4.b32 {{.*}}, [[[W:%rd[0-9]+]]];
// ROW: ld.global.v4.b32 {{.*}}, [[[W]]+4096];
// ROW-NOT: ld.global
// ROW-COUNT-5: shfl.sync.bfly.b32
// ROW: bar.sync 0;
// ROW: st.shared.b32
// ROW: bar.sync 0;
// ROW: ld.shared.b32
// ROW-COUNT-5: shfl.sync.bfly.b32
// ROW-NOT: ld.global
// ROW: rsqrt.approx.f32
// ROW-NOT: ld.global
// ROW: st.global.v4.b32 [[[Y:%rd[0-9]+]]], {
// ROW: st.global.v4.b32 [[[Y]]+4096], {
// ROW-NEXT: ret;

// RES-LABEL: .visible .entry rms_norm_residual(
// RES: .maxntid 512, 1, 1
// RES-COUNT-12: ld.global.v4.b32
// RES-NOT: ld.global
// RES: add.rn.f16x2
// RES: st.global.v4.b32 [[[H:%rd[0-9]+]]], {
// RES: st.global.v4.b32 [[[H]]+8192], {
// RES: st.global.v4.b32 [[[H]]+16384], {
// RES: st.global.v4.b32 [[[H]]+24576], {
// RES: shfl.sync.bfly.b32
// RES: bar.sync 0;
// RES: rsqrt.approx.f32
// RES-NOT: ld.global
// RES: st.global.v4.b32 [[[Y:%rd[0-9]+]]], {
// RES: st.global.v4.b32 [[[Y]]+8192], {
// RES: st.global.v4.b32 [[[Y]]+16384], {
// RES: st.global.v4.b32 [[[Y]]+24576], {
// RES-NEXT: ret;

// SHORT-LABEL: .visible .entry rms_norm(
// SHORT: .maxntid 256, 1, 1
// SHORT-NOT: bar.sync
// SHORT: ld.global.v4.b32
// SHORT: ld.global.v4.b32
// SHORT-NOT: bar.sync
// SHORT: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// SHORT: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// SHORT: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// SHORT-NOT: shfl.sync
// SHORT-NOT: bar.sync
// SHORT: rsqrt.approx.f32
// SHORT: st.global.v4.b32
// SHORT-NOT: st.global
// SHORT: ret;

// BWD-LABEL: .visible .entry rms_norm_backward_residual(
// BWD: .maxntid 256, 1, 1
// BWD-DAG: mov.u32 {{%r[0-9]+}}, %nctaid.x;
// BWD-DAG: rsqrt.approx.f32
// BWD-COUNT-8: ld.global.v4.b32
// BWD-NOT: ld.global
// BWD: bar.sync 0;
// BWD: bar.sync 0;
// BWD: st.global.v4.b32 [[[P:%rd[0-9]+]]], {
// BWD-NEXT: st.global.v4.b32 [[[P]]+16], {
// BWD-NEXT: st.global.v4.b32 [[[P]]+8192], {
// BWD-NEXT: st.global.v4.b32 [[[P]]+8208], {

// NO-SPILLS: bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
