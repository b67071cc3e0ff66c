// A 64x64 f16 tile copy through shared memory with cp.async (the building
// block of a multistage cp.async pipeline): each of 128 threads issues four
// 16-byte cp.async.cg copies, commits them as one group, waits for it, and
// the block writes the shared tile back to global memory. Grid: one block
// per 64-row tile. @main copies a 256x64 matrix with it and counts the
// elements that differ.
//
//   tile-opt examples/cp_async_copy.mlir --tile-to-ptx-pipeline="chip=sm_90a" \
//     | tile-translate --extract-ptx          # the PTX
//   tile-run examples/cp_async_copy.mlir     # run it (needs a GPU)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy_tile(%src: memref<?x64xf16>, %dst: memref<?x64xf16>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      // 128-byte aligned, as 16-byte cp.async destinations need.
      %smem = tile.shared_alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
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

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %rows = arith.constant 256 : index
    %blocks = arith.divui %rows, %c64 : index

    // src[i][j] = (64 i + j) mod 2048, exact in f16.
    %src = memref.alloc() : memref<256x64xf16>
    %dst = memref.alloc() : memref<256x64xf16>
    %c2048 = arith.constant 2048 : index
    scf.for %i = %c0 to %c256 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %row = arith.muli %i, %c64 : index
        %lin = arith.addi %row, %j : index
        %mod = arith.remui %lin, %c2048 : index
        %int = arith.index_cast %mod : index to i32
        %f = arith.sitofp %int : i32 to f16
        memref.store %f, %src[%i, %j] : memref<256x64xf16>
      }
    }

    %t0 = gpu.wait async
    %dsrc, %t1 = gpu.alloc async [%t0] () : memref<256x64xf16>
    %ddst, %t2 = gpu.alloc async [%t1] () : memref<256x64xf16>
    %t3 = gpu.memcpy async [%t2] %dsrc, %src : memref<256x64xf16>, memref<256x64xf16>
    %zero = arith.constant 0.0 : f16
    %t4 = gpu.memset async [%t3] %ddst, %zero : memref<256x64xf16>, f16
    %a = memref.cast %dsrc : memref<256x64xf16> to memref<?x64xf16>
    %b = memref.cast %ddst : memref<256x64xf16> to memref<?x64xf16>
    %t5 = gpu.launch_func async [%t4] @kernels::@copy_tile
        blocks in (%blocks, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%a : memref<?x64xf16>, %b : memref<?x64xf16>)
    %t6 = gpu.memcpy async [%t5] %dst, %ddst : memref<256x64xf16>, memref<256x64xf16>
    %t7 = gpu.dealloc async [%t6] %dsrc : memref<256x64xf16>
    %t8 = gpu.dealloc async [%t7] %ddst : memref<256x64xf16>
    gpu.wait [%t8]

    %zero64 = arith.constant 0 : i64
    %one64 = arith.constant 1 : i64
    %bad = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %zero64) -> (i64) {
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%racc = %acc) -> (i64) {
        %x = memref.load %src[%i, %j] : memref<256x64xf16>
        %y = memref.load %dst[%i, %j] : memref<256x64xf16>
        %ne = arith.cmpf une, %x, %y : f16
        %inc = arith.select %ne, %one64, %zero64 : i64
        %next = arith.addi %racc, %inc : i64
        scf.yield %next : i64
      }
      scf.yield %row : i64
    }
    vector.print str "copied 256x64 f16 elements, mismatches: "
    vector.print %bad : i64
    memref.dealloc %src : memref<256x64xf16>
    memref.dealloc %dst : memref<256x64xf16>
    return
  }
}
