// The grouped Hopper GEMM example as PTX, assembled by ptxas for sm_90a
// with no spills: the groups' rows read from the bounds array (32-bit
// loads), wgmma m64n256k16, the TMA-store epilogue for
// tiles inside a group and bounded stores for a group's last partial row
// tile (pairs of f16 where the row is word-aligned, else one by one); then
// the FP8 kernel: m64n256k32 on e4m3, the dequantizing loads (2 row and 64
// column factors a thread) and a bf16 C; then the block-scaled FP8 kernel:
// m64n128k32, its promotion FMAs, and no wgmma serialized (C7514); then
// the FP8 kernel on 128x128 tiles (m64n128k32, 2 row and 32 column factors).
//
// RUN: tile-opt %tile_kernels/gemm_sm90_grouped.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7514 %}

// CHECK: .visible .entry grouped_gemm_nt(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-DAG: st.global.b32
// CHECK-DAG: st.global.b16

// CHECK: .visible .entry grouped_gemm_fp8_nt(
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// CHECK-DAG: cvt.rn.bf16x2.f32
// CHECK-DAG: st.global.b16

// CHECK: .visible .entry grouped_gemm_fp8_nt_blockwise(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: fma.rn.f32
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-DAG: st.global.b16

// CHECK: .visible .entry grouped_gemm_fp8_nt_narrow(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CHECK-DAG: st.global.b16

// PTXAS-COUNT-4: 0 bytes spill stores, 0 bytes spill loads
