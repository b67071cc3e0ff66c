// The fused-epilogue ops on warpgroup accumulators: tile.warpgroup_add
// (a residual, a broadcast bias per column and per row, f32 and 16-bit
// sources) and tile.warpgroup_activation (every kind, gated and not):
// round trip and every message of T-TILE-10.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | tile-opt -split-input-file | FileCheck %s

// CHECK-LABEL: gpu.func @epilogue
gpu.module @k {
  gpu.func @epilogue(%acc: vector<128xf32>, %res: memref<?x?xbf16, strided<[?, 1]>>,
                     %col: memref<?x?xf16, strided<[0, 1]>>, %row: memref<?x?xf32, strided<[1, 0]>>,
                     %m0: index, %n0: index) kernel {
    // CHECK: tile.warpgroup_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 64, 256>} : memref<?x?xbf16, strided<[?, 1]>>, vector<128xf32>
    %r = tile.warpgroup_add %acc, %res[%m0, %n0] {shape = array<i64: 64, 256>} : memref<?x?xbf16, strided<[?, 1]>>, vector<128xf32>
    // CHECK: tile.warpgroup_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 64, 256>} : memref<?x?xf16, strided<[0, 1]>>, vector<128xf32>
    %b = tile.warpgroup_add %r, %col[%m0, %n0] {shape = array<i64: 64, 256>} : memref<?x?xf16, strided<[0, 1]>>, vector<128xf32>
    // CHECK: tile.warpgroup_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 128, 128>} : memref<?x?xf32, strided<[1, 0]>>, vector<128xf32>
    %w = tile.warpgroup_add %b, %row[%m0, %n0] {shape = array<i64: 128, 128>} : memref<?x?xf32, strided<[1, 0]>>, vector<128xf32>
    // CHECK: tile.warpgroup_activation <relu> %{{.*}} {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    %0 = tile.warpgroup_activation <relu> %w {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    // CHECK: tile.warpgroup_activation <silu> %{{.*}} {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    %1 = tile.warpgroup_activation <silu> %0 {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    // CHECK: tile.warpgroup_activation <gelu> %{{.*}} {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    %2 = tile.warpgroup_activation <gelu> %1 {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    // CHECK: tile.warpgroup_activation <gelu_tanh> %{{.*}} {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    %3 = tile.warpgroup_activation <gelu_tanh> %2 {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    // The full form of the kind, as a template's alias gives it.
    // CHECK: tile.warpgroup_activation <silu> %{{.*}} {gated = true, shape = array<i64: 64, 256>} : vector<128xf32> -> vector<64xf32>
    %4 = tile.warpgroup_activation #tile.activation<silu> %3 {gated = true, shape = array<i64: 64, 256>} : vector<128xf32> -> vector<64xf32>
    // CHECK: tile.warpgroup_activation <gelu> %{{.*}} {gated = true, shape = array<i64: 128, 16>} : vector<16xf32> -> vector<8xf32>
    %s = vector.extract_strided_slice %acc {offsets = [0], sizes = [16], strides = [1]} : vector<128xf32> to vector<16xf32>
    %5 = tile.warpgroup_activation <gelu> %s {gated = true, shape = array<i64: 128, 16>} : vector<16xf32> -> vector<8xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @bad_shape(%acc: vector<64xf32>, %res: memref<?x?xbf16>, %m0: index) kernel {
    // expected-error @+1 {{expected shape (M, N) with M = 64 i, N = 8 j (T-TILE-10)}}
    %r = tile.warpgroup_add %acc, %res[%m0, %m0] {shape = array<i64: 32, 256>} : memref<?x?xbf16>, vector<64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @bad_count(%acc: vector<64xf32>, %res: memref<?x?xbf16>, %m0: index) kernel {
    // expected-error @+1 {{a thread holds 128 elements of a 64x256 warpgroup tile, got 'vector<64xf32>' (T-TILE-10)}}
    %r = tile.warpgroup_add %acc, %res[%m0, %m0] {shape = array<i64: 64, 256>} : memref<?x?xbf16>, vector<64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @empty(%acc: vector<128xf32>, %res: memref<0x?xbf16>, %m0: index) kernel {
    // expected-error @+1 {{expected a non-empty source (an element outside it reads inside it), got 'memref<0x?xbf16>' (T-TILE-10)}}
    %r = tile.warpgroup_add %acc, %res[%m0, %m0] {shape = array<i64: 64, 256>} : memref<0x?xbf16>, vector<128xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @rank(%acc: vector<128xf32>, %res: memref<?xbf16>, %m0: index) kernel {
    // expected-error @+1 {{operand #1 must be 2D memref of 16-bit float or bfloat16 type or 32-bit float values}}
    %r = tile.warpgroup_add %acc, %res[%m0, %m0] {shape = array<i64: 64, 256>} : memref<?xbf16>, vector<128xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @activation_type(%acc: vector<128xf32>) kernel {
    // expected-error @+1 {{expected the accumulators' type 'vector<128xf32>', got 'vector<64xf32>' (T-TILE-10)}}
    %0 = tile.warpgroup_activation <silu> %acc {shape = array<i64: 64, 256>} : vector<128xf32> -> vector<64xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @gated_width(%acc: vector<12xf32>) kernel {
    // expected-error @+1 {{gates pairs of 8-column blocks: expected N a multiple of 16, got 24 (T-TILE-10)}}
    %0 = tile.warpgroup_activation <silu> %acc {gated = true, shape = array<i64: 64, 24>} : vector<12xf32> -> vector<6xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @gated_half(%acc: vector<128xf32>) kernel {
    // expected-error @+1 {{gating halves the tile: expected 64 elements, got 'vector<128xf32>' (T-TILE-10)}}
    %0 = tile.warpgroup_activation <silu> %acc {gated = true, shape = array<i64: 64, 256>} : vector<128xf32> -> vector<128xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @activation_count(%acc: vector<32xf32>) kernel {
    // expected-error @+1 {{a thread holds 64 elements of a 64x128 warpgroup tile, got 'vector<32xf32>' (T-TILE-10)}}
    %0 = tile.warpgroup_activation <relu> %acc {shape = array<i64: 64, 128>} : vector<32xf32> -> vector<32xf32>
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @kind(%acc: vector<64xf32>) kernel {
    // expected-error @+2 {{expected ::mlir::tile::Activation to be one of: identity, relu, silu, gelu, gelu_tanh}}
    // expected-error @+1 {{failed to parse Tile_ActivationAttr parameter 'value'}}
    %0 = tile.warpgroup_activation <tanh> %acc {shape = array<i64: 64, 128>} : vector<64xf32> -> vector<64xf32>
    gpu.return
  }
}
