// tile-to-ptx-pipeline options: chip, PTX level (defaulted per chip), format.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline | tile-translate --extract-ptx | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: .version 8.0
// DEFAULT: .target sm_90a
// DEFAULT: cp.async.cg.shared.global
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a features=+ptx90 opt-level=0" | tile-translate --extract-ptx | FileCheck %s --check-prefix=PTX90
// PTX90: .version 9.0
// PTX90: .target sm_90a
//
// Blackwell needs PTX 8.6: the default rises to the chip's minimum.
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_100a" | tile-translate --extract-ptx | FileCheck %s --check-prefix=SM100
// SM100: .version 8.6
// SM100: .target sm_100a
//
// The serialized form is kept in the gpu.binary: isa (PTX) by default, a
// cubin with format=bin (which runs ptxas).
// RUN: tile-opt %s --tile-to-ptx-pipeline | FileCheck %s --check-prefix=ISA
// ISA: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}assembly = "
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx-pipeline="format=bin" | FileCheck %s --check-prefix=BIN %}
// BIN: gpu.binary @kernels [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, {{.*}}bin = "\7FELF
//
// The host code is lowered too: the launch stays for the LLVM IR translation;
// written without async tokens, it runs on a stream that is then synchronized.
// RUN: tile-opt %s --tile-to-ptx-pipeline | FileCheck %s --check-prefix=HOST
// HOST: llvm.func @launch(
// HOST: %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// HOST: gpu.launch_func <%[[STREAM]] : !llvm.ptr> @kernels::@copy
// HOST: llvm.call @mgpuStreamSynchronize(%[[STREAM]])
//
// Bad options are diagnostics with a non-zero exit, not LLVM aborts.
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_80 features=+ptx60" 2>&1 | FileCheck %s --check-prefix=BADPTX
// BADPTX: error: PTX ISA 6.0 ('+ptx60') does not support sm_80; it needs PTX 7.0 ('+ptx70') or later (T-TARGET-2)
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_91" 2>&1 | FileCheck %s --check-prefix=BADCHIP
// BADCHIP: error: unknown chip 'sm_91'
// RUN: not tile-opt %s --tile-to-ptx-pipeline="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=TURING
// TURING: error: 'tile.async_copy' op requires sm_80 or newer, but the target chip is sm_75 (T-TARGET-3)
// RUN: not tile-opt %s --tile-to-ptx-pipeline="opt-level=x" 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: for the --opt-level option: 'x' value invalid for integer argument

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%g: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %c4 : index
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg
          : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      tile.async_wait_all
      %v = memref.load %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%i] : memref<256xf32>
      gpu.return
    }
  }

  func.func @launch(%g: memref<256xf32>, %out: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%g : memref<256xf32>, %out : memref<256xf32>)
    return
  }
}
