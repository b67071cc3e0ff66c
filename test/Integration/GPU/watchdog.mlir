// A kernel waits on an mbarrier that expects two arrivals but gets one: it
// never finishes. The watchdog stops the run and names the kernel.
//
// RUN: not tile-run %s --timeout=3 2>&1 | FileCheck %s
// CHECK: tile-run: watchdog: 'main' did not finish within 3 s; last kernel launched: 'never_done'

!barriers = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @never_done() kernel {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %ticks = arith.constant 1000000 : index
      %phase = arith.constant false
      %bar = nvgpu.mbarrier.create -> !barriers
      nvgpu.mbarrier.init %bar[%c0], %c2 : !barriers
      %token = nvgpu.mbarrier.arrive %bar[%c0] : !barriers -> !nvgpu.mbarrier.token
      nvgpu.mbarrier.try_wait.parity %bar[%c0], %phase, %ticks : !barriers
      gpu.return
    }
  }

  func.func @main() {
    %c1 = arith.constant 1 : index
    %t0 = gpu.wait async
    %t1 = gpu.launch_func async [%t0] @kernels::@never_done blocks in (%c1, %c1, %c1)
        threads in (%c1, %c1, %c1)
    gpu.wait [%t1]
    return
  }
}
