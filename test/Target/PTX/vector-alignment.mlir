// A vector<8xbf16> load of a 128B-swizzled shared buffer at column
// 8 * (lane % 8): tile-align-shared-vector-accesses proves the 16-byte
// alignment, so it is one 16-byte shared load, not eight ld.shared.b16. The
// same load at an unprovable column gets a remark and stays element-wise.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" 2>%t.remarks | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a alignment-remarks=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty

// CHECK-LABEL: .visible .entry aligned_load(
//   CHECK-NOT: ld.shared.b16
//       CHECK: ld.shared.v4.{{b32|u32}}
//   CHECK-NOT: ld.shared.b16
//       CHECK: ret;
// CHECK-LABEL: .visible .entry unprovable_load(
//       CHECK: ld.shared.b16

// REMARK: remark: tile: vector.load of 16 bytes of a shared buffer: cannot prove 16-byte alignment (index 1 is argument 2 of the kernel, not a known multiple of 8 elements); add {alignment = 16} if it holds
// REMARK-NOT: remark
// QUIET-NOT: remark

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @aligned_load(%in: memref<64x64xbf16>, %out: memref<1024xbf16>) kernel {
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
      %tid = gpu.thread_id x
      %x = memref.load %in[%c8, %tid] : memref<64x64xbf16>
      memref.store %x, %buf[%c8, %tid] : memref<64x64xbf16, 3>
      gpu.barrier
      %lane = arith.remui %tid, %c32 : index
      %row = arith.divui %lane, %c8 : index
      %chunk = arith.remui %lane, %c8 : index
      %col = arith.muli %chunk, %c8 : index
      %v = vector.load %buf[%row, %col] : memref<64x64xbf16, 3>, vector<8xbf16>
      %o = arith.muli %tid, %c8 : index
      vector.store %v, %out[%o] : memref<1024xbf16>, vector<8xbf16>
      gpu.return
    }
    gpu.func @unprovable_load(%in: memref<64x64xbf16>, %out: memref<1024xbf16>, %col: index) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
      %tid = gpu.thread_id x
      %x = memref.load %in[%c0, %tid] : memref<64x64xbf16>
      memref.store %x, %buf[%c0, %tid] : memref<64x64xbf16, 3>
      gpu.barrier
      %v = vector.load %buf[%c0, %col] : memref<64x64xbf16, 3>, vector<8xbf16>
      %o = arith.muli %tid, %c8 : index
      vector.store %v, %out[%o] : memref<1024xbf16>, vector<8xbf16>
      gpu.return
    }
  }
}
