// A user's kernel test: the lowered IR and the PTX of a one-row cp.async
// copy, checked with FileCheck; the PTX assembled where ptxas is found.
//
// RUN: tile-opt %s --convert-tile-to-nvvm | FileCheck %s --check-prefix=NVVM
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" \
// RUN:   | tile-translate --extract-ptx | FileCheck %s --check-prefix=PTX
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" \
// RUN:   | tile-translate --extract-ptx -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// NVVM-LABEL: gpu.func @copy_row
// NVVM:         nvvm.cp.async.shared.global {{.*}}, 16, cache = cg
// NVVM:         nvvm.cp.async.commit.group
// NVVM:         nvvm.cp.async.wait.group 0

// PTX-LABEL: .entry copy_row(
// PTX:         cp.async.cg.shared.global [{{%r[0-9]+}}], [{{%rd[0-9]+}}], 16;
// PTX:         cp.async.commit_group;
// PTX:         cp.async.wait_group 0;

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Block b copies row b of a 64-column f16 matrix: 8 threads, 16 bytes each.
    gpu.func @copy_row(%src: memref<?x64xf16>, %dst: memref<?x64xf16>)
        kernel attributes {known_block_size = array<i32: 8, 1, 1>} {
      %smem = tile.shared_alloc : memref<64xf16, #gpu.address_space<workgroup>>
      %c8 = arith.constant 8 : index
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c8 : index
      tile.async_copy %src[%row, %col] to %smem[%col], 16 bytes, cache = cg
          : memref<?x64xf16> to memref<64xf16, #gpu.address_space<workgroup>>
      %group = tile.async_commit_group
      tile.async_wait_group 0 for %group
      %v = vector.load %smem[%col] : memref<64xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      vector.store %v, %dst[%row, %col] : memref<?x64xf16>, vector<8xf16>
      gpu.return
    }
  }
}
