// A warpgroup or block reduction outside a kernel body (a device function)
// has no place for its shared scratch.
// RUN: tile-opt %s -tile-lower-tile-ops -verify-diagnostics

gpu.module @k {
  func.func @device_function(%x: f32) -> f32 {
    // expected-error @below {{must be inside a gpu.func or a gpu.launch body (its scratch is a static shared allocation)}}
    %r = tile.reduce add %x over block : f32
    return %r : f32
  }
}
