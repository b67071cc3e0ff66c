// tile-tensor-maps-by-value: the kernel arguments that convert-tile-to-nvvm
// recorded as tensor maps become 128-byte, 128-byte aligned grid constants
// (T-TMA-22), and each launch passes the 128 bytes its operand points at.
// Other arguments and launches of other kernels are left alone.
//
// RUN: tile-opt %s --tile-tensor-maps-by-value | FileCheck %s

// CHECK-LABEL: llvm.func @host
//  CHECK-SAME:   (%[[MAP:.*]]: !llvm.ptr, %[[P:.*]]: !llvm.ptr, %[[N:.*]]: i64)
//       CHECK:   %[[BYTES:.*]] = llvm.load %[[MAP]] {alignment = 128 : i64} : !llvm.ptr -> !llvm.array<16 x i64>
//       CHECK:   gpu.launch_func @kernels::@k {{.*}} args(%[[P]] : !llvm.ptr, %[[BYTES]] : !llvm.array<16 x i64>, %[[N]] : i64)
//   CHECK-NOT:   llvm.load
//       CHECK:   gpu.launch_func @kernels::@plain {{.*}} args(%[[P]] : !llvm.ptr)
// CHECK-LABEL: llvm.func @k
//  CHECK-SAME:   (%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 128 : i64, llvm.byval = !llvm.array<16 x i64>, nvvm.grid_constant}, %{{.*}}: i64)
//   CHECK-NOT:   tile.tensor_map_params
// CHECK-LABEL: llvm.func @plain
//  CHECK-SAME:   (%{{.*}}: !llvm.ptr)
module attributes {gpu.container_module} {
  llvm.func @host(%map: !llvm.ptr, %p: !llvm.ptr, %n: i64) {
    %c1 = llvm.mlir.constant(1 : index) : i64
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
        args(%p : !llvm.ptr, %map : !llvm.ptr, %n : i64)
    gpu.launch_func @kernels::@plain blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) : i64
        args(%p : !llvm.ptr)
    llvm.return
  }
  gpu.module @kernels {
    llvm.func @k(%p: !llvm.ptr, %map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, tile.tensor_map_params = array<i64: 1>} {
      llvm.return
    }
    llvm.func @plain(%p: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
