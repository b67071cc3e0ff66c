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
