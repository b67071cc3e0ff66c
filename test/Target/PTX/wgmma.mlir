// wgmma as PTX, assembled by ptxas for sm_90a: the kernel of
// Integration/GPU/wgmma.mlir (descriptors from 128B-swizzled buffers: layout
// type 1 << 62, stride byte offset 1024 >> 4 = 64 << 32, leading 1 << 16).
// wgmma needs the arch-specific target.
//
// RUN: tile-opt %S/../../Integration/GPU/wgmma.mlir --tile-to-ptx-pipeline="chip=sm_90a" -o %t.mlir
// RUN: tile-translate --extract-ptx %t.mlir -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: not tile-opt %S/../../Integration/GPU/wgmma.mlir --tile-check-target="chip=sm_90" 2>&1 | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %S/../../Integration/GPU/wgmma.mlir -tile-swizzle-accesses -convert-tile-to-nvvm | FileCheck %s --check-prefix=DESC

// CHECK-LABEL: .visible .entry wgmma(
//       CHECK: fence.proxy.async.shared::cta;
//       CHECK: wgmma.fence.sync.aligned;
//       CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{]}}%r{{[0-9]+}}, {{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
//       CHECK: wgmma.commit_group.sync.aligned;
//       CHECK: wgmma.wait_group.sync.aligned 0;

// SM90: error: 'tile.wgmma_fence' op requires an arch-specific target such as sm_90a, got sm_90 (T-TARGET-3)

// The low word: start address (address >> 4) + leading byte offset 16 >> 4 << 16
// in 32 bits; the high word: 1 << 62 | 64 << 32 = 4611686293305294848.
// DESC: %[[LEADING:.*]] = llvm.mlir.constant(65536 : i32) : i32
// DESC: %[[LOW:.*]] = llvm.add %{{.*}}, %[[LEADING]] : i32
// DESC: %[[WIDE:.*]] = llvm.zext %[[LOW]] : i32 to i64
// DESC: %[[HIGH:.*]] = llvm.mlir.constant(4611686293305294848 : i64) : i64
// DESC: llvm.or %[[WIDE]], %[[HIGH]] : i64
