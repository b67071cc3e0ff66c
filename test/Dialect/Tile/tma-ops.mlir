// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

!d2 = !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>
!d1 = !tile.tma_desc<memref<1024xf32>, box = [256]>
!d5 = !tile.tma_desc<memref<4x4x8x16x64xbf16>, box = [1, 2, 4, 8, 64], swizzle = b128>
!dn = !tile.tma_desc<memref<32x1024xf32>, box = [32, 16], swizzle = b128>
!di = !tile.tma_desc<memref<256x256xi32>, box = [32, 32]>

// CHECK-LABEL: func.func @host
func.func @host(%a: memref<?x4096xf16>, %b: memref<1024xf32>) {
  // CHECK: tile.tma_create_descriptor %{{.*}} : memref<?x4096xf16> -> !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>
  %d = tile.tma_create_descriptor %a : memref<?x4096xf16> -> !d2
  // CHECK: tile.tma_create_descriptor %{{.*}} : memref<1024xf32> -> !tile.tma_desc<memref<1024xf32>, box = [256]>
  %e = tile.tma_create_descriptor %b : memref<1024xf32> -> !d1
  return
}

// CHECK-LABEL: gpu.func @device
gpu.module @kernels {
  gpu.func @device(%d: !d2, %e: !d1, %f: !d5, %n: !dn, %i: !di, %r: index, %c: index,
                   %mask: i16, %policy: i64) kernel {
    %c0 = arith.constant 0 : index
    %ring = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<4x128x64xf16, 3>
    %line = tile.shared_alloc : memref<256xf32, 3>
    %box5 = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x2x4x8x64xbf16, 3>
    %narrow = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<32x32xf32, 3>
    %ints = tile.shared_alloc : memref<32x32xi32, 3>
    %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 4>
    // CHECK: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<?x4096xf16>, box = [128, 64], swizzle = b128>, memref<4x128x64xf16, 3>, !tile.mbarrier<count = 4>
    tile.tma_load %d[%r, %c] to %ring[%c0], %bars[%c0]
        : !d2, memref<4x128x64xf16, 3>, !tile.mbarrier<count = 4>
    // CHECK: tile.tma_load {{.*}} multicast %{{.*}} cache_hint %{{.*}} :
    tile.tma_load %d[%r, %c] to %ring[%c0], %bars[%c0] multicast %mask cache_hint %policy
        : !d2, memref<4x128x64xf16, 3>, !tile.mbarrier<count = 4>
    // CHECK: tile.tma_load %{{.*}}[%{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !tile.tma_desc<memref<1024xf32>, box = [256]>, memref<256xf32, 3>
    tile.tma_load %e[%c] to %line, %bars[%c0] : !d1, memref<256xf32, 3>, !tile.mbarrier<count = 4>
    // CHECK: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] to
    tile.tma_load %f[%c0, %c0, %c0, %c0, %c0] to %box5, %bars[%c0]
        : !d5, memref<1x2x4x8x64xbf16, 3>, !tile.mbarrier<count = 4>
    // A box narrower than the swizzle span: its 64-byte rows are padded to 128.
    // CHECK: tile.tma_load {{.*}} memref<32x32xf32, 3>
    tile.tma_load %n[%c0, %c0] to %narrow, %bars[%c0] : !dn, memref<32x32xf32, 3>, !tile.mbarrier<count = 4>
    // CHECK: tile.tma_store %{{.*}}[%{{.*}}] to %{{.*}}[%{{.*}}, %{{.*}}] : memref<4x128x64xf16, 3>, !tile.tma_desc
    tile.tma_store %ring[%c0] to %d[%r, %c] : memref<4x128x64xf16, 3>, !d2
    // CHECK: tile.tma_store %{{.*}} to %{{.*}}[%{{.*}}] cache_hint %{{.*}} : memref<256xf32, 3>
    tile.tma_store %line to %e[%c] cache_hint %policy : memref<256xf32, 3>, !d1
    // CHECK: tile.tma_reduce add %{{.*}} to %{{.*}}[%{{.*}}] : memref<256xf32, 3>
    tile.tma_reduce add %line to %e[%c] : memref<256xf32, 3>, !d1
    // CHECK: tile.tma_reduce min
    tile.tma_reduce min %ring[%c0] to %d[%r, %c] : memref<4x128x64xf16, 3>, !d2
    // CHECK: tile.tma_reduce inc
    tile.tma_reduce inc %ints to %i[%r, %c] : memref<32x32xi32, 3>, !di
    // CHECK: tile.tma_reduce xor {{.*}} cache_hint
    tile.tma_reduce xor %ints to %i[%r, %c] cache_hint %policy : memref<32x32xi32, 3>, !di
    // CHECK: tile.tma_prefetch %{{.*}}[%{{.*}}, %{{.*}}] : !tile.tma_desc
    tile.tma_prefetch %d[%r, %c] : !d2
    // CHECK: tile.tma_prefetch {{.*}} cache_hint
    tile.tma_prefetch %e[%c] cache_hint %policy : !d1
    // CHECK: tile.tma_prefetch_descriptor %{{.*}} : !tile.tma_desc
    tile.tma_prefetch_descriptor %d : !d2
    // CHECK: tile.tma_fence_descriptor %{{.*}} : !tile.tma_desc
    tile.tma_fence_descriptor %d : !d2
    gpu.return
  }
}
