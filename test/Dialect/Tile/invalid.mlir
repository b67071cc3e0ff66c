// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-CPASYNC-1: cp-size is 4, 8 or 16 bytes.
func.func @cp_async_size(%g: memref<128xf32>, %s: memref<128xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected a copy size of 4, 8 or 16 bytes, got 12 (T-CPASYNC-1)}}
  tile.async_copy %g[%i] to %s[%i], 12 bytes, cache = ca : memref<128xf32> to memref<128xf32, 3>
  return
}

// -----

// T-CPASYNC-2: .cg only copies 16 bytes.
func.func @cp_async_cg_size(%g: memref<128xf32>, %s: memref<128xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op cache = cg requires a 16-byte copy, got 8 bytes (T-CPASYNC-2)}}
  tile.async_copy %g[%i] to %s[%i], 8 bytes, cache = cg : memref<128xf32> to memref<128xf32, 3>
  return
}

// -----

// T-CPASYNC-3: the source is global memory.
func.func @cp_async_src_shared(%g: memref<128xf32, 3>, %s: memref<128xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected the source in global memory, got 'memref<128xf32, 3>' (T-CPASYNC-3)}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<128xf32, 3> to memref<128xf32, 3>
  return
}

// -----

// T-CPASYNC-3: the destination is shared memory.
func.func @cp_async_dst_global(%g: memref<128xf32>, %s: memref<128xf32>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected the destination in shared memory (address space 3 or #gpu.address_space<workgroup>), got 'memref<128xf32>' (T-CPASYNC-3)}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<128xf32> to memref<128xf32>
  return
}

// -----

func.func @cp_async_element_types(%g: memref<128xf32>, %s: memref<128xi32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected equal element types, got 'f32' and 'i32'}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<128xf32> to memref<128xi32, 3>
  return
}

// -----

func.func @cp_async_sub_byte(%g: memref<128xi4>, %s: memref<128xi4, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected a byte-sized integer or float element type, got 'i4'}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<128xi4> to memref<128xi4, 3>
  return
}

// -----

// T-CPASYNC-4: a copy moves whole elements.
func.func @cp_async_partial_element(%g: memref<128xf64>, %s: memref<128xf64, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op a 4-byte copy does not hold a whole number of 'f64' elements (T-CPASYNC-4)}}
  tile.async_copy %g[%i] to %s[%i], 4 bytes, cache = ca : memref<128xf64> to memref<128xf64, 3>
  return
}

// -----

// T-CPASYNC-4: static addresses are aligned to the copy size.
func.func @cp_async_misaligned(%g: memref<128xf16>, %s: memref<128xf16, 3>, %i: index) {
  %c4 = arith.constant 4 : index
  // expected-error @below {{'tile.async_copy' op destination byte offset 8 is not aligned to the 16-byte copy size (T-CPASYNC-4)}}
  tile.async_copy %g[%i] to %s[%c4], 16 bytes, cache = cg : memref<128xf16> to memref<128xf16, 3>
  return
}

// -----

// T-CPASYNC-4: a static offset in the layout counts too.
func.func @cp_async_misaligned_layout(%g: memref<128xf32, strided<[1], offset: 1>>, %s: memref<128xf32, 3>, %i: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.async_copy' op source byte offset 4 is not aligned to the 8-byte copy size (T-CPASYNC-4)}}
  tile.async_copy %g[%c0] to %s[%i], 8 bytes, cache = ca : memref<128xf32, strided<[1], offset: 1>> to memref<128xf32, 3>
  return
}

// -----

// T-CPASYNC-5: the copied bytes are contiguous.
func.func @cp_async_strided(%g: memref<128x4xf32, strided<[1, 128]>>, %s: memref<128x4xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected the innermost dimension of the source 'memref<128x4xf32, strided<[1, 128]>>' to have unit stride (T-CPASYNC-5)}}
  tile.async_copy %g[%i, %i] to %s[%i, %i], 16 bytes, cache = cg : memref<128x4xf32, strided<[1, 128]>> to memref<128x4xf32, 3>
  return
}

// -----

// T-CPASYNC-5: one copy stays within a row.
func.func @cp_async_wider_than_row(%g: memref<64x2xf32>, %s: memref<64x2xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op copies 4 elements but the source innermost dimension has only 2 (T-CPASYNC-5)}}
  tile.async_copy %g[%i, %i] to %s[%i, %i], 16 bytes, cache = cg : memref<64x2xf32> to memref<64x2xf32, 3>
  return
}

// -----

// T-CPASYNC-5: static indices are in bounds.
func.func @cp_async_out_of_bounds(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  %c62 = arith.constant 62 : index
  // expected-error @below {{'tile.async_copy' op destination elements [62, 66) are out of bounds of the innermost dimension of size 64 (T-CPASYNC-5)}}
  tile.async_copy %g[%i] to %s[%c62], 16 bytes, cache = ca : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

func.func @cp_async_index_count(%g: memref<64x64xf32>, %s: memref<64x64xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op expected 2 source indices for 'memref<64x64xf32>', got 1}}
  tile.async_copy %g[%i] to %s[%i, %i], 16 bytes, cache = cg : memref<64x64xf32> to memref<64x64xf32, 3>
  return
}

// -----

func.func @cp_async_rank0(%g: memref<f32>, %s: memref<f32, 3>) {
  // expected-error @below {{'tile.async_copy' op expected a ranked source memref with at least one dimension, got 'memref<f32>'}}
  tile.async_copy %g[] to %s[], 4 bytes, cache = ca : memref<f32> to memref<f32, 3>
  return
}

// -----

// T-CPASYNC-6: src-size is at most cp-size.
func.func @cp_async_src_bytes(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  %c20 = arith.constant 20 : i32
  // expected-error @below {{'tile.async_copy' op src_bytes must be in [0, 16], got 20 (T-CPASYNC-6)}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, src_bytes = %c20 : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

// T-CPASYNC-6: src-size and ignore-src are alternative forms.
func.func @cp_async_src_bytes_and_ignore(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %n: i32, %p: i1) {
  // expected-error @below {{'tile.async_copy' op src_bytes and ignore_src are exclusive (T-CPASYNC-6)}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, src_bytes = %n, ignore_src = %p : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

func.func @cp_async_bad_cache(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  // expected-error @below {{expected cache mode ca or cg, got 'cs'}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cs : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

func.func @cp_async_bad_prefetch(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  // expected-error @below {{expected an L2 prefetch size (b64, b128, b256), got 'b512'}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, l2_prefetch = b512 : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

func.func @cp_async_repeated_clause(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index, %n: i32) {
  // expected-error @below {{expected one of l2_prefetch, src_bytes, ignore_src, cache_policy (each at most once), got 'src_bytes'}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg, src_bytes = %n, src_bytes = %n : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

// T-CPASYNC-7: the pending count is not negative.
func.func @wait_group_negative() {
  // expected-error @below {{'tile.async_wait_group' op expected a non-negative number of pending groups, got -1 (T-CPASYNC-7)}}
  tile.async_wait_group -1
  return
}
