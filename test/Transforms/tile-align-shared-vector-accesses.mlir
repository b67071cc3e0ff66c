// Vector loads/stores of shared buffers get the alignment their byte offset
// provably has (at most the vector's bytes and 16); where the full alignment
// is not provable, a remark names the index in the way.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-align-shared-vector-accesses | FileCheck %s
// RUN: sed "s/expected-/ignored-/" %s | tile-opt -split-input-file -tile-align-shared-vector-accesses=remarks=false 2>&1 | FileCheck %s --check-prefix=QUIET
// The swizzle rewrite keeps the alignment on the flat view's access.
// RUN: sed "s/expected-/ignored-/" %s | tile-opt -split-input-file -tile-align-shared-vector-accesses=remarks=false -tile-swizzle-accesses | FileCheck %s --check-prefix=SWZ

// QUIET-NOT: remark
// SWZ-LABEL: gpu.func @proven
//       SWZ: vector.load %{{.*}} {alignment = 16 : i64} : memref<4096xbf16, 3>, vector<8xbf16>

// CHECK-LABEL: gpu.func @proven
gpu.module @kernels {
  gpu.func @proven(%v: vector<8xbf16>) kernel {
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c3 = arith.constant 3 : index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %buf = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %lane = arith.remui %tid, %c8 : index
    // 8 * (tid % 8): a multiple of 8 elements, 16 bytes.
    %col = arith.muli %lane, %c8 : index
    // CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x64xbf16, 3>, vector<8xbf16>
    %a = vector.load %buf[%row, %col] : memref<64x64xbf16, 3>, vector<8xbf16>
    // (tid << 3) xor 8, and a loop over multiples of 16 elements.
    %shl = arith.shli %tid, %c3 : index
    %x = arith.xori %shl, %c8 : index
    %m = arith.andi %x, %c7 : index
    scf.for %i = %c0 to %c64 step %c8 {
      // CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xbf16, 3>, vector<8xbf16>
      vector.store %v, %buf[%row, %i] : memref<64x64xbf16, 3>, vector<8xbf16>
      %j = affine.apply affine_map<(d0)[s0] -> (d0 * 2 + s0 * 8)>(%i)[%x]
      // CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x64xbf16, 3>, vector<8xbf16>
      %b = vector.load %buf[%row, %j] : memref<64x64xbf16, 3>, vector<8xbf16>
    }
    // A 4-byte vector needs 4: an even column does it.
    %even = arith.muli %tid, %c2 : index
    // CHECK: vector.load %{{.*}} {alignment = 4 : i64} : memref<64x64xbf16, 3>, vector<2xbf16>
    %c = vector.load %buf[%row, %even] : memref<64x64xbf16, 3>, vector<2xbf16>
    // An explicit alignment is trusted.
    // CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x64xbf16, 3>, vector<8xbf16>
    %d = vector.load %buf[%row, %tid] {alignment = 8} : memref<64x64xbf16, 3>, vector<8xbf16>
    // One element: nothing to gain.
    // CHECK: vector.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<64x64xbf16, 3>, vector<1xbf16>
    %e = vector.load %buf[%row, %tid] : memref<64x64xbf16, 3>, vector<1xbf16>
    gpu.return
  }
}

// -----

// Not provable: a remark, and the alignment that is provable (4 bytes from
// an even column) where it beats the element's.
// CHECK-LABEL: gpu.func @unproven
gpu.module @kernels {
  gpu.func @unproven(%x: index) kernel {
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %buf = tile.shared_alloc : memref<64x64xbf16, 3>
    // expected-remark @below {{tile: vector.load of 16 bytes of a shared buffer: cannot prove 16-byte alignment (index 1 is argument 0 of the kernel, not a known multiple of 8 elements); add {alignment = 16} if it holds}}
    %a = vector.load %buf[%c0, %x] : memref<64x64xbf16, 3>, vector<8xbf16>
    %even = arith.muli %x, %c2 : index
    // CHECK: vector.store %{{.*}} {alignment = 4 : i64} : memref<64x64xbf16, 3>, vector<8xbf16>
    // expected-remark @below {{tile: vector.store of 16 bytes of a shared buffer: cannot prove 16-byte alignment (index 1 is %2, the result of arith.muli at line 67:13, not a known multiple of 8 elements); add {alignment = 16} if it holds}}
    vector.store %a, %buf[%c0, %even] : memref<64x64xbf16, 3>, vector<8xbf16>
    gpu.return
  }
}

// -----

// The buffer's alignment bounds it: a workgroup attribution is aligned to its
// element only; a view's alignment is unknown.
gpu.module @kernels {
  gpu.func @buffers() workgroup(%w : memref<256xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @below {{cannot prove 16-byte alignment (the buffer is only 4-byte aligned (buffer from a workgroup attribution; use tile.shared_alloc))}}
    %a = vector.load %w[%c0] : memref<256xf32, 3>, vector<4xf32>
    %buf = tile.shared_alloc : memref<4x64xf32, 3>
    %view = memref.subview %buf[1, 0] [1, 64] [1, 1] : memref<4x64xf32, 3> to memref<64xf32, strided<[1], offset: 64>, 3>
    // expected-remark @below {{cannot prove 16-byte alignment (the buffer's alignment is unknown (not a tile.shared_alloc, memref.global or workgroup attribution))}}
    %b = vector.load %view[%c0] : memref<64xf32, strided<[1], offset: 64>, 3>, vector<4xf32>
    gpu.return
  }
}

// -----

// A kernel with no tile op (tile's dialect not loaded by the parser): the
// pass loads it to name the attribution's swizzle (a fuzzed input crashed
// here).
gpu.module @kernels {
  gpu.func @no_tile_ops() workgroup(%w : memref<16x16xf16, 3>) kernel {
    %c0 = arith.constant 0 : index
    // expected-remark @below {{cannot prove 16-byte alignment (the buffer is only 2-byte aligned (buffer from a workgroup attribution; use tile.shared_alloc))}}
    %v = vector.load %w[%c0, %c0] : memref<16x16xf16, 3>, vector<8xf16>
    gpu.return
  }
}
