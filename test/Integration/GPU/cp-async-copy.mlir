// The bundled example: a 256x64 f16 matrix copied through shared memory with
// tile.async_copy (cp.async.cg, 16 B), compared element by element on the
// host. Once through the driver's PTX JIT (sm_80 code) and once as a cubin
// assembled by ptxas (sm_90a).
//
// RUN: tile-run %S/../../../examples/cp_async_copy.mlir --chip=sm_80 | FileCheck %s
// RUN: %if ptxas %{ tile-run %S/../../../examples/cp_async_copy.mlir --chip=sm_90a --gpu-format=bin | FileCheck %s %}
// CHECK: copied 256x64 f16 elements, mismatches: 0
