// The Hopper FP8 GEMM example as PTX, assembled by ptxas for sm_90a with no
// spills in any of its three kernels and no wgmma serialized (C7514: the
// block-scaled kernel reads one partial accumulator while the next is in
// flight): four wgmma m64n256k32 (m64n128k32 block-scaled) per
// 128-element K slice,
// TMA boxes of 128 bytes a row (multicast in the cluster kernel), the
// dequantizing loads of tile.warpgroup_scale (2 row and 64 column factors a
// thread, 66 scalar global loads), and the bf16 TMA-store epilogue; then the same with e5m2 operands (the type aliases redefined)
// and with e4m3 x e5m2 and an f16 C.
//
// RUN: tile-opt %tile_kernels/gemm_sm90_fp8.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=WGMMA < %t.ptx
// RUN: FileCheck %s --check-prefix=SCALE < %t.ptx
// RUN: FileCheck %s --check-prefix=FMA < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS --implicit-check-not=C7514 %}
// RUN: sed 's/^!ea = f8E4M3FN/!ea = f8E5M2/; s/^!eb = f8E4M3FN/!eb = f8E5M2/' %tile_kernels/gemm_sm90_fp8.mlir | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.e5m2.ptx
// RUN: FileCheck %s --check-prefix=E5M2 < %t.e5m2.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.e5m2.ptx -o %t.e5m2.cubin %}
// RUN: sed 's/^!eb = f8E4M3FN/!eb = f8E5M2/; s/^!ec = bf16/!ec = f16/' %tile_kernels/gemm_sm90_fp8.mlir | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.mixed.ptx
// RUN: FileCheck %s --check-prefix=MIXED < %t.mixed.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.mixed.ptx -o %t.mixed.cubin %}
// @gemm_fp8_nt with 128- and 192-wide tiles (tile.matmul's choice where the
// 256-wide tiles leave SMs idle or pad N): four m64n128k32 / m64n192k32 a
// slice, no spills.
// RUN: %python -m tile gemm-fp8 --tile-n 128 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.narrow.ptx
// RUN: FileCheck %s --check-prefix=NARROW < %t.narrow.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.narrow.ptx -o %t.narrow.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: %python -m tile gemm-fp8 --tile-n 192 | tile-opt --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.mid.ptx
// RUN: FileCheck %s --check-prefix=MID < %t.mid.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.mid.ptx -o %t.mid.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}

// CHECK: .visible .entry gemm_fp8_nt(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: stmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group

// CHECK: .visible .entry gemm_fp8_nt_multicast(
// CHECK-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-DAG: mbarrier.arrive.shared::cluster.b64 _,

// CHECK: .visible .entry gemm_fp8_nt_blockwise(
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40;

// NARROW: .entry gemm_fp8_nt(
// NARROW-COUNT-4: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// NARROW-NOT: m64n256k32
// NARROW: .entry gemm_fp8_nt_multicast(
// MID: .entry gemm_fp8_nt(
// MID-COUNT-4: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// MID-NOT: m64n256k32
// MID: .entry gemm_fp8_nt_multicast(

// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// WGMMA: .entry gemm_fp8_nt_multicast(
// WGMMA-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// WGMMA: .entry gemm_fp8_nt_blockwise(
// A K block's four wgmmas into a fresh accumulator (the first one's
// scale-d is 0), waited for at depth 1 (the block before it done): for the
// first block, the pair's two and an even count's last; then depth 0.
// WGMMA: setp.ne.b32 p, 0, 0;
// WGMMA-NEXT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA: wgmma.commit_group.sync.aligned;
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 1;
// WGMMA: setp.ne.b32 p, 0, 0;
// WGMMA-NEXT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA: wgmma.commit_group.sync.aligned;
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 1;
// WGMMA: setp.ne.b32 p, 0, 0;
// WGMMA-NEXT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA: wgmma.commit_group.sync.aligned;
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 1;
// WGMMA: setp.ne.b32 p, 0, 0;
// WGMMA-NEXT: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA-COUNT-3: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// WGMMA: wgmma.commit_group.sync.aligned;
// WGMMA-NEXT: wgmma.wait_group.sync.aligned 1;
// WGMMA: wgmma.wait_group.sync.aligned 0;
// WGMMA-NOT: wgmma.mma_async

// SCALE-COUNT-66: ld.global.b32
// SCALE-NOT: ld.global.b32
// SCALE: .entry gemm_fp8_nt_multicast(
// SCALE-COUNT-66: ld.global.b32
// SCALE-NOT: ld.global.b32
// The block scales: two rows of A's and one of B's per K block, loaded
// before the block's wgmmas, in each of the four places a block is issued;
// the promotion is one FMA per accumulator, in the five places a partial is
// promoted (the pair's two, an even count's last two, an odd count's last).
// SCALE: .entry gemm_fp8_nt_blockwise(
// SCALE-COUNT-12: ld.global.b32
// SCALE-NOT: ld.global.b32
// FMA: .entry gemm_fp8_nt_blockwise(
// FMA-COUNT-320: fma.rn.f32
// FMA-NOT: fma.rn.f32

// PTXAS-COUNT-3: 0 bytes spill stores, 0 bytes spill loads

// E5M2-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e5m2
// MIXED-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e5m2
// MIXED: cvt.rn.f16x2.f32
