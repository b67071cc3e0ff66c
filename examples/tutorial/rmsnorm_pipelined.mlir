// A persistent, pipelined RMSNorm (docs/Tutorial.md, step 4): each CTA of
// 512 threads normalizes rows first_row, first_row + ctas, ... of x; the
// row loop is marked {tile.pipeline_stages = 4}, so tile-opt turns its
// copy / commit / wait / barrier / compute body into a 4-stage cp.async
// ring: rows i + 1 to i + 3 are in flight while row i is reduced.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx | FileCheck %s
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// CHECK-LABEL: .visible .entry rmsnorm_rows(
// CHECK:       cp.async.cg.shared.global
// CHECK:       cp.async.wait_group 2;
// CHECK:       ld.shared.v4.b32
// CHECK:       st.global.v4.b32
// CHECK:       cp.async.wait_group 0;
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rmsnorm_rows(%x: memref<?x4096xbf16>, %w: memref<4096xbf16>,
                           %y: memref<?x4096xbf16>, %eps: f32) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %n = arith.constant 4096.0 : f32
      %tid = gpu.thread_id x
      %first_row = gpu.block_id x
      %ctas = gpu.grid_dim x
      %rows = memref.dim %x, %c0 : memref<?x4096xbf16>
      %col = arith.muli %tid, %c8 : index
      %wv = vector.load %w[%col] {alignment = 16} : memref<4096xbf16>, vector<8xbf16>
      %wf = arith.extf %wv : vector<8xbf16> to vector<8xf32>
      // One row; the pipeliner gives it a leading stage dimension.
      %row_buf = tile.shared_alloc : memref<4096xbf16, #gpu.address_space<workgroup>>
      // This CTA's rows; bounds and step may be run-time values.
      scf.for %row = %first_row to %rows step %ctas {
        tile.async_copy %x[%row, %col] to %row_buf[%col], 16 bytes, cache = cg
            : memref<?x4096xbf16> to memref<4096xbf16, #gpu.address_space<workgroup>>
        %group = tile.async_commit_group
        tile.async_wait_group 0
        gpu.barrier
        // tile-opt proves this shared load 16-byte aligned and makes it one
        // ld.shared.v4 (no alignment attribute needed on shared buffers).
        %xv = vector.load %row_buf[%col]
            : memref<4096xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
        %xf = arith.extf %xv : vector<8xbf16> to vector<8xf32>
        %sq = arith.mulf %xf, %xf : vector<8xf32>
        %mine = vector.reduction <add>, %sq : vector<8xf32> into f32
        %sum = tile.reduce add %mine over block : f32
        %mean = arith.divf %sum, %n : f32
        %var = arith.addf %mean, %eps : f32
        %rstd = math.rsqrt %var : f32
        %r = vector.broadcast %rstd : f32 to vector<8xf32>
        %xn = arith.mulf %xf, %r : vector<8xf32>
        %yf = arith.mulf %xn, %wf : vector<8xf32>
        %yv = arith.truncf %yf : vector<8xf32> to vector<8xbf16>
        vector.store %yv, %y[%row, %col] {alignment = 16}
            : memref<?x4096xbf16>, vector<8xbf16>
      } {tile.pipeline_stages = 4 : i64}
      gpu.return
    }
  }
}
