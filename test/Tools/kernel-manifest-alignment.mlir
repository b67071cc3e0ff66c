// The kernel manifest records, per memref parameter, the alignment of its
// base address that the compiled code assumes (T-LAUNCH-5): the largest an
// access through it (or a view of it) needs, at least the element's.
//
// RUN: tile-opt %s --tile-kernel-manifest | tile-translate --kernel-manifest | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Accesses that promise nothing: the element's alignment.
    // CHECK-LABEL: "a_plain": {
    //       CHECK:   "alignment": 4,
    //  CHECK-NEXT:   "element": "f32",
    gpu.func @a_plain(%a: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %a[%c0] : memref<?xf32>
      %w = vector.load %a[%c0] : memref<?xf32>, vector<4xf32>
      memref.store %v, %a[%c0] : memref<?xf32>
      vector.store %w, %a[%c0] : memref<?xf32>, vector<4xf32>
      gpu.return
    }

    // An `alignment` on an access of a view (subview, cast,
    // reinterpret_cast) is the base's.
    // CHECK-LABEL: "b_views": {
    //       CHECK:   "alignment": 32,
    //  CHECK-NEXT:   "alignment_for": "a vector.store declared 32-byte aligned (`alignment = 32`)",
    //  CHECK-NEXT:   "element": "f16",
    gpu.func @b_views(%a: memref<?x64xf16>) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %sub = memref.subview %a[%c8, 0] [8, 64] [1, 1]
          : memref<?x64xf16> to memref<8x64xf16, strided<[64, 1], offset: ?>>
      %v = vector.load %sub[%c0, %c8] {alignment = 16}
          : memref<8x64xf16, strided<[64, 1], offset: ?>>, vector<8xf16>
      %cast = memref.cast %a : memref<?x64xf16> to memref<128x64xf16>
      %flat = memref.reinterpret_cast %cast to offset: [0], sizes: [8192], strides: [1]
          : memref<128x64xf16> to memref<8192xf16>
      %w = vector.load %flat[%c0] : memref<8192xf16>, vector<16xf16>
      vector.store %w, %flat[%c0] {alignment = 32} : memref<8192xf16>, vector<16xf16>
      vector.store %v, %sub[%c0, %c0] : memref<8x64xf16, strided<[64, 1], offset: ?>>, vector<8xf16>
      gpu.return
    }

    // cp.async of N bytes: N-byte aligned global addresses.
    // CHECK-LABEL: "c_async": {
    //       CHECK:   "alignment": 16,
    //  CHECK-NEXT:   "alignment_for": "a 16-byte cp.async (tile.async_copy)",
    //       CHECK:   "alignment": 4,
    //  CHECK-NEXT:   "alignment_for": "a 4-byte cp.async (tile.async_copy)",
    gpu.func @c_async(%a: memref<?x64xf16>, %b: memref<?x64xf16>) kernel {
      %c0 = arith.constant 0 : index
      %smem = tile.shared_alloc : memref<64x64xf16, 3>
      tile.async_copy %a[%c0, %c0] to %smem[%c0, %c0], 8 bytes, cache = ca
          : memref<?x64xf16> to memref<64x64xf16, 3>
      tile.async_copy %a[%c0, %c0] to %smem[%c0, %c0], 16 bytes, cache = cg
          : memref<?x64xf16> to memref<64x64xf16, 3>
      tile.async_copy %b[%c0, %c0] to %smem[%c0, %c0], 4 bytes, cache = ca
          : memref<?x64xf16> to memref<64x64xf16, 3>
      gpu.return
    }

    // Bulk copies and prefetches: 16-byte aligned addresses.
    // CHECK-LABEL: "d_bulk": {
    //       CHECK:   "alignment": 16,
    //  CHECK-NEXT:   "alignment_for": "a cp.async.bulk (tile.bulk_copy_global_to_shared), which takes 16-byte aligned addresses",
    //       CHECK:   "alignment": 16,
    //  CHECK-NEXT:   "alignment_for": "a cp.async.bulk (tile.bulk_copy_shared_to_global), which takes 16-byte aligned addresses",
    //       CHECK:   "alignment": 16,
    //  CHECK-NEXT:   "alignment_for": "a cp.async.bulk (tile.bulk_prefetch), which takes 16-byte aligned addresses",
    gpu.func @d_bulk(%g: memref<4096xf32>, %out: memref<4096xf32>, %p: memref<4096xf32>,
                     %b: !tile.mbarrier<count = 1>, %n: i32) kernel {
      %c0 = arith.constant 0 : index
      %s = tile.shared_alloc : memref<1024xf32, 3>
      tile.bulk_copy_global_to_shared %g[%c0] to %s[%c0], %n, %b[%c0]
          : memref<4096xf32> to memref<1024xf32, 3>, !tile.mbarrier<count = 1>
      tile.bulk_copy_shared_to_global %s[%c0] to %out[%c0], %n : memref<1024xf32, 3> to memref<4096xf32>
      tile.bulk_prefetch %p[%c0], %n : memref<4096xf32>
      gpu.return
    }

    // memref.assume_alignment is a promise too, and its result a view.
    // CHECK-LABEL: "e_assume": {
    //       CHECK:   "alignment": 64,
    //  CHECK-NEXT:   "alignment_for": "memref.assume_alignment 64",
    gpu.func @e_assume(%a: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %aligned = memref.assume_alignment %a, 64 : memref<?xf32>
      %v = vector.load %aligned[%c0] {alignment = 16} : memref<?xf32>, vector<4xf32>
      vector.store %v, %aligned[%c0] : memref<?xf32>, vector<4xf32>
      gpu.return
    }

    // A memref through control flow is not followed: nothing more is
    // assumed (the launch check must not reject what may work).
    // CHECK-LABEL: "f_unfollowed": {
    //       CHECK:   "alignment": 2,
    //  CHECK-NEXT:   "element": "f16",
    gpu.func @f_unfollowed(%a: memref<?xf16>, %c: i1) kernel {
      %c0 = arith.constant 0 : index
      %m = scf.if %c -> memref<?xf16> {
        scf.yield %a : memref<?xf16>
      } else {
        scf.yield %a : memref<?xf16>
      }
      %v = vector.load %m[%c0] {alignment = 16} : memref<?xf16>, vector<8xf16>
      vector.store %v, %m[%c0] : memref<?xf16>, vector<8xf16>
      gpu.return
    }

    // Element alignments: bytes of a vector element, 1 for i1 and index.
    // CHECK-LABEL: "g_elements": {
    //       CHECK:   "alignment": 16,
    //  CHECK-NEXT:   "element": "vector<4xf32>",
    //       CHECK:   "alignment": 1,
    //  CHECK-NEXT:   "element": "i1",
    //       CHECK:   "alignment": 1,
    //  CHECK-NEXT:   "element": "index",
    gpu.func @g_elements(%a: memref<?xvector<4xf32>>, %b: memref<?xi1>, %c: memref<?xindex>) kernel {
      gpu.return
    }
  }
}
