// The kernel manifest names kernels by name alone, as the PTX does: two
// gpu.modules with a kernel of one name are an error, not a manifest that
// silently keeps one of them.
//
// RUN: tile-opt %s --tile-kernel-manifest -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @k() kernel { gpu.return }
  }
  gpu.module @second {
    // expected-error @below {{kernel name 'k' is used by another gpu.module too; the kernel manifest names kernels by name alone}}
    gpu.func @k() kernel { gpu.return }
  }
}
