// RMSNorm with tile.reduce (docs/Tutorial.md, step 3):
//   y[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + eps) * w
// One CTA of 512 threads per row of 4096 bf16; each thread holds 8 of them
// (one 16-byte vector) and the CTA sums the squares with one block
// reduction, which every thread receives.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx | FileCheck %s
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// CHECK-LABEL: .visible .entry rmsnorm(
// CHECK:       ld.global.v4.b32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK:       bar.sync
// CHECK:       rsqrt.approx.f32
// CHECK:       st.global.v4.b32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rmsnorm(%x: memref<?x4096xbf16>, %w: memref<4096xbf16>,
                      %y: memref<?x4096xbf16>, %eps: f32) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c8 = arith.constant 8 : index
      %n = arith.constant 4096.0 : f32
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c8 : index
      // Global pointers come from the caller: the 16-byte alignment of
      // these vector accesses is the kernel's claim (rows of 8192 bytes,
      // a 16-byte aligned base), so it is written out.
      %xv = vector.load %x[%row, %col] {alignment = 16}
          : memref<?x4096xbf16>, vector<8xbf16>
      %xf = arith.extf %xv : vector<8xbf16> to vector<8xf32>
      %sq = arith.mulf %xf, %xf : vector<8xf32>
      %mine = vector.reduction <add>, %sq : vector<8xf32> into f32
      %sum = tile.reduce add %mine over block : f32
      %mean = arith.divf %sum, %n : f32
      %var = arith.addf %mean, %eps : f32
      %rstd = math.rsqrt %var : f32
      %wv = vector.load %w[%col] {alignment = 16} : memref<4096xbf16>, vector<8xbf16>
      %wf = arith.extf %wv : vector<8xbf16> to vector<8xf32>
      %r = vector.broadcast %rstd : f32 to vector<8xf32>
      %xn = arith.mulf %xf, %r : vector<8xf32>
      %yf = arith.mulf %xn, %wf : vector<8xf32>
      %yv = arith.truncf %yf : vector<8xf32> to vector<8xbf16>
      vector.store %yv, %y[%row, %col] {alignment = 16}
          : memref<?x4096xbf16>, vector<8xbf16>
      gpu.return
    }
  }
}
