// A 64-bit warp reduction has no 32-bit butterfly (tile.reduce itself
// rejects 64-bit values, T-RED-1; this is a hand-written gpu.subgroup_reduce).
// RUN: tile-opt %s -tile-lower-subgroup-reduce="redux=true" -verify-diagnostics

gpu.module @k {
  gpu.func @wide(%x: i64, %out: memref<1xi64>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @below {{cannot be lowered to 32-bit shuffles or redux.sync (a 'i64' reduction; tile.reduce takes f32 or i32)}}
    %r = gpu.subgroup_reduce add %x uniform : (i64) -> i64
    memref.store %r, %out[%c0] : memref<1xi64>
    gpu.return
  }
}
