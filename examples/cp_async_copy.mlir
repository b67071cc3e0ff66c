// A 64x64 f16 tile copy through shared memory with cp.async (seed 002's
// building block): each of 128 threads issues four 16-byte cp.async.cg
// copies, commits them as one group, waits for it, and the block writes the
// shared tile back to global memory. Grid: one block per 64-row tile.
//
//   tile-opt examples/cp_async_copy.mlir --tile-to-ptx-pipeline="chip=sm_90a" \
//     | tile-translate --extract-ptx

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy_tile(%src: memref<?x64xf16>, %dst: memref<?x64xf16>)
        workgroup(%smem: memref<64x64xf16, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c64 = arith.constant 64 : index
      %c128 = arith.constant 128 : index
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %row0 = arith.muli %bid, %c64 : index

      // Issue: 512 chunks of 8 halves (16 bytes), 4 per thread.
      scf.for %k = %c0 to %c4 step %c1 {
        %kk = arith.muli %k, %c128 : index
        %chunk = arith.addi %tid, %kk : index
        %row = arith.divui %chunk, %c8 : index
        %c8col = arith.remui %chunk, %c8 : index
        %col = arith.muli %c8col, %c8 : index
        %grow = arith.addi %row0, %row : index
        tile.async_copy %src[%grow, %col] to %smem[%row, %col], 16 bytes, cache = cg
            : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
      }
      %group = tile.async_commit_group
      tile.async_wait_group 0 for %group
      gpu.barrier

      // Write back: 4096 elements, 32 per thread, coalesced along rows.
      %c32 = arith.constant 32 : index
      scf.for %k = %c0 to %c32 step %c1 {
        %kk = arith.muli %k, %c128 : index
        %idx = arith.addi %tid, %kk : index
        %row = arith.divui %idx, %c64 : index
        %col = arith.remui %idx, %c64 : index
        %v = memref.load %smem[%row, %col]
            : memref<64x64xf16, #gpu.address_space<workgroup>>
        %grow = arith.addi %row0, %row : index
        memref.store %v, %dst[%grow, %col] : memref<?x64xf16>
      }
      gpu.return
    }
  }
}
