// T-SMEM-1: launches provide the dynamic shared memory of their kernel's
// dynamic tile.shared_alloc buffers; T-SMEM-2: those fit in a CTA.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      // expected-note @below {{first dynamic buffer here}}
      %a = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x64x64xf16, 3>
      %b = tile.shared_alloc dynamic : memref<100xf32, 3>
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %smem = arith.constant 32768 : i32
    // expected-error @below {{'gpu.launch_func' op provides 32768 bytes of dynamic shared memory, but the kernel's dynamic buffers need 33168 (dynamic_shared_memory_size) (T-SMEM-1)}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %smem
    return
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @no_size() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{'gpu.launch' op provides 0 bytes of dynamic shared memory, but the kernel's dynamic buffers need 4096 (dynamic_shared_memory_size) (T-SMEM-1)}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      // expected-note @below {{first dynamic buffer here}}
      %a = tile.shared_alloc dynamic : memref<1024xf32, 3>
      gpu.terminator
    }
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      // expected-error @below {{'tile.shared_alloc' op dynamic shared buffers take 262144 bytes, more than the 232448 a CTA can address (T-SMEM-2)}}
      %a = tile.shared_alloc dynamic : memref<65536xf32, 3>
      gpu.return
    }
  }
  func.func @launch(%n: i32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %n
    return
  }
}

// -----

// Enough bytes, or a size known only at run time: accepted.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      %a = tile.shared_alloc dynamic : memref<1024xf32, 3>
      gpu.return
    }
  }
  func.func @launch(%n: i32) {
    %c1 = arith.constant 1 : index
    %smem = arith.constant 4096 : i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %smem
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %n
    return
  }
}
