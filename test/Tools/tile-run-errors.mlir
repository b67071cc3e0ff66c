// tile-run: bad input gets one clear diagnostic and a non-zero exit.
// REQUIRES: tile-run
//
// RUN: split-file %s %t
// A CPU-only program runs anywhere (and prints like mlir-runner).
// RUN: tile-run %t/cpu.mlir | FileCheck %s --check-prefix=CPU
// CPU: data =
// CPU-NEXT: [0,  1,  2,  3]
//
// RUN: not tile-run %t/cpu.mlir -e missing 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: tile-run: no function 'missing' with a body in the module
// RUN: not tile-run %t/args.mlir -e takes_args 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: tile-run: entry point 'takes_args' must take no arguments and return nothing, got !llvm.func<void (i64)>
// RUN: not tile-run %t/malformed.mlir 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: custom op 'func.func' expected valid '@'-identifier for symbol name
// RUN: not tile-run %t/cpu.mlir --lower=never 2>&1 | FileCheck %s --check-prefix=NEVER
// NEVER: error: 'arith.constant' is not lowered to the LLVM dialect; run tile-to-ptx-pipeline (or drop --lower=never)
// RUN: not tile-run %t/cpu.mlir --lower=sometimes 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: tile-run: --lower must be auto, always or never, got 'sometimes'
// RUN: not tile-run %t/unresolved.mlir 2>&1 | FileCheck %s --check-prefix=SYMBOL
// SYMBOL: JIT session error: Symbols not found: [ no_such_function ]
// SYMBOL: tile-run: cannot find 'main' in the JIT
// RUN: not tile-run %t/cpu.mlir --chip=sm_91 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: unknown chip 'sm_91'
// CHIP: tile-run: lowering failed; reproduce with: tile-opt {{.*}}cpu.mlir --pass-pipeline='builtin.module(tile-to-ptx-pipeline{chip=sm_91 format=isa})'

//--- cpu.mlir
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %m = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %m[%i] : memref<4xf32>
  }
  %cast = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<4xf32>
  return
}
func.func private @printMemrefF32(memref<*xf32>)

//--- args.mlir
func.func @takes_args(%n: index) {
  return
}

//--- malformed.mlir
func.func main() {

//--- unresolved.mlir
func.func @main() {
  call @no_such_function() : () -> ()
  return
}
func.func private @no_such_function()
