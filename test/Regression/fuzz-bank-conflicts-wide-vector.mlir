// Found by scripts/fuzz: a vector.load of 2^31 elements made the
// bank-conflict analysis walk every byte of it (a hang). Accesses wider
// than one thread's widest (16 bytes) are not analyzed.
// RUN: tile-opt %s --tile-analyze-bank-conflicts | FileCheck %s
// CHECK: vector.load

gpu.module @kernels {
  gpu.func @wide() workgroup(%s: memref<16x16xf16, 3>) kernel {
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %tid = gpu.thread_id x
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    %v = vector.load %s[%row, %col] : memref<16x16xf16, 3>, vector<2147483648xf16>
    gpu.return
  }
}
