// Malformed IR, unknown ops and verifier failures end with a diagnostic and a
// non-zero exit, never a crash.
//
// RUN: split-file %s %t
// RUN: not tile-opt %t/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: expected non-function type
// RUN: not tile-opt %t/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: unregistered operation 'tile.bogus' found in dialect ('tile') that does not allow unknown operations
// RUN: not tile-opt %t/verifier.mlir 2>&1 | FileCheck %s --check-prefix=VERIFIER
// VERIFIER: error: 'tile.async_copy' op expected a copy size of 4, 8 or 16 bytes, got 2 (T-CPASYNC-1)
// RUN: not tile-opt %t/unknown-type.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: unknown type `tensor_map` in dialect `tile`
// RUN: not tile-opt %t/valid.mlir --tile-to-ptx-pipeline=chip=bogus 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: unknown chip 'bogus'
// RUN: not tile-opt %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: No such file or directory

//--- malformed.mlir
func.func @f( {

//--- unknown-op.mlir
func.func @f() {
  "tile.bogus"() : () -> ()
  return
}

//--- verifier.mlir
func.func @f(%g: memref<64xf32>, %s: memref<64xf32, 3>, %i: index) {
  tile.async_copy %g[%i] to %s[%i], 2 bytes, cache = ca : memref<64xf32> to memref<64xf32, 3>
  return
}

//--- unknown-type.mlir
func.func private @f(!tile.tensor_map)

//--- valid.mlir
func.func @f() {
  return
}
