// Found by scripts/fuzz: a tile.tensor_map_params that names no pointer
// argument made tile-tensor-maps-by-value index past the kernel's
// arguments (SmallVector growth failure, then a crash).
// RUN: tile-opt %s --tile-tensor-maps-by-value -split-input-file -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{tile.tensor_map_params names argument 6, which is not a pointer argument of the kernel}}
    llvm.func @k(%p: !llvm.ptr, %map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, tile.tensor_map_params = array<i64: 6>} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{names argument 2, which is not a pointer argument}}
    llvm.func @k(%p: !llvm.ptr, %map: !llvm.ptr, %n: i64) attributes {gpu.kernel, nvvm.kernel, tile.tensor_map_params = array<i64: 2>} {
      llvm.return
    }
  }
}
