// The KV-cache append kernel of python/tile/ops/cache_append.py as PTX,
// assembled by ptxas: each thread moves 16 bytes of a new K row and of a V
// row (one 128-bit load and store each) to its slot, with 64-bit offsets
// (s64 index products); the per-sequence start and the page's block index
// are 32-bit loads.
//
// RUN: %python -m tile cache-append > %t.mlir
// RUN: tile-opt %t.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// RUN: %python -m tile cache-append --head-dim 64 --element f16 > %t.d64.mlir
// RUN: tile-opt %t.d64.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.d64.ptx
// RUN: FileCheck %s < %t.d64.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.d64.ptx -o %t.d64.cubin %}

// CHECK-LABEL: .visible .entry cache_append(
// CHECK: ld.global.s32
// CHECK: ld.global.s32
// CHECK: mul.lo.s64
// CHECK: ld.global.v4.b32 {[[K:.*]]}, [
// CHECK: st.global.v4.b32 [{{.*}}], {[[K]]};
// CHECK: ld.global.v4.b32 {[[V:.*]]}, [
// CHECK: st.global.v4.b32 [{{.*}}], {[[V]]};
// CHECK-NOT: ld.global
// CHECK: ret;
