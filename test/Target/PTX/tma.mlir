// Every TMA tensor op as PTX, assembled by ptxas for sm_90a: loads of rank 1
// to 5 (coordinates innermost first), multicast and L2 cache hints, store,
// the reductions, prefetches and the descriptor fence. The host encodes the
// descriptors with the runtime's checked encoder. The descriptor fence needs
// PTX 8.3; with sm_90a's default PTX 8.0 it is a diagnostic (LLVM 22 would
// abort in instruction selection).
//
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a verify-protocol=false" 2>&1 | FileCheck %s --check-prefix=PTX80
// PTX80: error: 'tile.tma_fence_descriptor' op requires PTX ISA 8.3 ('+ptx83') or newer, but the target uses PTX 8.0 ('+ptx80') (T-TARGET-3)
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a features=+ptx83 verify-protocol=false" -o %t.mlir
// RUN: tile-translate --extract-ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// The host encodes each map into a 128-byte slot and the launch passes the
// slot's bytes; the kernel takes each map as a 128-byte grid-constant
// parameter (T-TMA-22) whose address TMA uses.
// HOST-DAG: llvm.func @tileRtTensorMapEncodeTiledMemref(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr)
// HOST-DAG: llvm.func @tileRtTensorMapEncodeIm2colMemref(!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, i64, i64)
// HOST-LABEL: llvm.func @host(
//       HOST: llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 128 : i64}
//       HOST: llvm.call @tileRtTensorMapEncodeTiledMemref(%[[SLOT:[0-9]+]],
//       HOST: %[[MAP:.*]] = llvm.load %[[SLOT]] {alignment = 128 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
//       HOST: gpu.launch_func <%{{.*}} : !llvm.ptr> @kernels::@tma clusters in {{.*}} args(%[[MAP]] : !llvm.array<16 x i64>,

// CHECK-LABEL: .visible .entry tma(
//  CHECK-NEXT: .param .align 128 .b8 tma_param_0[128],
//  CHECK-NEXT: .param .align 128 .b8 tma_param_1[128],
//       CHECK: .shared .align 1024 .b8 __tile_shared[
//       CHECK: cvta.param.u64
//       CHECK: prefetch.tensormap [%r{{d?[0-9]+}}];
//       CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [__tile_mbarriers];
//       CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [__tile_mbarriers+8], %rs{{[0-9]+}}, %r{{d?[0-9]+}};
//       CHECK: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//       CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//       CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//       CHECK: cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}]
//       CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], [__tile_mbarriers+32], {%rs{{[0-9]+}}, %rs{{[0-9]+}}};
//       CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}], [__tile_shared];
//       CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.max.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.inc.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.dec.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.and.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.or.tile.bulk_group
//       CHECK: cp.reduce.async.bulk.tensor.2d.global.shared::cta.xor.tile.bulk_group
//       CHECK: cp.async.bulk.commit_group;
//       CHECK: cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}];
//       CHECK: cp.async.bulk.prefetch.tensor.2d.L2.global.tile.L2::cache_hint
//       CHECK: cp.async.bulk.prefetch.tensor.4d.L2.global.im2col [%r{{d?[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}], {%rs{{[0-9]+}}, %rs{{[0-9]+}}};
//       CHECK: fence.proxy.tensormap::generic.acquire.gpu [%r{{d?[0-9]+}}], 128;

!d2 = !tile.tma_desc<memref<1024x1024xf16>, box = [64, 64], swizzle = b128>
!d1 = !tile.tma_desc<memref<4096xf32>, box = [256]>
!d3 = !tile.tma_desc<memref<8x64x64xf32>, box = [2, 8, 32], swizzle = b128>
!d4 = !tile.tma_desc<memref<4x8x64x64xbf16>, box = [1, 2, 8, 64], swizzle = b128>
!d5 = !tile.tma_desc<memref<4x4x8x16x64xbf16>, box = [1, 2, 4, 8, 64], swizzle = b128>
!di = !tile.tma_desc<memref<256x256xi32>, box = [32, 32]>
!dc = !tile.tma_desc<memref<2x8x8x64xf16>, box = [64, 64], im2col_lower = [-1, -1], im2col_upper = [-1, -1], swizzle = b128>
!bars = !tile.mbarrier<count = 6>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tma(%d: !d2, %e: !d1, %f3: !d3, %f4: !d4, %f5: !d5, %i: !di,
                  %r: index, %c: index, %policy: i64, %conv: !dc, %off: i16) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c4 = arith.constant 4 : index
      %mask = arith.constant 3 : i16
      %ring = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x64x64xf16, 3>
      %line = tile.shared_alloc : memref<256xf32, 3>
      %b3 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x8x32xf32, 3>
      %b4 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x2x8x64xbf16, 3>
      %b5 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x2x4x8x64xbf16, 3>
      %ints = tile.shared_alloc : memref<32x32xi32, 3>
      %bars = tile.mbarrier_alloc : !bars
      tile.tma_prefetch_descriptor %d : !d2
      tile.tma_load %d[%r, %c] to %ring[%c0], %bars[%c0] : !d2, memref<2x64x64xf16, 3>, !bars
      tile.tma_load %d[%r, %c] to %ring[%c1], %bars[%c1] multicast %mask cache_hint %policy
          : !d2, memref<2x64x64xf16, 3>, !bars
      tile.tma_load %e[%c] to %line, %bars[%c2] : !d1, memref<256xf32, 3>, !bars
      tile.tma_load %f3[%c0, %r, %c] to %b3, %bars[%c3] : !d3, memref<2x8x32xf32, 3>, !bars
      tile.tma_load %f4[%c0, %c0, %r, %c] to %b4, %bars[%c4] : !d4, memref<1x2x8x64xbf16, 3>, !bars
      tile.tma_load %f5[%c0, %c0, %c0, %r, %c] to %b5, %bars[%c4] : !d5, memref<1x2x4x8x64xbf16, 3>, !bars
      tile.tma_load %conv[%c0, %r, %c, %c0] im2col [%off, %off] to %ring[%c1], %bars[%c4]
          : !dc, memref<2x64x64xf16, 3>, !bars
      tile.tma_store %ring[%c0] to %d[%r, %c] : memref<2x64x64xf16, 3>, !d2
      tile.tma_store %ring[%c1] to %d[%r, %c] cache_hint %policy : memref<2x64x64xf16, 3>, !d2
      tile.tma_reduce add %ring[%c0] to %d[%r, %c] : memref<2x64x64xf16, 3>, !d2
      tile.tma_reduce min %ring[%c0] to %d[%r, %c] : memref<2x64x64xf16, 3>, !d2
      tile.tma_reduce max %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
      tile.tma_reduce inc %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
      tile.tma_reduce dec %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
      tile.tma_reduce and %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
      tile.tma_reduce or %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
      tile.tma_reduce xor %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
      tile.bulk_commit_group
      tile.tma_prefetch %d[%r, %c] : !d2
      tile.tma_prefetch %d[%r, %c] cache_hint %policy : !d2
      tile.tma_prefetch %conv[%c0, %r, %c, %c0] im2col [%off, %off] : !dc
      tile.tma_fence_descriptor %d : !d2
      tile.bulk_wait_group 0
      gpu.return
    }
  }

  func.func @host(%a: memref<1024x1024xf16>, %b: memref<4096xf32>, %t3: memref<8x64x64xf32>,
                  %t4: memref<4x8x64x64xbf16>, %t5: memref<4x4x8x16x64xbf16>, %ti: memref<256x256xi32>,
                  %tc: memref<2x8x8x64xf16>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %p = arith.constant 0 : i64
    %d = tile.tma_create_descriptor %a : memref<1024x1024xf16> -> !d2
    %e = tile.tma_create_descriptor %b : memref<4096xf32> -> !d1
    %f3 = tile.tma_create_descriptor %t3 : memref<8x64x64xf32> -> !d3
    %f4 = tile.tma_create_descriptor %t4 : memref<4x8x64x64xbf16> -> !d4
    %f5 = tile.tma_create_descriptor %t5 : memref<4x4x8x16x64xbf16> -> !d5
    %i = tile.tma_create_descriptor %ti : memref<256x256xi32> -> !di
    %conv = tile.tma_create_descriptor %tc : memref<2x8x8x64xf16> -> !dc
    %off = arith.constant 1 : i16
    gpu.launch_func @kernels::@tma clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%d : !d2, %e : !d1, %f3 : !d3, %f4 : !d4, %f5 : !d5, %i : !di, %c1 : index, %c2 : index, %p : i64, %conv : !dc, %off : i16)
    return
  }
}
