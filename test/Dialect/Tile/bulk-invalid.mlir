// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-BULK-1: bulk copies move a positive multiple of 16 bytes.
func.func @bulk_size(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %i: index, %b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 100 : i32
  // expected-error @below {{'tile.bulk_copy_global_to_shared' op expected a positive multiple of 16 bytes, got 100 (T-BULK-1)}}
  tile.bulk_copy_global_to_shared %g[%i] to %s[%i], %n, %b[%c0] : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
  return
}

// -----

// T-BULK-2: 16-byte-aligned addresses where static.
func.func @bulk_align(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %i: index) {
  %c2 = arith.constant 2 : index
  %n = arith.constant 64 : i32
  // expected-error @below {{'tile.bulk_copy_shared_to_global' op source byte offset 8 is not 16-byte aligned (T-BULK-2)}}
  tile.bulk_copy_shared_to_global %s[%c2] to %g[%i], %n : memref<1024xf32, 3> to memref<4096xf32>
  return
}

// -----

// T-BULK-3: the state spaces of the direction.
func.func @bulk_spaces(%g: memref<4096xf32>, %s: memref<1024xf32>, %i: index, %b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 64 : i32
  // expected-error @below {{'tile.bulk_copy_global_to_shared' op expected the destination in shared memory, got 'memref<1024xf32>' (T-BULK-3)}}
  tile.bulk_copy_global_to_shared %g[%i] to %s[%i], %n, %b[%c0] : memref<4096xf32> to memref<1024xf32>, !tile.mbarrier
  return
}

// -----

func.func @bulk_wait_negative() {
  // expected-error @below {{'tile.bulk_wait_group' op expected a non-negative number of pending groups, got -2 (T-CPASYNC-7)}}
  tile.bulk_wait_group -2
  return
}

// -----

// T-BULK-3: the store direction reads shared and writes global memory.
func.func @bulk_store_spaces(%s: memref<1024xf32, 3>, %g: memref<4096xf32, 3>, %i: index) {
  %n = arith.constant 64 : i32
  // expected-error @below {{'tile.bulk_copy_shared_to_global' op expected the destination in global memory, got 'memref<4096xf32, 3>' (T-BULK-3)}}
  tile.bulk_copy_shared_to_global %s[%i] to %g[%i], %n : memref<1024xf32, 3> to memref<4096xf32, 3>
  return
}

// -----

// T-BULK-3: the copied bytes are contiguous.
func.func @bulk_strided(%g: memref<64x64xf32, strided<[1, 64]>>, %s: memref<64x64xf32, 3>, %i: index, %b: !tile.mbarrier) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 64 : i32
  // expected-error @below {{'tile.bulk_copy_global_to_shared' op expected contiguous innermost dimensions, got 'memref<64x64xf32, strided<[1, 64]>>' and 'memref<64x64xf32, 3>' (T-BULK-3)}}
  tile.bulk_copy_global_to_shared %g[%i, %i] to %s[%i, %i], %n, %b[%c0] : memref<64x64xf32, strided<[1, 64]>> to memref<64x64xf32, 3>, !tile.mbarrier
  return
}

// -----

func.func @bulk_index_count(%g: memref<64x64xf32>, %s: memref<64x64xf32, 3>, %i: index) {
  %n = arith.constant 64 : i32
  // expected-error @below {{'tile.bulk_copy_shared_to_global' op expected one index per dimension of 'memref<64x64xf32, 3>' and 'memref<64x64xf32>'}}
  tile.bulk_copy_shared_to_global %s[%i] to %g[%i, %i], %n : memref<64x64xf32, 3> to memref<64x64xf32>
  return
}

// -----

func.func @cluster_copy_from_global(%g: memref<4096xf32>, %s: memref<1024xf32, 3>, %n: i32,
                                    %b: !tile.mbarrier, %peer: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.bulk_copy_shared_to_cluster' op expected the source in shared memory, got 'memref<4096xf32>' (T-BULK-3)}}
  tile.bulk_copy_shared_to_cluster %g[%c0] to %s[%c0], %n, %b[%c0] rank %peer
      : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier
  return
}

// -----

func.func @cluster_copy_barrier(%s: memref<1024xf32, 3>, %n: i32, %b: !tile.mbarrier, %peer: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.bulk_copy_shared_to_cluster' op barrier index 1 is out of range for '!tile.mbarrier' (T-MBAR-4)}}
  tile.bulk_copy_shared_to_cluster %s[%c0] to %s[%c0], %n, %b[%c1] rank %peer
      : memref<1024xf32, 3> to memref<1024xf32, 3>, !tile.mbarrier
  return
}

// -----

func.func @prefetch_size(%g: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 24 : i32
  // expected-error @below {{'tile.bulk_prefetch' op expected a positive multiple of 16 bytes, got 24 (T-BULK-1)}}
  tile.bulk_prefetch %g[%c0], %n : memref<4096xf32>
  return
}

// -----

func.func @prefetch_alignment(%g: memref<4096xf32>) {
  %c2 = arith.constant 2 : index
  %n = arith.constant 32 : i32
  // expected-error @below {{'tile.bulk_prefetch' op source byte offset 8 is not 16-byte aligned (T-BULK-2)}}
  tile.bulk_prefetch %g[%c2], %n : memref<4096xf32>
  return
}

// -----

func.func @prefetch_shared(%s: memref<1024xf32, 3>) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : i32
  // expected-error @below {{'tile.bulk_prefetch' op expected the source in global memory, got 'memref<1024xf32, 3>' (T-BULK-3)}}
  tile.bulk_prefetch %s[%c0], %n : memref<1024xf32, 3>
  return
}
