// RUN: tile-opt %s -convert-tile-to-nvvm | FileCheck %s

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
!bars = !tile.mbarrier<count = 2>

// The host encodes the map with the runtime's checked encoder (the tensor-map
// contract's signature) into a 128-byte aligned slot of the function's frame:
// the slot, rank, memref descriptor (by pointer), CUtensorMapDataType
// FLOAT32 = 7, interleave none, swizzle 128B = 3, no L2 promotion, zero fill,
// box (outermost first, by pointer). The launch passes the slot's bytes.
// CHECK-LABEL: func.func @host
//   CHECK-DAG:   %[[BOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
//   CHECK-DAG:   %[[DESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//   CHECK-DAG:   %[[MAP:.*]] = llvm.alloca %{{.*}} x !llvm.array<16 x i64> {alignment = 128 : i64}
//       CHECK:   llvm.call @tileRtTensorMapEncodeTiledMemref(%[[MAP]], %{{.*}}, %[[DESC]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BOX]]) : (!llvm.ptr, i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> ()
module attributes {gpu.container_module} {
func.func @host(%a: memref<1024x1024xf32>, %i: index, %mask: i16, %policy: i64) {
  %d = tile.tma_create_descriptor %a : memref<1024x1024xf32> -> !d
  gpu.launch_func @kernels::@device blocks in (%i, %i, %i) threads in (%i, %i, %i)
      args(%d : !d, %i : index, %i : index, %mask : i16, %policy : i64)
  return
}

// Coordinates go innermost first as i32; the destination is this CTA's
// address in the shared::cluster window; the barrier is its 8-byte slot.
// CHECK-LABEL: gpu.func @device
//  CHECK-SAME:   (%[[D:.*]]: !tile.tma_desc{{.*}}, %[[ROW:.*]]: index, %[[COL:.*]]: index, %[[MASK:.*]]: i16, %[[POL:.*]]: i64)
// The kernel records where its tensor maps are among its LLVM arguments.
//  CHECK-SAME:   tile.tensor_map_params = array<i64: 0>
//       CHECK:   %[[MAP:.*]] = builtin.unrealized_conversion_cast %[[D]] : !tile.tma_desc{{.*}} to !llvm.ptr
//       CHECK:   %[[DST:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
//       CHECK:   %[[BAR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i64
//       CHECK:   %[[X:.*]] = llvm.trunc %{{.*}} : i64 to i32
//       CHECK:   %[[Y:.*]] = llvm.trunc %{{.*}} : i64 to i32
//       CHECK:   nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST]], %[[MAP]], %[[BAR]], box[%[[X]], %[[Y]]] multicast_mask = %[[MASK]] l2_cache_hint = %[[POL]]
//       CHECK:   nvvm.cp.async.bulk.tensor.global.shared.cta %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] :
//       CHECK:   nvvm.cp.async.bulk.tensor.reduce %[[MAP]], %{{.*}}, box[%{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>
//       CHECK:   nvvm.cp.async.bulk.tensor.prefetch %[[MAP]], box[%{{.*}}, %{{.*}}]
//       CHECK:   nvvm.prefetch tensormap, %[[MAP]] : !llvm.ptr
//       CHECK:   %[[SIZE:.*]] = llvm.mlir.constant(128 : i32) : i32
//       CHECK:   nvvm.fence.proxy.acquire <gpu> %[[MAP]], %[[SIZE]]{{$}}
gpu.module @kernels {
  gpu.func @device(%d: !d, %row: index, %col: index, %mask: i16, %policy: i64) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x16x32xf32, 3>
    %bars = tile.mbarrier_alloc : !bars
    tile.tma_load %d[%row, %col] to %s[%c1], %bars[%c1] multicast %mask cache_hint %policy
        : !d, memref<2x16x32xf32, 3>, !bars
    tile.tma_store %s[%c0] to %d[%row, %col] : memref<2x16x32xf32, 3>, !d
    tile.tma_reduce add %s[%c0] to %d[%row, %col] : memref<2x16x32xf32, 3>, !d
    tile.tma_prefetch %d[%row, %col] : !d
    tile.tma_prefetch_descriptor %d : !d
    tile.tma_fence_descriptor %d : !d
    gpu.return
  }
}
}
