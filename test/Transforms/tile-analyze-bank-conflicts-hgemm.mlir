// Bank conflicts of the hgemm example's ldmatrix reads (one 128-byte phase
// per 8x8 matrix: 8 lanes' 16-byte rows). With its swizzles (b128 = seed
// 003's Swizzle<3,3,3> on the 64-byte rows of the K-major tiles, byte
// Swizzle<3,4,4> on the 256-byte rows of the K x N B tile) none remain;
// without them the K-major tiles conflict 4-way and the K x N tile 8-way.
//
// RUN: tile-opt %S/../../examples/hgemm_sm80.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-analyze-bank-conflicts -o /dev/null 2>&1 | FileCheck %s --allow-empty --implicit-check-not=remark
// RUN: sed 's/{swizzle = #tile.swizzle<[^>]*>} //' %S/../../examples/hgemm_sm80.mlir | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-analyze-bank-conflicts -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN-COUNT-8: remark: 4-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<b128> on the buffer's byte offsets makes it conflict-free
// PLAIN: remark: 8-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<3, 4, 4> on the buffer's byte offsets makes it conflict-free
