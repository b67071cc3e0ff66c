// T-TMA-24 lowered: a TMA box that fills a row range of a taller tile is
// copied to the tile's address plus row * row bytes (here 128-byte rows: a
// 16-row page of a paged KV cache into a 128-row key block of a
// 3x2x128x64 bf16 ring), assembled by ptxas for sm_90a.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a verify-protocol=false" -o %t.mlir
// RUN: tile-translate --extract-ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// A row i * 16 is i * 2048 bytes into stage 0, chunk 0; row 48 of stage 1,
// chunk 1 is 32768 + 16384 + 48 * 128 = 55296 bytes into the ring.
// CHECK-LABEL: .visible .entry paged(
//       CHECK: shl.b32 %[[ROWBYTES:r[0-9]+]], %r{{[0-9]+}}, 11;
//       CHECK: mov.b32 %[[RING:r[0-9]+]], __tile_dynamic_shared;
//       CHECK: add.s32 %[[DYNAMIC:r[0-9]+]], %[[RING]], %[[ROWBYTES]];
//       CHECK: cvt.u64.u32 %{{rd[0-9]+}}, %[[DYNAMIC]];
//       CHECK: add.s32 %[[CONSTANT:r[0-9]+]], %[[RING]], 55296;
//       CHECK: cvt.u64.u32 %{{rd[0-9]+}}, %[[CONSTANT]];
//       CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [__tile_mbarriers+8];
//       CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{[0-9]+}}], [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [__tile_mbarriers];

!kv16 = !tile.tma_desc<memref<?x?x?x?xbf16>, box = [1, 1, 16, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 8>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @paged(%k: !kv16, %page: index, %h: index, %i: index) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %c48 = arith.constant 48 : index
      %full = tile.mbarrier_alloc : !bars
      %sk = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<3x2x128x64xbf16, 3>
      tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%c1, %c1, %c48], %full[%c1] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
      %r = arith.muli %i, %c16 : index
      tile.tma_copy %k[%page, %h, %c0, %c0] to %sk[%c0, %c0, %r], %full[%c0] : !kv16, memref<3x2x128x64xbf16, 3>, !bars
      gpu.return
    }
  }
}
