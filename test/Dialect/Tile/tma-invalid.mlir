// Every verifier rule of the TMA ops (T-TMA-15..18, T-TMA-20, T-SWZ-5).
// RUN: tile-opt %s -split-input-file -verify-diagnostics

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
func.func @descriptor_of_other_tensor(%a: memref<1024x512xf32>) {
  // expected-error @below {{tensor 'memref<1024x512xf32>' does not match the descriptor's 'memref<1024x1024xf32>' (T-TMA-15)}}
  %d = tile.tma_create_descriptor %a : memref<1024x512xf32> -> !d
  return
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
func.func @descriptor_of_element_type(%a: memref<1024x1024xf16>) {
  // expected-error @below {{does not match the descriptor's 'memref<1024x1024xf32>' (T-TMA-15)}}
  %d = tile.tma_create_descriptor %a : memref<1024x1024xf16> -> !d
  return
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
func.func @descriptor_of_shared(%a: memref<1024x1024xf32, 3>) {
  // expected-error @below {{expected a global-memory tensor, got 'memref<1024x1024xf32, 3>' (T-TMA-15)}}
  %d = tile.tma_create_descriptor %a : memref<1024x1024xf32, 3> -> !d
  return
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
func.func @descriptor_returned(%a: memref<1024x1024xf32>) -> !d {
  // expected-error @below {{descriptor escapes its function through 'func.return'; pass it to kernels (gpu.launch_func) in the function that creates it (T-TMA-23)}}
  %d = tile.tma_create_descriptor %a : memref<1024x1024xf32> -> !d
  return %d : !d
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
func.func private @sink(!d)
func.func @descriptor_passed_to_a_call(%a: memref<1024x1024xf32>) {
  // expected-error @below {{descriptor escapes its function through 'func.call'}}
  %d = tile.tma_create_descriptor %a : memref<1024x1024xf32> -> !d
  func.call @sink(%d) : (!d) -> ()
  return
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @coordinates(%d: !d, %i: index) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{expected 2 coordinates (one per tensor dimension), got 1 (T-TMA-16)}}
    tile.tma_load %d[%i] to %s, %bars[%c0] : !d, memref<16x32xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @global_destination(%d: !d, %g: memref<16x32xf32>) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{expected the destination to be a dense shared-memory memref, got 'memref<16x32xf32>' (T-TMA-17)}}
    tile.tma_load %d[%c0, %c0] to %g, %bars[%c0] : !d, memref<16x32xf32>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @element_type(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x32xi32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{destination element type 'i32' differs from the descriptor's 'f32' (T-TMA-17)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<16x32xi32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @box_shape(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x16xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{destination 'memref<32x16xf32, 3>' does not end with the box shape [16, 32] (T-TMA-17)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<32x16xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

// A 32x16 f32 box with 128B swizzle takes 32 rows of 128 bytes.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [32, 16], swizzle = b128>
gpu.module @k {
  gpu.func @narrow_box_unpadded(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x16xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{destination 'memref<32x16xf32, 3>' does not end with the box shape [32, 32] (the 16-element inner box rows are padded to the 128-byte swizzle span) (T-TMA-17)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<32x16xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @stage_indices(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x16x32xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{expected 1 destination indices (one per dimension before the box), got 0 (T-TMA-17)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<4x16x32xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

// Stages of 512 bytes break the 1024-byte alignment of a 128B swizzle.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [4, 32], swizzle = b128>
gpu.module @k {
  gpu.func @stage_alignment(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x4x32xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{destination dimension 0 steps 512 bytes, not a multiple of the 1024-byte alignment TMA needs (T-TMA-18)}}
    tile.tma_load %d[%c0, %c0] to %s[%c0], %bars[%c0] : !d, memref<4x4x32xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

// A common mistake: a 128B swizzle into a 128-byte-aligned global.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  memref.global "private" @tile : memref<16x32xf32, 3> {alignment = 128}
  gpu.func @global_alignment(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = memref.get_global @tile : memref<16x32xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{swizzle b128 needs the destination 1024-byte aligned, got 128 (buffer from memref.global @tile; use tile.shared_alloc) (T-TMA-18)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<16x32xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32]>
gpu.module @k {
  gpu.func @attribution_alignment(%d: !d) workgroup(%s: memref<16x32xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{swizzle none needs the destination 128-byte aligned, got 4 (buffer from a workgroup attribution; use tile.shared_alloc) (T-TMA-18)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<16x32xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

// TMA writes 128B-swizzled rows into a buffer that generic code reads as 64B.
!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 16], swizzle = b64>
gpu.module @k {
  gpu.func @swizzle_disagrees(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<16x16xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{descriptor swizzle #tile.swizzle<b64> disagrees with the destination's swizzle #tile.swizzle<b128> (buffer from tile.shared_alloc); generic accesses would read other elements than TMA wrote (T-SWZ-5)}}
    tile.tma_load %d[%c0, %c0] to %s, %bars[%c0] : !d, memref<16x16xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32], swizzle = b128>
gpu.module @k {
  gpu.func @store_swizzle_missing(%d: !d) kernel {
    %s = tile.shared_alloc {alignment = 1024} : memref<16x32xf32, 3>
    %c0 = arith.constant 0 : index
    // expected-error @below {{descriptor swizzle #tile.swizzle<b128> disagrees with the source's swizzle #tile.swizzle<none> (buffer from tile.shared_alloc)}}
    tile.tma_store %s to %d[%c0, %c0] : memref<16x32xf32, 3>, !d
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32]>
gpu.module @k {
  gpu.func @reduce_kind(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<16x32xf32, 3>
    // expected-error @below {{reduction max does not exist for 'f32' (T-TMA-20)}}
    tile.tma_reduce max %s to %d[%c0, %c0] : memref<16x32xf32, 3>, !d
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xi64>, box = [16, 32]>
gpu.module @k {
  gpu.func @reduce_inc_i64(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<16x32xi64, 3>
    // expected-error @below {{reduction inc does not exist for 'i64' (T-TMA-20)}}
    tile.tma_reduce inc %s to %d[%c0, %c0] : memref<16x32xi64, 3>, !d
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32]>
gpu.module @k {
  gpu.func @prefetch_coordinates(%d: !d, %i: index) kernel {
    // expected-error @below {{expected 2 coordinates (one per tensor dimension), got 3 (T-TMA-16)}}
    tile.tma_prefetch %d[%i, %i, %i] : !d
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1x8x8x16xf32>, box = [64, 16], im2col_lower = [-1, -1], im2col_upper = [-1, -1]>
gpu.module @k {
  gpu.func @im2col_offsets(%d: !d, %o: i16) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<64x16xf32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier
    // expected-error @below {{expected 2 im2col offsets (one per spatial dimension), got 1 (T-TMA-21)}}
    tile.tma_load %d[%c0, %c0, %c0, %c0] im2col [%o] to %s, %bars[%c0] : !d, memref<64x16xf32, 3>, !tile.mbarrier
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1024x1024xf32>, box = [16, 32]>
gpu.module @k {
  gpu.func @offsets_with_tiled(%d: !d, %o: i16) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @below {{expected 0 im2col offsets with a tiled descriptor, got 1 (T-TMA-21)}}
    tile.tma_prefetch %d[%c0, %c0] im2col [%o] : !d
    gpu.return
  }
}

// -----

!d = !tile.tma_desc<memref<1x8x8x16xf32>, box = [64, 16], im2col_lower = [-1, -1], im2col_upper = [-1, -1]>
gpu.module @k {
  gpu.func @im2col_store(%d: !d) kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<64x16xf32, 3>
    // expected-error @below {{takes a tiled descriptor; im2col descriptors are for loads and prefetches (T-TMA-21)}}
    tile.tma_store %s to %d[%c0, %c0, %c0, %c0] : memref<64x16xf32, 3>, !d
    gpu.return
  }
}
