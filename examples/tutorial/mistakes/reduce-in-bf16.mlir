// Mistake: a reduction of bf16 values. Summing thousands of bf16 values in
// bf16 loses most of their bits; tile.reduce takes f32 (and i32): extend
// first, as Triton's tl.sum accumulates in f32.
//
// RUN: tile-opt %s -verify-diagnostics
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @row_sum(%x: memref<?x4096xbf16>, %sums: memref<?xbf16>) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c8 : index
      %xv = vector.load %x[%row, %col] {alignment = 16}
          : memref<?x4096xbf16>, vector<8xbf16>
      %mine = vector.reduction <add>, %xv : vector<8xbf16> into bf16
      // expected-error @+1 {{extend the values to f32 with arith.extf first}}
      %sum = tile.reduce add %mine over block : bf16
      memref.store %sum, %sums[%row] : memref<?xbf16>
      gpu.return
    }
  }
}
