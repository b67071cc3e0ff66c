// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @buffers(
func.func @buffers() {
  // CHECK: tile.shared_alloc : memref<1024xf32, 3>
  %a = tile.shared_alloc : memref<1024xf32, 3>
  // CHECK: tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
  // CHECK: tile.shared_alloc {alignment = 2048 : i64, swizzle = #tile.swizzle<b64>} : memref<32x32xf16, #gpu.address_space<workgroup>>
  %c = tile.shared_alloc {alignment = 2048, swizzle = #tile.swizzle<b64>} : memref<32x32xf16, #gpu.address_space<workgroup>>
  // CHECK: tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x64xf16, 3>
  %d = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<6x128x64xf16, 3>
  return
}

// -----

// T-SWZ-3: a swizzled buffer starts at a multiple of the swizzle's repeat.
func.func @misaligned_swizzle() {
  // expected-error @below {{'tile.shared_alloc' op swizzle #tile.swizzle<b128> needs the buffer 1024-byte aligned, got 128 (T-SWZ-3)}}
  %b = tile.shared_alloc {alignment = 128, swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
  return
}

// -----

// T-SWZ-4: alignments are powers of two.
func.func @odd_alignment() {
  // expected-error @below {{'tile.shared_alloc' op alignment must be a power of two, got 96 (T-SWZ-4)}}
  %b = tile.shared_alloc {alignment = 96} : memref<64xf32, 3>
  return
}

// -----

// T-SWZ-4: a dense shared-memory buffer.
func.func @global_buffer() {
  // expected-error @below {{'tile.shared_alloc' op expected a shared-memory memref with the identity layout, got 'memref<64xf32>' (T-SWZ-4)}}
  %b = tile.shared_alloc : memref<64xf32>
  return
}

// -----

// T-SMEM-2: the dynamic base is 1024-byte aligned, so no dynamic buffer can
// need more (the <5, 2, 7> that removes the bank conflicts of a 32x128 fp32
// column read repeats every 16 KB).
func.func @dynamic_over_aligned() {
  // expected-error @below {{'tile.shared_alloc' op dynamic shared buffers can be aligned to at most 1024 bytes, got 16384 (T-SMEM-2)}}
  %b = tile.shared_alloc dynamic {swizzle = #tile.swizzle<5, 2, 7>} : memref<32x128xf32, 3>
  return
}

// -----

// T-SMEM-3: elements of whole bytes; every size, offset and swizzle of a
// buffer is computed from them.
func.func @index_elements() {
  // expected-error @below {{'tile.shared_alloc' op expected an integer or float element type of whole bytes, got 'index' (T-SMEM-3)}}
  %a = tile.shared_alloc : memref<64xindex, 3>
  return
}

// -----

func.func @vector_elements() {
  // expected-error @below {{got 'vector<4xf32>' (T-SMEM-3)}}
  %a = tile.shared_alloc : memref<64xvector<4xf32>, 3>
  return
}

// -----

func.func @complex_elements() {
  // expected-error @below {{got 'complex<f32>' (T-SMEM-3)}}
  %a = tile.shared_alloc : memref<64xcomplex<f32>, 3>
  return
}

// -----

func.func @bit_elements() {
  // expected-error @below {{got 'i1' (T-SMEM-3)}}
  %a = tile.shared_alloc : memref<64xi1, 3>
  return
}

// -----

// Found by scripts/fuzz: an empty staging ring divided by zero in the
// tile.warpgroup_tma_store verifier.
func.func @empty_buffer() {
  // expected-error @below {{expected a buffer of at least one element, got 'memref<0x0x64x64xf16, 3>' (T-SMEM-3)}}
  %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<0x0x64x64xf16, 3>
  return
}

// -----

// T-SMEM-4: a static buffer fits in the 48 KB of static shared memory CUDA
// allows a kernel; more takes a dynamic buffer (exactly 48 KB is fine).
func.func @static_over_48k() {
  // expected-error @below {{'tile.shared_alloc' op static shared buffer of 98304 bytes exceeds the 49152 bytes (48 KB) of static shared memory a kernel may have; allocate it with `tile.shared_alloc dynamic` and launch with dynamic_shared_memory_size (T-SMEM-4)}}
  %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x384x64xbf16, 3>
  return
}

// -----

// CHECK-LABEL: func @static_48k
func.func @static_48k() {
  // CHECK: tile.shared_alloc : memref<384x64xf16, 3>
  %a = tile.shared_alloc : memref<384x64xf16, 3>
  // CHECK: tile.shared_alloc dynamic : memref<768x64xf16, 3>
  %b = tile.shared_alloc dynamic : memref<768x64xf16, 3>
  return
}
