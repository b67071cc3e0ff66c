// The 1D bulk copies of Integration/GPU/bulk-copy.mlir as PTX (no GPU
// needed); ptxas assembles them for sm_90a. The global->shared copy uses the
// shared::cluster destination form of PTX 8.0.
//
// RUN: tile-opt %S/../../Integration/GPU/bulk-copy.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK-LABEL: .visible .entry bulk_round_trip(
//       CHECK: .shared .align 128 .b8 __tile_shared[4096];
//       CHECK: mbarrier.arrive.expect_tx.shared.b64
//       CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}], %r{{[0-9]+}}, [__tile_mbarriers];
//       CHECK: fence.proxy.async.shared::cta;
//       CHECK: cp.async.bulk.global.shared::cta.bulk_group [%r{{d?[0-9]+}}], [__tile_shared], %r{{[0-9]+}};
//       CHECK: cp.async.bulk.commit_group;
//       CHECK: cp.async.bulk.wait_group 0;
