// T-RED-5 for the block shape the kernel's launches give (no
// known_block_size): the lowering checks it, so a block of 48 threads is an
// error rather than a reduction that drops the partial warp.
// RUN: tile-opt %s -split-input-file -tile-lower-tile-ops -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @blk(%x: f32, %out: memref<64xf32>) kernel {
      // expected-error @below {{'tile.reduce' op scope block needs a block of a multiple of 32 threads, got 48x1x1 = 48 (T-RED-5)}}
      %s = tile.reduce add %x over block : f32
      %t = gpu.thread_id x
      memref.store %s, %out[%t] : memref<64xf32>
      gpu.return
    }
  }
  func.func @host(%x: f32, %out: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c48 = arith.constant 48 : index
    gpu.launch_func @k::@blk blocks in (%c1, %c1, %c1) threads in (%c48, %c1, %c1) args(%x : f32, %out : memref<64xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @wg(%x: f32, %out: memref<192xf32>) kernel {
      // expected-error @below {{'tile.reduce' op scope warpgroup needs a block of a multiple of 128 threads, got 192x1x1 = 192 (T-RED-5)}}
      %s = tile.reduce add %x over warpgroup : f32
      %t = gpu.thread_id x
      memref.store %s, %out[%t] : memref<192xf32>
      gpu.return
    }
  }
  func.func @host(%x: f32, %out: memref<192xf32>) {
    %c1 = arith.constant 1 : index
    %c192 = arith.constant 192 : index
    gpu.launch_func @k::@wg blocks in (%c1, %c1, %c1) threads in (%c192, %c1, %c1) args(%x : f32, %out : memref<192xf32>)
    return
  }
}
