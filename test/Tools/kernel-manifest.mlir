// tile-translate --kernel-manifest prints the launch ABI that the pipeline
// records (tile-kernel-manifest): each kernel's parameters in order with
// every tensor-map parameter (the contract's CUDA enum values) and every
// memref's layout (strides and offset, -1 where dynamic as in the shape;
// whether it is the identity; whether the kernel may write through it; the
// base alignment its accesses assume: the element's for memref.load/store,
// more for an aligned vector access or a cp.async), the dynamic shared
// memory its buffers need, its block and cluster shapes, and whether it waits
// for the grids before it (`dependent_launch`: tile.grid_dependency_wait).
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" -o %t.mlir
// RUN: tile-translate --kernel-manifest %t.mlir | FileCheck %s
// RUN: not tile-translate --kernel-manifest %s 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: no tile.kernel_manifest: run tile-to-ptx-pipeline (or tile-kernel-manifest)

// CHECK:      "kernels": {
// CHECK-NEXT:   "k": {
// CHECK-NEXT:     "block": [
// CHECK-NEXT:       64,
// CHECK-NEXT:       1,
// CHECK-NEXT:       1
// CHECK-NEXT:     ],
// CHECK-NEXT:     "cluster": [
// CHECK-NEXT:       2,
// CHECK-NEXT:       1,
// CHECK-NEXT:       1
// CHECK-NEXT:     ],
// CHECK-NEXT:     "dependent_launch": false,
// CHECK-NEXT:     "dynamic_shared_bytes": 8192,
// CHECK-NEXT:     "module": "kernels",
// CHECK-NEXT:     "params": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "alignment": 128,
// CHECK-NEXT:         "box": [
// CHECK-NEXT:           64,
// CHECK-NEXT:           32
// CHECK-NEXT:         ],
// CHECK-NEXT:         "bytes": 128,
// CHECK-NEXT:         "data_type": 9,
// CHECK-NEXT:         "element": "bf16",
// CHECK-NEXT:         "interleave": 0,
// CHECK-NEXT:         "kind": "tensor_map",
// CHECK-NEXT:         "l2_promotion": 2,
// CHECK-NEXT:         "oob_fill": 1,
// CHECK-NEXT:         "rank": 2,
// CHECK-NEXT:         "shape": [
// CHECK-NEXT:           -1,
// CHECK-NEXT:           4096
// CHECK-NEXT:         ],
// CHECK-NEXT:         "swizzle": 2
// CHECK-NEXT:       },
// CHECK-NEXT:       {
//      CHECK:         "im2col_lower": [
// CHECK-NEXT:           -1,
// CHECK-NEXT:           -1
// CHECK-NEXT:         ],
//      CHECK:         "kind": "tensor_map",
//      CHECK:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "alignment": 4,
// CHECK-NEXT:         "element": "f32",
// CHECK-NEXT:         "identity": true,
// CHECK-NEXT:         "kind": "memref",
// CHECK-NEXT:         "offset": 0,
// CHECK-NEXT:         "rank": 1,
// CHECK-NEXT:         "shape": [
// CHECK-NEXT:           -1
// CHECK-NEXT:         ],
// CHECK-NEXT:         "strides": [
// CHECK-NEXT:           1
// CHECK-NEXT:         ],
// CHECK-NEXT:         "written": true
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "alignment": 2,
// CHECK-NEXT:         "element": "f16",
// CHECK-NEXT:         "identity": false,
// CHECK-NEXT:         "kind": "memref",
// CHECK-NEXT:         "offset": -1,
// CHECK-NEXT:         "rank": 2,
// CHECK-NEXT:         "shape": [
// CHECK-NEXT:           -1,
// CHECK-NEXT:           8
// CHECK-NEXT:         ],
// CHECK-NEXT:         "strides": [
// CHECK-NEXT:           -1,
// CHECK-NEXT:           1
// CHECK-NEXT:         ],
// CHECK-NEXT:         "written": false
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "kind": "scalar",
// CHECK-NEXT:         "type": "index"
// CHECK-NEXT:       },
// CHECK-NEXT:       {
// CHECK-NEXT:         "kind": "scalar",
// CHECK-NEXT:         "type": "i32"
// CHECK-NEXT:       }
// CHECK-NEXT:     ]
// CHECK-NEXT:   },
// CHECK-NEXT:   "vectors": {
// CHECK-NEXT:     "dependent_launch": false,
// CHECK-NEXT:     "dynamic_shared_bytes": 0,
// CHECK-NEXT:     "module": "kernels",
// CHECK-NEXT:     "params": [
// CHECK-NEXT:       {
// CHECK-NEXT:         "alignment": 16,
// CHECK-NEXT:         "alignment_for": "a vector.load declared 16-byte aligned (`alignment = 16`)",
// CHECK-NEXT:         "element": "f16",
//      CHECK:       {
// CHECK-NEXT:         "alignment": 16,
// CHECK-NEXT:         "alignment_for": "a 16-byte cp.async (tile.async_copy)",
// CHECK-NEXT:         "element": "f16",
//      CHECK:       {
// CHECK-NEXT:         "alignment": 8,
// CHECK-NEXT:         "alignment_for": "an 8-byte cp.async (tile.async_copy)",
// CHECK-NEXT:         "element": "f16",
//      CHECK:       {
// CHECK-NEXT:         "alignment": 2,
// CHECK-NEXT:         "element": "f16",
//      CHECK:         "written": true
// CHECK-NEXT:       }
// CHECK-NEXT:     ]
// CHECK-NEXT:   }
// CHECK-NEXT: }

!d = !tile.tma_desc<memref<?x4096xbf16>, box = [64, 32], swizzle = b64, l2promo = b128, oob = nan>
!s = memref<?x8xf16, strided<[?, 1], offset: ?>>
!dc = !tile.tma_desc<memref<2x8x8x64xf16>, box = [64, 64], im2col_lower = [-1, -1], im2col_upper = [-1, -1], swizzle = b128>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%d: !d, %c: !dc, %out: memref<?xf32>, %in: !s, %n: index, %x: i32) kernel {
      %buffer = tile.shared_alloc dynamic : memref<64x32xf32, 3>
      // %out is written, %in only read (its loaded value is data).
      %c0 = arith.constant 0 : index
      %v = memref.load %in[%c0, %c0] : !s
      %f = arith.extf %v : f16 to f32
      memref.store %f, %out[%c0] : memref<?xf32>
      gpu.return
    }
    // Base alignments: 16 for an access declared 16-byte aligned and a
    // 16-byte cp.async, 8 for an 8-byte one, the element's (2) for the rest.
    gpu.func @vectors(%v: memref<?xf16>, %a16: memref<?x64xf16>, %a8: memref<?x64xf16>,
                      %out: memref<?xf16>) kernel {
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %smem = tile.shared_alloc : memref<64x64xf16, #gpu.address_space<workgroup>>
      %x = vector.load %v[%c0] {alignment = 16} : memref<?xf16>, vector<8xf16>
      vector.store %x, %out[%c0] : memref<?xf16>, vector<8xf16>
      tile.async_copy %a16[%c0, %c0] to %smem[%c0, %c0], 16 bytes, cache = cg
          : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.async_copy %a8[%c0, %c0] to %smem[%c0, %c32], 8 bytes, cache = ca
          : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %group = tile.async_commit_group
      tile.async_wait_group 0 for %group
      gpu.return
    }
  }
  func.func @host(%a: memref<?x4096xbf16>, %t: memref<2x8x8x64xf16>, %out: memref<?xf32>, %in: !s, %n: index, %x: i32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %smem = arith.constant 8192 : i32
    %d = tile.tma_create_descriptor %a : memref<?x4096xbf16> -> !d
    %c = tile.tma_create_descriptor %t : memref<2x8x8x64xf16> -> !dc
    gpu.launch_func @kernels::@k clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1)
        threads in (%c64, %c1, %c1) dynamic_shared_memory_size %smem args(%d : !d, %c : !dc, %out : memref<?xf32>, %in : !s, %n : index, %x : i32)
    return
  }
}
