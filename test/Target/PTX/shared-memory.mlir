// Static and dynamic tile.shared_alloc buffers as PTX, assembled by ptxas:
// the dynamic ring of Integration/GPU/tma-dynamic-shared.mlir lives at the
// 1024-byte-aligned extern base, the static mbarriers in their own array.
//
// RUN: tile-opt %S/../../Integration/GPU/tma-dynamic-shared.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .extern .shared .align 1024 .b8 __tile_dynamic_shared[];
// CHECK-LABEL: .visible .entry dynamic(
// CHECK: .shared .align 8 .b8 __tile_mbarriers[32];
// CHECK: mov.b32 %r{{[0-9]+}}, __tile_dynamic_shared;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
