// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target="chip=sm_75"
// RUN: tile-opt %s -split-input-file -tile-check-target="chip=sm_80" | FileCheck %s --check-prefix=SM80

// T-TARGET-3: cp.async needs sm_80; everything else about sm_75 is fine.
// SM80-LABEL: func.func @cp_async_on_turing
func.func @cp_async_on_turing(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  // expected-error @below {{'tile.async_copy' op requires sm_80 or newer, but the target chip is sm_75 (T-TARGET-3)}}
  tile.async_copy %g[%i] to %s[%i], 16 bytes, cache = cg : memref<64xf32> to memref<64xf32, 3>
  return
}

// -----

// SM80-LABEL: func.func @commit_on_turing
func.func @commit_on_turing() {
  // expected-error @below {{'tile.async_commit_group' op requires sm_80 or newer, but the target chip is sm_75 (T-TARGET-3)}}
  %g = tile.async_commit_group
  return
}

// -----

// A module without target-dependent ops passes on any known chip.
// SM80-LABEL: func.func @no_tile_ops
func.func @no_tile_ops() {
  return
}
