// RMSNorm with a hand-written block reduction (docs/Tutorial.md, step 1):
//   y[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + eps) * w
// One CTA of 512 threads per row of 4096 bf16; each thread holds 8 of them
// (one 16-byte vector). The sum of squares: five butterfly shuffles per
// warp, then the 16 warps' sums through shared memory.
//
// RUN: tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx | FileCheck %s
// RUN: %if ptxas %{ tile-opt %s --tile-to-ptx-pipeline="chip=sm_90a" | tile-translate --extract-ptx -o %t.ptx && %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}
// CHECK-LABEL: .visible .entry rmsnorm(
// CHECK:       ld.global.v4.b32
// CHECK-COUNT-5: shfl.sync.bfly.b32
// CHECK:       bar.sync
// CHECK:       ld.shared.v4.b32
// CHECK:       st.global.v4.b32
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @rmsnorm(%x: memref<?x4096xbf16>, %w: memref<4096xbf16>,
                      %y: memref<?x4096xbf16>, %eps: f32) kernel
        attributes {known_block_size = array<i32: 512, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %c32 = arith.constant 32 : index
      %n = arith.constant 4096.0 : f32
      %width = arith.constant 32 : i32
      %tid = gpu.thread_id x
      %row = gpu.block_id x
      %col = arith.muli %tid, %c8 : index
      %xv = vector.load %x[%row, %col] {alignment = 16}
          : memref<?x4096xbf16>, vector<8xbf16>
      %xf = arith.extf %xv : vector<8xbf16> to vector<8xf32>
      %sq = arith.mulf %xf, %xf : vector<8xf32>
      %mine = vector.reduction <add>, %sq : vector<8xf32> into f32
      // Warp sum: a butterfly of five shuffles; every lane gets the sum.
      %o16 = arith.constant 16 : i32
      %o8 = arith.constant 8 : i32
      %o4 = arith.constant 4 : i32
      %o2 = arith.constant 2 : i32
      %o1 = arith.constant 1 : i32
      %t16, %v16 = gpu.shuffle xor %mine, %o16, %width : f32
      %s16 = arith.addf %mine, %t16 : f32
      %t8, %v8 = gpu.shuffle xor %s16, %o8, %width : f32
      %s8 = arith.addf %s16, %t8 : f32
      %t4, %v4 = gpu.shuffle xor %s8, %o4, %width : f32
      %s4 = arith.addf %s8, %t4 : f32
      %t2, %v2 = gpu.shuffle xor %s4, %o2, %width : f32
      %s2 = arith.addf %s4, %t2 : f32
      %t1, %v1 = gpu.shuffle xor %s2, %o1, %width : f32
      %warp_sum = arith.addf %s2, %t1 : f32
      // Block sum: lane 0 of each of the 16 warps stores its warp's sum,
      // and after a barrier every thread adds the 16.
      %partials = tile.shared_alloc : memref<16xf32, #gpu.address_space<workgroup>>
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %first = arith.cmpi eq, %lane, %c0 : index
      scf.if %first {
        memref.store %warp_sum, %partials[%warp]
            : memref<16xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %all = vector.load %partials[%c0] {alignment = 16}
          : memref<16xf32, #gpu.address_space<workgroup>>, vector<16xf32>
      %sum = vector.reduction <add>, %all : vector<16xf32> into f32
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
