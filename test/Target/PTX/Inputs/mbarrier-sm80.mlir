// Input of ../mbarrier.mlir's sm_80 RUN lines (the Ampere subset).

// CHECK-LABEL: .visible .entry ampere_mbarriers(
//       CHECK: mbarrier.init.shared.b64
//       CHECK: cp.async.mbarrier.arrive.shared.b64
//       CHECK: mbarrier.arrive.shared.b64
//       CHECK: mbarrier.test_wait.shared.b64
//       CHECK: mbarrier.inval.shared.b64

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ampere_mbarriers(%out: memref<1xi32>) kernel {
      %c0 = arith.constant 0 : index
      %two = arith.constant 2 : i32
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      tile.mbarrier_init %bars[%c0], %two : !tile.mbarrier
      tile.async_copy_mbarrier_arrive %bars[%c0] : !tile.mbarrier
      %t = tile.mbarrier_arrive %bars[%c0] : !tile.mbarrier -> !tile.mbarrier_token
      %d = tile.mbarrier_test_wait %bars[%c0], %t : !tile.mbarrier
      %r = arith.extui %d : i1 to i32
      memref.store %r, %out[%c0] : memref<1xi32>
      tile.mbarrier_inval %bars[%c0] : !tile.mbarrier
      gpu.return
    }
  }
}
