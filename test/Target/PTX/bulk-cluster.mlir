// The cluster forms of the 1D bulk copies as PTX, assembled by ptxas: the
// multicast global -> shared copy and the shared::cta -> shared::cluster copy
// of Integration/GPU/bulk-cluster.mlir (sm_90a), and the cache-hint,
// byte-mask and prefetch forms (the byte mask needs sm_100 and PTX 8.6).
//
// RUN: tile-opt %S/../../Integration/GPU/bulk-cluster.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_100a features=+ptx86 verify-protocol=false" | tile-translate --extract-ptx -o %t.hints.ptx
// RUN: FileCheck %s --check-prefix=HINTS < %t.hints.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_100a %t.hints.ptx -o %t.hints.cubin %}
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a verify-protocol=false" 2>&1 | FileCheck %s --check-prefix=SM90

// CHECK-LABEL: .visible .entry bulk_cluster(
//       CHECK: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r{{d?[0-9]+}}], [%r{{d?[0-9]+}}], %r{{[0-9]+}}, [__tile_mbarriers], %rs{{[0-9]+}};
//       CHECK: mapa.shared::cluster.u32
//       CHECK: mapa.shared::cluster.u32
//       CHECK: cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r{{d?[0-9]+}}], [%r{{[0-9]+}}], %r{{[0-9]+}}, [%r{{d?[0-9]+}}];

// HINTS-LABEL: .visible .entry hints(
//       HINTS: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint
//       HINTS: cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint
//       HINTS: cp.async.bulk.global.shared::cta.bulk_group.cp_mask
//       HINTS: cp.async.bulk.prefetch.L2.global [%rd{{[0-9]+}}], %r{{[0-9]+}};
//       HINTS: cp.async.bulk.prefetch.L2.global.L2::cache_hint

// SM90: error: 'tile.bulk_copy_shared_to_global' op requires sm_100 or newer, but the target chip is sm_90a (T-TARGET-3)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @hints(%g: memref<4096xf32>, %policy: i64, %mask: i16) kernel {
      %c0 = arith.constant 0 : index
      %n = arith.constant 4096 : i32
      %s = tile.shared_alloc : memref<1024xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      tile.bulk_copy_global_to_shared %g[%c0] to %s[%c0], %n, %bars[%c0] cache_hint %policy
          : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
      tile.bulk_copy_shared_to_global %s[%c0] to %g[%c0], %n cache_hint %policy
          : memref<1024xf32, 3> to memref<4096xf32>
      tile.bulk_copy_shared_to_global %s[%c0] to %g[%c0], %n byte_mask %mask
          : memref<1024xf32, 3> to memref<4096xf32>
      tile.bulk_prefetch %g[%c0], %n : memref<4096xf32>
      tile.bulk_prefetch %g[%c0], %n cache_hint %policy : memref<4096xf32>
      gpu.return
    }
  }
}
