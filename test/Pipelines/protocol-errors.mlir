// tile-to-ptx-pipeline verifies the async protocol after tile-lower-tile-ops,
// before the lowering to NVVM: a read of a stage still in flight stops it;
// verify-protocol=false skips the check.
// RUN: not tile-opt %s --tile-to-ptx-pipeline 2>&1 | FileCheck %s
// CHECK: error: reads shared memory that a cp.async group may still be writing: 0 newer group(s) were committed after it, so wait_group must keep at most 0 pending (T-PROTO-1)
// RUN: tile-opt %s --tile-to-ptx-pipeline="verify-protocol=false" | FileCheck %s --check-prefix=SKIP
// SKIP: gpu.binary @kernels

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @early_read(%g: memref<256xf32>, %out: memref<256xf32>)
        workgroup(%s: memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c4 = arith.constant 4 : index
      %tid = gpu.thread_id x
      %i = arith.muli %tid, %c4 : index
      tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg
          : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
      %grp = tile.async_commit_group
      tile.async_wait_group 1 for %grp
      %v = memref.load %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%i] : memref<256xf32>
      tile.async_wait_all
      gpu.return
    }
  }
}
