// A gpu.launch body that waits for the grid before it (T-PDL-1 takes the
// launch body's entry block as a kernel's): outlined, its kernel is marked
// `dependent_launch` in the manifest, and its PTX waits before the store.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -o %t.mlir
// RUN: tile-translate --kernel-manifest %t.mlir | FileCheck %s
// RUN: tile-translate --extract-ptx %t.mlir | FileCheck %s --check-prefix=PTX

// CHECK: "dependent_launch": true,
// PTX: griddepcontrol.wait;
// PTX: st.global

module attributes {gpu.container_module} {
  func.func @fill(%out: memref<128xf32>) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1) {
      tile.grid_dependency_wait
      memref.store %one, %out[%tx] : memref<128xf32>
      gpu.terminator
    }
    return
  }
}
