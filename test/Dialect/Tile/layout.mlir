// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | tile-opt -split-input-file | FileCheck %s

// Round trip of #tile.layout: flat and nested modes, negative and zero
// strides, and the compact column-major default stride.
// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tile.a = #tile.layout<(4,2,2):(2,1,8)>
// CHECK-SAME: tile.b = #tile.layout<((2,2),(3,2)):((1,4),(8,24))>
// CHECK-SAME: tile.c = #tile.layout<(8,64):(1,8)>
// CHECK-SAME: tile.d = #tile.layout<16:1>
// CHECK-SAME: tile.e = #tile.layout<(4,(1,2)):(-1,(0,4))>
func.func @layouts() attributes {
    tile.a = #tile.layout<(4,2,2):(2,1,8)>,
    tile.b = #tile.layout<((2,2),(3,2)):((1,4),(8,24))>,
    tile.c = #tile.layout<(8,64)>,
    tile.d = #tile.layout<16:1>,
    tile.e = #tile.layout<(4,(1,2)):(-1,(0,4))>} {
  return
}

// -----

// expected-error @below {{invalid layout: shape (2,3) and stride (1,(2,6)) are not congruent}}
func.func private @incongruent() attributes {tile.l = #tile.layout<(2,3):(1,(2,6))>}

// -----

// expected-error @below {{invalid layout: shape (4,0) has an extent below 1}}
func.func private @empty_mode() attributes {tile.l = #tile.layout<(4,0):(1,4)>}

// -----

// Layouts stay within 2^31 elements and strides, so the algebra's products
// fit in 64 bits (a fuzzed layout whose complement overflowed to 0 divided
// by it).
// expected-error @below {{invalid layout: shape (65536,65537) has more than 2^31 elements}}
func.func private @huge() attributes {tile.l = #tile.layout<(65536,65537)>}

// -----

// expected-error @below {{invalid layout: stride (1,4294967296) is not in [-2^31, 2^31]}}
func.func private @huge_stride() attributes {tile.l = #tile.layout<(4,2):(1,4294967296)>}
