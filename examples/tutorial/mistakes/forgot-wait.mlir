// Mistake: the row is read before a wait covers its copy. cp.async copies
// land asynchronously; only tile.async_wait_group makes them visible to the
// thread, and the barrier then to the block.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -verify-diagnostics
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rmsnorm_row(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c8 : index
      %row_buf = tile.shared_alloc : memref<4096xbf16, #gpu.address_space<workgroup>>
      // expected-note @+1 {{copy issued here}}
      tile.async_copy %x[%row, %col] to %row_buf[%col], 16 bytes, cache = cg
          : memref<?x4096xbf16> to memref<4096xbf16, #gpu.address_space<workgroup>>
      %group = tile.async_commit_group
      gpu.barrier
      // expected-error @+1 {{reads shared memory that a cp.async group may still be writing}}
      %xv = vector.load %row_buf[%col] {alignment = 16}
          : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
      vector.store %xv, %y[%row, %col] {alignment = 16} : memref<?x4096xbf16>, vector<8xbf16>
      // expected-warning @+1 {{returns while cp.async copies may still be in flight}}
      gpu.return
    }
  }
}
