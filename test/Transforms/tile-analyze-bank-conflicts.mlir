// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-analyze-bank-conflicts

// A column of a 32x128 fp32 tile, one 4-byte element per lane: every lane
// hits bank 0. Swizzle<5, 2, 7> on bytes (B = 5, S = 7, one fp32 per unit)
// spreads the column over all 32 banks.
gpu.module @kernels {
  gpu.func @column_read() workgroup(%s: memref<32x128xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    // expected-remark @below {{32-way bank conflict: 4-byte accesses, 32 lanes per 128-byte phase; #tile.swizzle<5, 2, 7> on the buffer's byte offsets makes it conflict-free}}
    %v = memref.load %s[%tid, %c0] : memref<32x128xf32, 3>
    gpu.return
  }
}

// -----

// The same column read with 128-bit vector loads: 8
// lanes per phase, all in banks 0..3: 8-way. Swizzle<3, 4, 5> removes it.
gpu.module @kernels {
  gpu.func @vector_column_read() workgroup(%s: memref<32x128xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    // expected-remark @below {{8-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<3, 4, 5> on the buffer's byte offsets makes it conflict-free}}
    %v = vector.load %s[%tid, %c0] : memref<32x128xf32, 3>, vector<4xf32>
    gpu.return
  }
}

// -----

// A 16x16 fp16 tile read in
// 128-bit units, lane l takes row l mod 8... of an 8x8 phase: rows 0 and 4
// share banks: 2-way; the general formula's b128 swizzle removes it.
gpu.module @kernels {
  gpu.func @fp16_tile() workgroup(%s: memref<16x16xf16, 3>) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %tid = gpu.thread_id x
    %row = arith.remui %tid, %c16 : index
    %half = arith.divui %tid, %c16 : index
    %col = arith.muli %half, %c8 : index
    // expected-remark @below {{2-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<b128> on the buffer's byte offsets makes it conflict-free}}
    %v = vector.load %s[%row, %col] : memref<16x16xf16, 3>, vector<8xf16>
    gpu.return
  }
}

// -----

// Row reads, broadcasts and unknown addresses are not reported.
gpu.module @kernels {
  gpu.func @no_conflicts(%i: index) workgroup(%s: memref<32x128xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %tid = gpu.thread_id x
    %row = memref.load %s[%c0, %tid] : memref<32x128xf32, 3>
    %same = memref.load %s[%c0, %c0] : memref<32x128xf32, 3>
    %unknown = memref.load %s[%i, %tid] : memref<32x128xf32, 3>
    %v = vector.load %s[%c0, %c0] : memref<32x128xf32, 3>, vector<4xf32>
    gpu.return
  }
}
