// Bad target options are diagnostics, never an LLVM abort.
//
// T-TARGET-1: an unknown chip.
// RUN: not tile-opt %s -tile-check-target="chip=sm_91" 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: unknown chip 'sm_91'; expected one of sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a (T-TARGET-1)
// The module is named by its location, not printed after the message.
// CHIP-NOT: see current operation
// CHIP-NOT: func.func
//
// T-TARGET-2: PTX 7.8 is too old for sm_90a (LLVM would abort).
// RUN: not tile-opt %s -tile-check-target="chip=sm_90a features=+ptx78" 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: error: PTX ISA 7.8 ('+ptx78') does not support sm_90a; it needs PTX 8.0 ('+ptx80') or later (T-TARGET-2)
//
// T-TARGET-2: LLVM's own default +ptx60 for sm_80.
// RUN: not tile-opt %s -tile-check-target="chip=sm_80 features=+ptx60" 2>&1 | FileCheck %s --check-prefix=PTX60
// PTX60: error: PTX ISA 6.0 ('+ptx60') does not support sm_80; it needs PTX 7.0 ('+ptx70') or later (T-TARGET-2)
//
// T-TARGET-2: a version LLVM 22 does not know.
// RUN: not tile-opt %s -tile-check-target="chip=sm_90a features=+ptx91" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: '+ptx91' is not a PTX version LLVM 22 can emit; known: +ptx60, {{.*}}, +ptx88, +ptx90 (T-TARGET-2)
//
// T-TARGET-2: not a PTX feature at all.
// RUN: not tile-opt %s -tile-check-target="chip=sm_90a features=ptx80" 2>&1 | FileCheck %s --check-prefix=SPELLING
// SPELLING: error: expected a PTX feature of the form '+ptxNN' (e.g. +ptx80), got 'ptx80' (T-TARGET-2)
//
// T-TARGET-4: optimization level and output format.
// RUN: not tile-opt %s -tile-check-target="opt-level=4" 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: opt-level must be in [0, 3], got 4 (T-TARGET-4)
// RUN: not tile-opt %s -tile-check-target="format=sass" 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: error: unknown format 'sass'; expected isa, bin, fatbin or offload (T-TARGET-4)
// RUN: not tile-opt %s -tile-check-target="index-bitwidth=16" 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: error: index-bitwidth must be 32 or 64, got 16 (T-TARGET-4)
// A 32-bit index with ops that lower through nvgpu (only 64-bit there).
// RUN: not tile-opt %S/../Integration/GPU/mma-sync.mlir -tile-check-target="chip=sm_90a index-bitwidth=32" 2>&1 | FileCheck %s --check-prefix=NVGPU
// NVGPU: error: index-bitwidth=32 is not supported with an op that lowers through nvgpu (T-TARGET-4)
// RUN: not tile-opt %S/../Integration/GPU/tma-load.mlir -tile-check-target="chip=sm_90a index-bitwidth=32" 2>&1 | FileCheck %s --check-prefix=NVGPUOP
// NVGPUOP: error: index-bitwidth=32 is not supported with an nvgpu op (T-TARGET-4)
//
// The defaults (sm_90a, +ptx80) and explicit valid options pass.
// RUN: tile-opt %s -tile-check-target | FileCheck %s --check-prefix=OK
// RUN: tile-opt %s -tile-check-target="chip=sm_100a features=+ptx86 format=bin opt-level=0" | FileCheck %s --check-prefix=OK
// OK: func.func @f

func.func @f() {
  return
}
