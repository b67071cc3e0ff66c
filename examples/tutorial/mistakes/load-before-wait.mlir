// Mistake: a programmatic dependent kernel that reads its input before it
// waits for the grid before it. tile launches a kernel that holds
// tile.grid_dependency_wait while the kernel before it on the stream still
// runs, so that kernel may not have written the row yet; the wait must come
// before the first access of global memory (T-PDL-2).
//
// RUN: tile-opt %s -verify-diagnostics
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @row_sum(%x: memref<?x4096xbf16>, %sums: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c8 : index
      // expected-note @+1 {{the access}}
      %xv = vector.load %x[%row, %col] {alignment = 16}
          : memref<?x4096xbf16>, vector<8xbf16>
      // expected-error @+1 {{expected no access to global memory before the wait}}
      tile.grid_dependency_wait
      %xf = arith.extf %xv : vector<8xbf16> to vector<8xf32>
      %mine = vector.reduction <add>, %xf : vector<8xf32> into f32
      %sum = tile.reduce add %mine over block : f32
      memref.store %sum, %sums[%row] : memref<?xf32>
      gpu.return
    }
  }
}
