// !tile.tma_desc parameters: a swizzle given as an attribute must be a
// #tile.swizzle.
// RUN: tile-opt %s -split-input-file -verify-diagnostics

// swizzle = takes a TMA mode keyword or a #tile.swizzle attribute.
// expected-error @+1 {{expected a #tile.swizzle, got #tile.layout<4:1>}}
func.func private @tma_swizzle_attr(!tile.tma_desc<memref<128x64xf16>, box = [128, 64], swizzle = #tile.layout<4:1>>)
