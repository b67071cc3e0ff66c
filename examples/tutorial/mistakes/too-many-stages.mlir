// Mistake: eight stages of an 8 KB row. The ring of a static buffer is
// static shared memory, of which CUDA allows a kernel 48 KB; a larger ring
// needs `tile.shared_alloc dynamic` (and the launch's dynamic shared memory
// size).
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -verify-diagnostics
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy_rows(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %first_row = gpu.block_id x
      %ctas = gpu.grid_dim x
      %rows = memref.dim %x, %c0 : memref<?x4096xbf16>
      %col = arith.muli %tid, %c8 : index
      %row_buf = tile.shared_alloc : memref<4096xbf16, #gpu.address_space<workgroup>>
      // expected-error @+1 {{cannot be pipelined with 8 stages}}
      scf.for %row = %first_row to %rows step %ctas {
        tile.async_copy %x[%row, %col] to %row_buf[%col], 16 bytes, cache = cg
            : memref<?x4096xbf16> to memref<4096xbf16, #gpu.address_space<workgroup>>
        %group = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        %xv = vector.load %row_buf[%col]
            : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
        vector.store %xv, %y[%row, %col] {alignment = 16} : memref<?x4096xbf16>, vector<8xbf16>
      } {tile.pipeline_stages = 8 : i64}
      gpu.return
    }
  }
}
