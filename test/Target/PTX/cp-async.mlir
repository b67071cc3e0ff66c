// The cp.async family through tile-to-ptx-pipeline to PTX text, assembled by
// ptxas for sm_90a and, from the same IR, for sm_80.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.sm90a.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90A < %t.sm90a.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.sm90a.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS90 %}
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_80" | tile-translate --extract-ptx -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 < %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS80 %}

//  SM90A: .version 8.0
//  SM90A: .target sm_90a
//   SM80: .version 8.0
//   SM80: .target sm_80
// CHECK-LABEL: .visible .entry cp_async_forms(
//       CHECK: cp.async.cg.shared.global [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}], 16;
//       CHECK: cp.async.ca.shared.global [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}], 4;
//       CHECK: cp.async.ca.shared.global [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}], 8, %r{{[0-9]+}};
//       CHECK: cp.async.commit_group;
//       CHECK: cp.async.cg.shared.global.L2::128B [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}], 16;
//       CHECK: cp.async.ca.shared.global.L2::256B [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}], 4, %r{{[0-9]+}};
//       CHECK: cp.async.cg.shared.global.L2::cache_hint.L2::256B [%r{{d?[0-9]+}}], [%rd{{[0-9]+}}], 16, %rd{{[0-9]+}};
//       CHECK: cp.async.commit_group;
//       CHECK: cp.async.wait_group 1;
//       CHECK: cp.async.wait_group 0;
//       CHECK: cp.async.commit_group;
//  CHECK-NEXT: cp.async.wait_group 0;

// PTXAS90: Compiling entry function 'cp_async_forms' for 'sm_90a'
// PTXAS90: Used {{[0-9]+}} registers
// PTXAS80: Compiling entry function 'cp_async_forms' for 'sm_80'
// PTXAS80: Used {{[0-9]+}} registers

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @cp_async_forms(%g: memref<1024xf32>, %out: memref<1024xf32>, %n: i32)
        workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %c4 : index
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg
          : memref<1024xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      tile.async_copy %g[%i] to %s[%i], 4 bytes, cache = ca
          : memref<1024xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      tile.async_copy %g[%i] to %s[%i], 8 bytes, cache = ca, src_bytes = %n
          : memref<1024xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      %g0 = tile.async_commit_group
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, l2_prefetch = b128
          : memref<1024xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      tile.async_copy %g[%i] to %s[%i], 4 bytes, cache = ca, l2_prefetch = b256, src_bytes = %n
          : memref<1024xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      // An evict-last L2 policy (PTX ISA, "createpolicy") as a cache hint.
      %policy = nvvm.inline_ptx "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;" -> i64
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, l2_prefetch = b256, cache_policy = %policy
          : memref<1024xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      %g1 = tile.async_commit_group
      tile.async_wait_group 1 for %g0
      tile.async_wait_group 0 for %g1
      tile.async_wait_all
      %v = memref.load %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%i] : memref<1024xf32>
      gpu.return
    }
  }
}
