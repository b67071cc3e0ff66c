// Not an error, a slow load: the column comes from a kernel argument, so
// tile cannot prove the 16-byte alignment of this shared vector load, keeps
// the element's (eight 2-byte loads) and says so in a remark. Write
// {alignment = 16} on the load when you know the column is a multiple of 8.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -verify-diagnostics
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @shifted_row(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>, %shift: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c16 : index
      %row_buf = tile.shared_alloc : memref<4096xbf16, #gpu.address_space<workgroup>>
      tile.async_copy %x[%row, %col] to %row_buf[%col], 16 bytes, cache = cg
          : memref<?x4096xbf16> to memref<4096xbf16, #gpu.address_space<workgroup>>
      %second = arith.addi %col, %c8 : index
      tile.async_copy %x[%row, %second] to %row_buf[%second], 16 bytes, cache = cg
          : memref<?x4096xbf16> to memref<4096xbf16, #gpu.address_space<workgroup>>
      %group = tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
      %at = arith.addi %col, %shift : index
      // expected-remark @+1 {{cannot prove 16-byte alignment}}
      %xv = vector.load %row_buf[%at]
          : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
      vector.store %xv, %y[%row, %col] {alignment = 16} : memref<?x4096xbf16>, vector<8xbf16>
      gpu.return
    }
  }
}
