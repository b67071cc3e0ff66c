// The mbarrier family and the fences through tile-to-ptx-pipeline; ptxas
// assembles the result for sm_90a. The sm_80 subset (init, arrive, test_wait,
// inval, cp.async.mbarrier.arrive) assembles for sm_80.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: tile-opt %S/Inputs/mbarrier-sm80.mlir --tile-to-ptx-pipeline="chip=sm_80" | tile-translate --extract-ptx -o %t.sm80.ptx
// RUN: FileCheck %S/Inputs/mbarrier-sm80.mlir < %t.sm80.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin %}

// CHECK-LABEL: .visible .entry mbarriers(
//       CHECK: .shared .align 8 .b8 __tile_mbarriers[32];
//       CHECK: mbarrier.init.shared.b64
//       CHECK: fence.mbarrier_init.release.cluster;
//       CHECK: mbarrier.arrive.expect_tx.shared.b64
//       CHECK: mbarrier.expect_tx
//       CHECK: mbarrier.complete_tx
//       CHECK: mbarrier.arrive.shared.b64
//       CHECK: mbarrier.arrive.shared.b64 {{.*}}, [__tile_mbarriers+24], %r{{[0-9]+}};
//       CHECK: mbarrier.try_wait.parity
//       CHECK: mbarrier.try_wait
//       CHECK: mbarrier.test_wait
//       CHECK: mbarrier.arrive_drop
//       CHECK: cp.async.mbarrier.arrive.noinc.shared.b64
//       CHECK: fence.proxy.async.shared::cta;
//       CHECK: fence.proxy.async.global;
//       CHECK: fence.proxy.async;
//       CHECK: mbarrier.inval.shared.b64

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @mbarriers(%out: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 1024 : i32
      %false = arith.constant false
      %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
      tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier<count = 4>
      tile.fence_mbarrier_init
      %t0 = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
      tile.mbarrier_expect_tx %bars[%c1], %bytes : !tile.mbarrier<count = 4>
      tile.mbarrier_complete_tx %bars[%c1], %bytes : !tile.mbarrier<count = 4>
      %t1 = tile.mbarrier_arrive %bars[%c1] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
      %t4 = tile.mbarrier_arrive %bars[%c3], %one : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
      tile.mbarrier_wait_parity %bars[%c0], %false : !tile.mbarrier<count = 4>
      %d0 = tile.mbarrier_try_wait %bars[%c1], %t1 : !tile.mbarrier<count = 4>
      %d1 = tile.mbarrier_test_wait %bars[%c1], %t1 : !tile.mbarrier<count = 4>
      %t2 = tile.mbarrier_arrive_drop %bars[%c3] : !tile.mbarrier<count = 4> -> !tile.mbarrier_token
      tile.async_copy_mbarrier_arrive %bars[%c3] noinc : !tile.mbarrier<count = 4>
      tile.fence_proxy_async shared_cta
      tile.fence_proxy_async global
      tile.fence_proxy_async all
      %d2 = tile.mbarrier_try_wait_parity %bars[%c0], %false : !tile.mbarrier<count = 4>
      %a = arith.andi %d0, %d1 : i1
      %b = arith.andi %a, %d2 : i1
      %r = arith.extui %b : i1 to i32
      memref.store %r, %out[%c0] : memref<4xi32>
      tile.mbarrier_inval %bars[%c0] : !tile.mbarrier<count = 4>
      gpu.return
    }
  }
}
