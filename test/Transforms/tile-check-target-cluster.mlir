// T-CLUSTER-1: a kernel that uses cluster operations is launched with a
// cluster shape; the error points at the launch with a note at the op.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @uses_cluster() kernel {
      // expected-note @below {{cluster operation here}}
      tile.cluster_wait
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // expected-error @below {{'gpu.launch_func' op launches kernel 'uses_cluster' without a cluster shape, but it uses 'tile.cluster_wait', which needs a cluster launch (T-CLUSTER-1)}}
    gpu.launch_func @kernels::@uses_cluster blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @inline_launch() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch' op launches its body without a cluster shape, but it uses 'tile.cluster_cta_rank', which needs a cluster launch (T-CLUSTER-1)}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      // expected-note @below {{cluster operation here}}
      %r = tile.cluster_cta_rank : index
      gpu.terminator
    }
    return
  }
}

// -----

// With clusters, and for kernels without cluster ops, nothing is reported.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @uses_cluster() kernel {
      tile.cluster_wait
      gpu.return
    }
    gpu.func @plain() kernel {
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    gpu.launch_func @kernels::@uses_cluster clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @kernels::@plain blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}

// -----

// T-TMA-19: a constant multicast mask names CTAs of the launch's cluster.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @multicast(%d: !d) kernel {
      %c0 = arith.constant 0 : index
      %mask = arith.constant 5 : i16
      %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      // expected-error @below {{'tile.tma_load' op multicast mask 0x5 names CTA 2, but the cluster has 2 CTA(s) (T-TMA-19)}}
      tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] multicast %mask : !d, memref<16x32xf32, 3>, !tile.mbarrier
      gpu.return
    }
  }
  func.func @launch(%d: !d) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    // expected-note @below {{launched here}}
    gpu.launch_func @kernels::@multicast clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : !d)
    return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
module attributes {gpu.container_module} {
  func.func @empty_mask(%d: !d) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-note @below {{launched here}}
    gpu.launch clusters(%cx, %cy, %cz) in (%nx = %c4, %ny = %c1, %nz = %c1)
               blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %c0 = arith.constant 0 : index
      %mask = arith.constant 0 : i16
      %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      // expected-error @below {{'tile.tma_load' op multicast mask 0 names no CTA: the box is never delivered (T-TMA-19)}}
      tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] multicast %mask : !d, memref<16x32xf32, 3>, !tile.mbarrier
      gpu.terminator
    }
    return
  }
}

// -----

// A mask within a 4-CTA cluster is accepted.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @multicast(%d: !d) kernel {
      %c0 = arith.constant 0 : index
      %mask = arith.constant 15 : i16
      %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier
      tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] multicast %mask : !d, memref<16x32xf32, 3>, !tile.mbarrier
      gpu.return
    }
  }
  func.func @launch(%d: !d) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@multicast clusters in (%c4, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%d : !d)
    return
  }
}
