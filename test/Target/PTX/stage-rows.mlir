// The staging copy of python/tile/ops/staging.py (tile.matmul's A and B
// copied into rows TMA can address) as PTX, assembled by ptxas. A thread
// takes 8 consecutive elements of a row: a whole piece is eight 2-byte
// loads issued before its eight stores (the sources' rows are only 2-byte
// aligned, so no vector loads), and the row's last, partial piece copies
// element by element within the row (its eighth element never lies inside
// it, so only seven guarded copies remain). The piece's row and column
// come from one 64-bit division by the row's pieces (taken in 32 bits when
// the operands fit). Both matrices share one code path (the second's
// pieces follow the first's in the grid).
//
// RUN: %python -m tile stage-rows > %t.mlir
// RUN: tile-opt %t.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NO-SPILLS %}
// RUN: %python -m tile stage-rows --element f16 --count 1 > %t.one.mlir
// RUN: tile-opt %t.one.mlir --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.one.ptx
// RUN: FileCheck %s --check-prefix=ONE < %t.one.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.one.ptx -o %t.one.cubin %}

// CHECK-LABEL: .visible .entry stage_rows2(
// CHECK: .maxntid 256, 1, 1
// CHECK: div.u64
// CHECK-COUNT-7: ld.global.b16
// CHECK-COUNT-8: ld.global.b16
// CHECK-NOT: ld.global
// CHECK-COUNT-8: st.global.b16
// CHECK-NOT: ld.global.v
// CHECK: ret;

// ONE-LABEL: .visible .entry stage_rows1(
// ONE: .maxntid 256, 1, 1

// NO-SPILLS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
