// tile-translate --extract-ptx prints the PTX of every gpu.binary.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline | tile-translate --extract-ptx | FileCheck %s
// CHECK: // gpu.binary @first
// CHECK: .visible .entry a(
// CHECK: // gpu.binary @second
// CHECK: .visible .entry b(
//
// A module without PTX (e.g. format=bin, or not lowered) is an error.
// RUN: not tile-translate --extract-ptx %s 2>&1 | FileCheck %s --check-prefix=NOPTX
// NOPTX: error: no PTX found: expected a gpu.binary with an assembly object; run tile-to-ptx-pipeline with format=isa

module attributes {gpu.container_module} {
  gpu.module @first {
    gpu.func @a() kernel {
      tile.async_wait_all
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @b() kernel {
      gpu.return
    }
  }
}
