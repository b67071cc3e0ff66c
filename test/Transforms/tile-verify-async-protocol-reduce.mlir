// T-RED-6: every thread of a tile.reduce's scope reaches it. Checked on the
// op itself and, after tile-lower-tile-ops, on its expansion (the first
// gpu.subgroup_reduce carries the scope), as in tile-to-ptx-pipeline.
// RUN: tile-opt %s -split-input-file -tile-verify-async-protocol -verify-diagnostics
// RUN: tile-opt %s -split-input-file -tile-lower-tile-ops -tile-verify-async-protocol -verify-diagnostics

// A block reduction in the first two of four warps: the others never reach
// its barriers.
gpu.module @k {
  gpu.func @block_in_some_warps(%x: f32, %out: memref<128xf32>) kernel
      attributes {known_block_size = array<i32: 128, 1, 1>} {
    %tid = gpu.thread_id x
    %c64 = arith.constant 64 : index
    %low = arith.cmpi ult, %tid, %c64 : index
    // expected-note @below {{the condition (true in thread 0, false in thread 64)}}
    scf.if %low {
      // expected-error @below {{a block reduction (tile.reduce) under a condition that differs between threads 0 and 64 of one block: all 128 must reach it, or its shuffles and barriers hang (T-RED-6)}}
      %s = tile.reduce add %x over block : f32
      memref.store %s, %out[%tid] : memref<128xf32>
    }
    gpu.return
  }
}

// -----

// A warpgroup reduction in one warp of each warpgroup.
gpu.module @k {
  gpu.func @warpgroup_in_one_warp(%x: f32, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c32 = arith.constant 32 : index
    %in = arith.remui %tid, %c128 : index
    %first = arith.cmpi ult, %in, %c32 : index
    // expected-note @below {{the condition (true in thread 0, false in thread 32)}}
    scf.if %first {
      // expected-error @below {{a warpgroup reduction (tile.reduce) under a condition that differs between threads 0 and 32 of one warpgroup: all 128 must reach it, or its shuffles and barriers hang (T-RED-6)}}
      %s = tile.reduce maxnumf %x over warpgroup : f32
      memref.store %s, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}

// -----

// A quad reduction under a condition that splits a quad: its shuffles name
// the whole warp, so the warp must reach it.
gpu.module @k {
  gpu.func @quad_split(%x: f32, %out: memref<64xf32>) kernel
      attributes {known_block_size = array<i32: 64, 1, 1>} {
    %tid = gpu.thread_id x
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %in = arith.remui %tid, %c4 : index
    %low = arith.cmpi ult, %in, %c2 : index
    // expected-note @below {{the condition (true in thread 0, false in thread 2)}}
    scf.if %low {
      // expected-error @below {{a warp reduction (tile.reduce) under a condition that differs between threads 0 and 2 of one warp: all 32 must reach it, or its shuffles and barriers hang (T-RED-6)}}
      %s = tile.reduce add %x over warp, lanes 4 : f32
      memref.store %s, %out[%tid] : memref<64xf32>
    }
    gpu.return
  }
}

// -----

// Uniform conditions are fine: whole warps (quads 0 to 7), whole
// warpgroups, the block.
gpu.module @k {
  gpu.func @uniform(%x: f32, %flag: i1, %out: memref<256xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %c128 = arith.constant 128 : index
    %c4 = arith.constant 4 : index
    %quad = arith.divui %tid, %c4 : index
    %c8 = arith.constant 8 : index
    %low_quads = arith.cmpi ult, %quad, %c8 : index
    scf.if %low_quads {
      %q = tile.reduce add %x over warp, lanes 4 : f32
      memref.store %q, %out[%tid] : memref<256xf32>
    }
    %wg0 = arith.cmpi ult, %tid, %c128 : index
    scf.if %wg0 {
      %w = tile.reduce add %x over warpgroup : f32
      memref.store %w, %out[%tid] : memref<256xf32>
    }
    scf.if %flag {
      %b = tile.reduce add %x over block : f32
      memref.store %b, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}
