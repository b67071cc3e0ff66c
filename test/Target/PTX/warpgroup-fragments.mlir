// The attention building blocks as PTX, assembled by ptxas for sm_90a: a
// two-warpgroup kernel that builds a score tile from tile.warpgroup_iota,
// takes its row maximum (tile.warpgroup_row_reduce <maxnumf>: a max tree,
// then shfl.sync.bfly by 1 and 2), broadcasts it back
// (tile.warpgroup_broadcast_rows), exponentiates with math.exp2
// (ex2.approx.ftz.f32, one per element), sums the rows, and multiplies the
// 16-bit probabilities by shared B tiles with A in registers
// (tile.warpgroup_mma_rs: bf16 with an MN-major B, imm-trans-b = 1; f16 with
// a K-major B, imm-trans-b = 0) between named barriers 9 + wg (bar.sync)
// and 10 - wg (bar.arrive) of 256 threads.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// CHECK: .target sm_90a
// CHECK-LABEL: .visible .entry fragments(
// The row maximum: the quad's butterfly shuffles (lane xor 1, xor 2; clamp
// 31, all lanes), each followed by the combine.
//       CHECK: shfl.sync.bfly.b32 [[X1:%r[0-9]+]], [[V:%r[0-9]+]], 1, 31, -1;
//  CHECK-NEXT: max.f32 [[M1:%r[0-9]+]], [[V]], [[X1]];
//  CHECK-NEXT: shfl.sync.bfly.b32 [[X2:%r[0-9]+]], [[M1]], 2, 31, -1;
//  CHECK-NEXT: max.f32 %r{{[0-9]+}}, [[M1]], [[X2]];
// exp2 of the 32 accumulators of a 64x64 tile: ex2.approx.ftz.f32 each, no
// libdevice call.
// CHECK-COUNT-32: ex2.approx.ftz.f32 %r{{[0-9]+}}, %r{{[0-9]+}};
//   CHECK-NOT: ex2.approx.ftz.f32
//   CHECK-NOT: __nv_exp2f
// The row sums.
//       CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 1, 31, -1;
//       CHECK: add.rn.f32
//       CHECK: shfl.sync.bfly.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 2, 31, -1;
// The turn: this warpgroup's named barrier, then the register-A wgmmas.
//       CHECK: add.s32 [[MY:%r[0-9]+]], %r{{[0-9]+}}, 9;
//       CHECK: bar.sync [[MY]], 256;
//  CHECK-NEXT: wgmma.fence.sync.aligned;
// The MN-major B descriptor: the start address's 14 bits ((x & 0x3FFFF)
// >> 4 of a 1024-byte aligned buffer: & 16320 after the shift), leading
// byte offset 64 K rows x 128 B = 8192 (512 << 16: with the start masked,
// an OR), stride byte offset 1024 (64 << 32), 128B swizzle (1 << 62).
//       CHECK: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16320;
//       CHECK: or.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 4611686293338849280;
// The first K step of a zero accumulator: scale-d = 0.
//       CHECK: setp.ne.b32 p, 0, 0;
//  CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 1;
//  CHECK-NEXT: }
//       CHECK: wgmma.commit_group.sync.aligned;
//  CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
//  CHECK-NEXT: wgmma.fence.sync.aligned;
// The K-major B descriptor: the masked start, leading byte offset 16 (1 <<
// 16, an OR into the one constant: 4611686293305294848 + 65536).
//       CHECK: and.b32 %r{{[0-9]+}}, %r{{[0-9]+}}, 16320;
//       CHECK: or.b64 %rd{{[0-9]+}}, %rd{{[0-9]+}}, 4611686293305360384;
//       CHECK: setp.ne.b32 p, 1, 0;
//  CHECK-NEXT: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{[{](%r[0-9]+, ){31}%r[0-9]+[}]}}, {{[{](%r[0-9]+, ){3}%r[0-9]+[}]}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{.*}}, p, 1, 1, 0;
//       CHECK: wgmma.commit_group.sync.aligned;
//  CHECK-NEXT: wgmma.wait_group.sync.aligned 0;
// The other warpgroup's turn.
//       CHECK: bar.arrive %r{{[0-9]+}}, 256;
//   CHECK-NOT: wgmma.mma_async
//       CHECK: ret;

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fragments(%out: memref<?xf32>, %sums: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c9 = arith.constant 9 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %zero = arith.constant dense<0.0> : vector<32xf32>
      %sv = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<1x64x64xbf16, 3>
      %sb = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x64xf16, 3>
      %tid = gpu.thread_id x
      %wg = arith.divui %tid, %c128 : index
      %rows = tile.warpgroup_iota {dim = 0 : i64, shape = array<i64: 64, 64>} : vector<32xi32>
      %cols = tile.warpgroup_iota {dim = 1 : i64, shape = array<i64: 64, 64>} : vector<32xi32>
      %rc = arith.addi %rows, %cols : vector<32xi32>
      %s = arith.sitofp %rc : vector<32xi32> to vector<32xf32>
      %m = tile.warpgroup_row_reduce <maxnumf> %s {shape = array<i64: 64, 64>} : vector<32xf32> -> vector<2xf32>
      %mb = tile.warpgroup_broadcast_rows %m {shape = array<i64: 64, 64>} : vector<2xf32> -> vector<32xf32>
      %d = arith.subf %s, %mb : vector<32xf32>
      %e = math.exp2 %d fastmath<afn> : vector<32xf32>
      %l = tile.warpgroup_row_reduce <add> %e {shape = array<i64: 64, 64>} : vector<32xf32> -> vector<2xf32>
      %p = arith.truncf %e : vector<32xf32> to vector<32xbf16>
      %ph = arith.truncf %e : vector<32xf32> to vector<32xf16>
      %my_i = arith.addi %c9, %wg : index
      %my = arith.index_cast %my_i : index to i32
      %other_wg = arith.subi %c1, %wg : index
      %other_i = arith.addi %c9, %other_wg : index
      %other = arith.index_cast %other_i : index to i32
      tile.named_barrier_sync %my, 256
      %o = tile.warpgroup_mma_rs %p, %sv[%c0, %c0, %c0], %zero {shape = array<i64: 64, 64, 64>, wait = 0 : i32, transpose_b}
          : vector<32xbf16>, memref<1x64x64xbf16, 3>, vector<32xf32>
      %o2 = tile.warpgroup_mma_rs %ph, %sb[%c0, %c0], %o {shape = array<i64: 64, 64, 64>, wait = 0 : i32}
          : vector<32xf16>, memref<64x64xf16, 3>, vector<32xf32>
      tile.named_barrier_arrive %other, 256
      %at = arith.muli %tid, %c32 : index
      vector.store %o2, %out[%at] : memref<?xf32>, vector<32xf32>
      %at2 = arith.muli %tid, %c2 : index
      vector.store %l, %sums[%at2] : memref<?xf32>, vector<2xf32>
      gpu.return
    }
  }
}
