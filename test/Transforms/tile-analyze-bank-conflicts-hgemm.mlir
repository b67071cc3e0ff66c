// Bank conflicts of the hgemm example's shared accesses. The ldmatrix reads
// (one 128-byte phase per 8x8 matrix: 8 lanes' 16-byte rows) have none with
// its swizzles (b128 = CuTe's Swizzle<3,3,3> on the 64-byte rows of the
// K-major tiles, byte Swizzle<3,4,4> on the 256-byte rows of the K x N B
// tile); without them the K-major tiles conflict 4-way and the K x N tile
// 8-way. The epilogue's 4-byte fragment stores into the 256-byte rows of
// the staged C tile (8 rows x 16 bytes per warp) conflict 2-way under b128
// (8-way without): Swizzle<3,4,4> would remove that but repeats every 2048
// bytes, more than a dynamic buffer's alignment (T-SMEM-2); it is once per
// tile. The 16-byte reads of the copy-out are conflict-free under b128 (4-way
// without).
//
// RUN: tile-opt %S/../../examples/hgemm_sm80.mlir -tile-pipeline-async-copies -tile-lower-tile-ops -tile-analyze-bank-conflicts -o /dev/null 2>&1 | grep -o "remark: .*" | sort | uniq -c | FileCheck %s --implicit-check-not=remark
// RUN: sed 's/{swizzle = #tile.swizzle<[^>]*>} //' %S/../../examples/hgemm_sm80.mlir | tile-opt -tile-pipeline-async-copies -tile-lower-tile-ops -tile-analyze-bank-conflicts -o /dev/null 2>&1 | grep -o "remark: .*" | sort | uniq -c | FileCheck %s --check-prefix=PLAIN
// CHECK: 256 remark: 2-way bank conflict: 4-byte accesses, 32 lanes per 128-byte phase under the buffer's swizzle #tile.swizzle<b128>{{$}}
// PLAIN: 24 remark: 4-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<b128> on the buffer's byte offsets makes it conflict-free
// PLAIN: 8 remark: 8-way bank conflict: 16-byte accesses, 8 lanes per 128-byte phase; #tile.swizzle<3, 4, 4> on the buffer's byte offsets makes it conflict-free
// PLAIN: 256 remark: 8-way bank conflict: 4-byte accesses, 32 lanes per 128-byte phase; #tile.swizzle<5, 2, 6> on the buffer's byte offsets makes it 4-way
