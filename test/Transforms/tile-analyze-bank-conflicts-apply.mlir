// apply=true sets the proposed swizzle on the tile.shared_alloc buffer; a
// second analysis, now on the swizzled addresses, finds no conflict left
// (the 32x128 fp32 column reads of tile-analyze-bank-conflicts.mlir), and
// tile-swizzle-accesses routes the accesses through it.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-analyze-bank-conflicts=apply=true -tile-analyze-bank-conflicts
// RUN: tile-opt %s -split-input-file -tile-analyze-bank-conflicts=apply=true 2>/dev/null | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-analyze-bank-conflicts=apply=true -tile-swizzle-accesses 2>/dev/null | FileCheck %s --check-prefix=ROUTED

// CHECK-LABEL: gpu.func @column_read
//       CHECK:   tile.shared_alloc {swizzle = #tile.swizzle<5, 2, 7>} : memref<32x128xf32, 3>
// ROUTED-LABEL: gpu.func @column_read
//       ROUTED:   memref.collapse_shape
//       ROUTED:   memref.load %{{.*}}[%{{.*}}] : memref<4096xf32, 3>
gpu.module @kernels {
  gpu.func @column_read() kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<32x128xf32, 3>
    %tid = gpu.thread_id x
    // expected-remark @below {{32-way bank conflict: 4-byte accesses, 32 lanes per 128-byte phase; #tile.swizzle<5, 2, 7> on the buffer's byte offsets makes it conflict-free; applied to the buffer}}
    %v = memref.load %s[%tid, %c0] : memref<32x128xf32, 3>
    gpu.return
  }
}

// -----

// CHECK-LABEL: gpu.func @vector_column_read
//       CHECK:   tile.shared_alloc {swizzle = #tile.swizzle<3, 4, 5>} : memref<32x128xf32, 3>
gpu.module @kernels {
  gpu.func @vector_column_read() kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<32x128xf32, 3>
    %tid = gpu.thread_id x
    // expected-remark @below {{8-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<3, 4, 5> on the buffer's byte offsets makes it conflict-free; applied to the buffer}}
    %v = vector.load %s[%tid, %c0] : memref<32x128xf32, 3>, vector<4xf32>
    gpu.return
  }
}

// -----

// A 4-byte-unit swizzle would split the buffer's 16-byte accesses: the
// proposal is reported but not applied, and stays reported.
// CHECK-LABEL: gpu.func @mixed_widths
//       CHECK:   tile.shared_alloc : memref<32x128xf32, 3>
gpu.module @kernels {
  gpu.func @mixed_widths() kernel {
    %c0 = arith.constant 0 : index
    %s = tile.shared_alloc : memref<32x128xf32, 3>
    %tid = gpu.thread_id x
    // expected-remark @below {{32-way bank conflict: 4-byte accesses, 32 lanes per 128-byte phase; #tile.swizzle<5, 2, 7> on the buffer's byte offsets makes it conflict-free; not applied: a 'vector.load' of the buffer accesses 16 bytes, more than the 4-byte unit (T-SWZ-6)}}
    // expected-remark @below {{32-way bank conflict: 4-byte accesses, 32 lanes per 128-byte phase; #tile.swizzle<5, 2, 7> on the buffer's byte offsets makes it conflict-free}}
    %v = memref.load %s[%tid, %c0] : memref<32x128xf32, 3>
    %w = vector.load %s[%c0, %c0] : memref<32x128xf32, 3>, vector<4xf32>
    gpu.return
  }
}
