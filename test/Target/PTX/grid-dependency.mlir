// Programmatic dependent launch through tile-to-ptx-pipeline: the L2
// prefetch before the wait, griddepcontrol's two actions; ptxas assembles
// them for sm_90a. The manifest marks the kernel that waits.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -o %t.mlir
// RUN: tile-translate --extract-ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: tile-translate --kernel-manifest %t.mlir | FileCheck %s --check-prefix=MANIFEST

// CHECK-LABEL: .visible .entry dependent(
//       CHECK:   cp.async.bulk.prefetch.tensor.2d.L2.global.tile
//       CHECK:   griddepcontrol.wait;
//       CHECK:   griddepcontrol.launch_dependents;
//       CHECK:   st.global.b32
// CHECK-LABEL: .visible .entry independent(
//   CHECK-NOT:   griddepcontrol

// MANIFEST:      "dependent": {
// MANIFEST:        "dependent_launch": true,
// MANIFEST:      "independent": {
// MANIFEST:        "dependent_launch": false,

!d = !tile.tma_desc<memref<?x?xbf16>, box = [64, 64], swizzle = b128>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @dependent(%w: !d, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.tma_prefetch_descriptor %w : !d
        tile.tma_prefetch %w[%c0, %c0] : !d
      }
      tile.grid_dependency_wait
      tile.launch_dependents
      memref.store %zero, %out[%tid] : memref<?xf32>
      gpu.return
    }
    gpu.func @independent(%out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      memref.store %zero, %out[%tid] : memref<?xf32>
      gpu.return
    }
  }
}
