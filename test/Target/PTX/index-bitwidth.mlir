// tile-to-ptx-pipeline's index width and shared-pointer width, assembled by
// ptxas. With index-bitwidth=32 a kernel's index parameters, loop counters and
// memref descriptor fields are 32-bit (host code keeps a 64-bit index: a
// launch passes 64-bit values, of which the .u32 parameter reads the low
// half); shared addresses are 32-bit unless short-shared-pointers=false.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.32.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,I32 < %t.32.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.32.ptx -o %t.32.cubin %}
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.64.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,I64 < %t.64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.64.ptx -o %t.64.cubin %}
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a short-shared-pointers=false" | tile-translate --extract-ptx | FileCheck %s --check-prefix=LONG
// Cluster special registers are already the 32-bit index (no widening):
// RUN: tile-opt %S/../../Integration/GPU/bulk-cluster.mlir --tile-to-ptx-pipeline="chip=sm_90a index-bitwidth=32" | tile-translate --extract-ptx -o %t.cluster.ptx
// RUN: FileCheck %s --check-prefix=CLUSTER < %t.cluster.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.cluster.ptx -o %t.cluster.cubin %}
// CLUSTER: mov.u32 %r{{[0-9]+}}, %cluster_ctarank;
// CLUSTER: mapa.shared::cluster.u32

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[i] = shared[(i + tid) mod 128] for i < n.
    gpu.func @rotate(%out: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %tid = gpu.thread_id x
      %buf = tile.shared_alloc : memref<128xf32, 3>
      %t = arith.index_cast %tid : index to i32
      %f = arith.sitofp %t : i32 to f32
      memref.store %f, %buf[%tid] : memref<128xf32, 3>
      gpu.barrier
      scf.for %i = %tid to %n step %c128 {
        %j = arith.addi %i, %tid : index
        %k = arith.remui %j, %c128 : index
        %v = memref.load %buf[%k] : memref<128xf32, 3>
        memref.store %v, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}

// CHECK-LABEL: .visible .entry rotate(
// I32: .param .u32 rotate_param_2,
// I32: .param .u32 rotate_param_5
// I64: .param .u64 rotate_param_2,
// I64: .param .u64 rotate_param_5
// CHECK: st.shared.b32 [%r{{[0-9]+}}], %r{{[0-9]+}};
// LONG: st.shared.b32 [%rd{{[0-9]+}}], %r{{[0-9]+}};
// I32: add.s32 %r{{[0-9]+}}, %r{{[0-9]+}}, 128;
// I64: add.s64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 128;
