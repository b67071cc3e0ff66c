// wgmma with 8-bit float operands (m64n64k32, f32 accumulate): D = A * B^T
// for A 64x128 e4m3 and B 64x128 once as e4m3 and once as e5m2 (and e4m3
// again into f16 accumulators, two to a register), K-major in
// 128B-swizzled buffers (a 128-element row of 8-bit floats is one 128-byte
// span); four wgmmas walk K in steps of 32. The host writes the operands'
// bit patterns (small integers -2 .. 2, exact in both formats) as i8, the
// kernel reinterprets them (arith.bitcast), and the host checks each
// product against its integer reference (exact).
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: wgmma e4m3 x e4m3 mismatches: 0
// CHECK: wgmma e4m3 x e5m2 mismatches: 0
// CHECK: wgmma e4m3 x e4m3 f16-accumulated mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @wgmma_fp8(%ga: memref<64x128xi8>, %gb4: memref<64x128xi8>, %gb5: memref<64x128xi8>,
                        %out4: memref<64x64xf32>, %out5: memref<64x64xf32>,
                        %out16: memref<64x64xf32>) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %c8192 = arith.constant 8192 : index
      %tid = gpu.thread_id x
      %as = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x128xf8E4M3FN, 3>
      %b4s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x128xf8E4M3FN, 3>
      %b5s = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<64x128xf8E5M2, 3>
      scf.for %e = %tid to %c8192 step %c128 {
        %r = arith.divui %e, %c128 : index
        %k = arith.remui %e, %c128 : index
        %a = memref.load %ga[%r, %k] : memref<64x128xi8>
        %a8 = arith.bitcast %a : i8 to f8E4M3FN
        memref.store %a8, %as[%r, %k] : memref<64x128xf8E4M3FN, 3>
        %b4 = memref.load %gb4[%r, %k] : memref<64x128xi8>
        %b48 = arith.bitcast %b4 : i8 to f8E4M3FN
        memref.store %b48, %b4s[%r, %k] : memref<64x128xf8E4M3FN, 3>
        %b5 = memref.load %gb5[%r, %k] : memref<64x128xi8>
        %b58 = arith.bitcast %b5 : i8 to f8E5M2
        memref.store %b58, %b5s[%r, %k] : memref<64x128xf8E5M2, 3>
      }
      // wgmma reads shared memory through the async proxy.
      tile.fence_proxy_async shared_cta
      gpu.barrier
      %zero = arith.constant dense<0.0> : vector<32xf32>
      %zero16 = arith.constant dense<0.0> : vector<32xf16>
      tile.wgmma_fence
      %acc:3 = scf.for %kb = %c0 to %c4 step %c1 iter_args(%d4 = %zero, %d5 = %zero, %d16 = %zero16)
          -> (vector<32xf32>, vector<32xf32>, vector<32xf16>) {
        %k = arith.muli %kb, %c32 : index
        %da = tile.wgmma_descriptor %as[%c0, %k] : memref<64x128xf8E4M3FN, 3>
        %db4 = tile.wgmma_descriptor %b4s[%c0, %k] : memref<64x128xf8E4M3FN, 3>
        %db5 = tile.wgmma_descriptor %b5s[%c0, %k] : memref<64x128xf8E5M2, 3>
        %n4 = tile.wgmma %da, %db4, %d4 {n = 64 : i64, inputType = f8E4M3FN} : vector<32xf32>
        %n5 = tile.wgmma %da, %db5, %d5 {n = 64 : i64, inputType = f8E4M3FN, inputTypeB = f8E5M2} : vector<32xf32>
        %n16 = tile.wgmma %da, %db4, %d16 {n = 64 : i64, inputType = f8E4M3FN} : vector<32xf16>
        scf.yield %n4, %n5, %n16 : vector<32xf32>, vector<32xf32>, vector<32xf16>
      }
      tile.wgmma_commit_group
      tile.wgmma_wait_group 0
      // The f16 accumulators as f32 (integers up to 512: exact in f16),
      // read once the wgmmas are done.
      %wide16 = arith.extf %acc#2 : vector<32xf16> to vector<32xf32>
      // The PTX ISA's D layout: warp w rows 16 w + lane / 4 (+ 8), columns
      // 8 j + 2 (lane mod 4) (+ 1).
      %warp = arith.divui %tid, %c32 : index
      %lane = arith.remui %tid, %c32 : index
      %w16 = arith.muli %warp, %c16 : index
      %l4 = arith.divui %lane, %c4 : index
      %r0 = arith.addi %w16, %l4 : index
      %r1 = arith.addi %r0, %c8 : index
      %q = arith.remui %lane, %c4 : index
      %q2 = arith.muli %q, %c2 : index
      scf.for %j = %c0 to %c8 step %c1 {
        %j8 = arith.muli %j, %c8 : index
        %col = arith.addi %j8, %q2 : index
        %col1 = arith.addi %col, %c1 : index
        %i0 = arith.muli %j, %c4 : index
        %i1 = arith.addi %i0, %c1 : index
        %i2 = arith.addi %i0, %c2 : index
        %i3 = arith.addi %i2, %c1 : index
        %c3 = arith.constant 3 : index
        scf.for %which = %c0 to %c3 step %c1 {
          %second = arith.cmpi eq, %which, %c1 : index
          %third = arith.cmpi eq, %which, %c2 : index
          %d01 = arith.select %second, %acc#1, %acc#0 : vector<32xf32>
          %d = arith.select %third, %wide16, %d01 : vector<32xf32>
          %out01 = arith.select %second, %out5, %out4 : memref<64x64xf32>
          %out = arith.select %third, %out16, %out01 : memref<64x64xf32>
          %v0 = vector.extract %d[%i0] : f32 from vector<32xf32>
          %v1 = vector.extract %d[%i1] : f32 from vector<32xf32>
          %v2 = vector.extract %d[%i2] : f32 from vector<32xf32>
          %v3 = vector.extract %d[%i3] : f32 from vector<32xf32>
          memref.store %v0, %out[%r0, %col] : memref<64x64xf32>
          memref.store %v1, %out[%r0, %col1] : memref<64x64xf32>
          memref.store %v2, %out[%r1, %col] : memref<64x64xf32>
          memref.store %v3, %out[%r1, %col1] : memref<64x64xf32>
        }
      }
      gpu.return
    }
  }

  // The bit pattern of the small integer v in [-2, 2] as e4m3 (exponent
  // bias 7: 1.0 = 0x38, 2.0 = 0x40) or e5m2 (bias 15: 1.0 = 0x3C, 2.0 =
  // 0x40); the sign is bit 7.
  func.func @encode(%v: i32, %one: i8) -> i8 {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %zero = arith.constant 0 : i8
    %two = arith.constant 64 : i8
    %sign = arith.constant -128 : i8
    %neg = arith.cmpi slt, %v, %c0 : i32
    %nv = arith.subi %c0, %v : i32
    %mag = arith.select %neg, %nv, %v : i32
    %is2 = arith.cmpi eq, %mag, %c2 : i32
    %is0 = arith.cmpi eq, %mag, %c0 : i32
    %m12 = arith.select %is2, %two, %one : i8
    %m = arith.select %is0, %zero, %m12 : i8
    %s = arith.ori %m, %sign : i8
    %r = arith.select %neg, %s, %m : i8
    return %r : i8
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %e4m3_one = arith.constant 56 : i8
    %e5m2_one = arith.constant 60 : i8
    %two = arith.constant 2 : i32
    %va = memref.alloc() : memref<64x128xi32>
    %vb = memref.alloc() : memref<64x128xi32>
    %ha = memref.alloc() : memref<64x128xi8>
    %hb4 = memref.alloc() : memref<64x128xi8>
    %hb5 = memref.alloc() : memref<64x128xi8>
    scf.for %i = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c128 step %c1 {
        %i3 = arith.muli %i, %c3 : index
        %s = arith.addi %i3, %k : index
        %m = arith.remui %s, %c5 : index
        %mi = arith.index_cast %m : index to i32
        %a = arith.subi %mi, %two : i32
        memref.store %a, %va[%i, %k] : memref<64x128xi32>
        %ea = func.call @encode(%a, %e4m3_one) : (i32, i8) -> i8
        memref.store %ea, %ha[%i, %k] : memref<64x128xi8>
        %k2 = arith.muli %k, %c2 : index
        %t = arith.addi %i, %k2 : index
        %mb = arith.remui %t, %c5 : index
        %mbi = arith.index_cast %mb : index to i32
        %b = arith.subi %mbi, %two : i32
        memref.store %b, %vb[%i, %k] : memref<64x128xi32>
        %eb4 = func.call @encode(%b, %e4m3_one) : (i32, i8) -> i8
        memref.store %eb4, %hb4[%i, %k] : memref<64x128xi8>
        %eb5 = func.call @encode(%b, %e5m2_one) : (i32, i8) -> i8
        memref.store %eb5, %hb5[%i, %k] : memref<64x128xi8>
      }
    }
    %da = gpu.alloc () : memref<64x128xi8>
    %db4 = gpu.alloc () : memref<64x128xi8>
    %db5 = gpu.alloc () : memref<64x128xi8>
    %dout4 = gpu.alloc () : memref<64x64xf32>
    %dout5 = gpu.alloc () : memref<64x64xf32>
    %dout16 = gpu.alloc () : memref<64x64xf32>
    gpu.memcpy %da, %ha : memref<64x128xi8>, memref<64x128xi8>
    gpu.memcpy %db4, %hb4 : memref<64x128xi8>, memref<64x128xi8>
    gpu.memcpy %db5, %hb5 : memref<64x128xi8>, memref<64x128xi8>
    gpu.launch_func @kernels::@wgmma_fp8 blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%da : memref<64x128xi8>, %db4 : memref<64x128xi8>, %db5 : memref<64x128xi8>,
             %dout4 : memref<64x64xf32>, %dout5 : memref<64x64xf32>,
             %dout16 : memref<64x64xf32>)
    %out4 = memref.alloc() : memref<64x64xf32>
    %out5 = memref.alloc() : memref<64x64xf32>
    gpu.memcpy %out4, %dout4 : memref<64x64xf32>, memref<64x64xf32>
    gpu.memcpy %out5, %dout5 : memref<64x64xf32>, memref<64x64xf32>
    %out16 = memref.alloc() : memref<64x64xf32>
    gpu.memcpy %out16, %dout16 : memref<64x64xf32>, memref<64x64xf32>
    %z = arith.constant 0 : i64
    %o = arith.constant 1 : i64
    %bad:3 = scf.for %i = %c0 to %c64 step %c1 iter_args(%b4 = %z, %b5 = %z, %b16 = %z)
        -> (i64, i64, i64) {
      %r:3 = scf.for %n = %c0 to %c64 step %c1 iter_args(%x4 = %b4, %x5 = %b5, %x16 = %b16)
          -> (i64, i64, i64) {
        %zi = arith.constant 0 : i32
        %ref = scf.for %k = %c0 to %c128 step %c1 iter_args(%acc = %zi) -> (i32) {
          %a = memref.load %va[%i, %k] : memref<64x128xi32>
          %b = memref.load %vb[%n, %k] : memref<64x128xi32>
          %p = arith.muli %a, %b : i32
          %s = arith.addi %acc, %p : i32
          scf.yield %s : i32
        }
        %reff = arith.sitofp %ref : i32 to f32
        %y4 = memref.load %out4[%i, %n] : memref<64x64xf32>
        %y5 = memref.load %out5[%i, %n] : memref<64x64xf32>
        %ne4 = arith.cmpf une, %y4, %reff : f32
        %ne5 = arith.cmpf une, %y5, %reff : f32
        %inc4 = arith.select %ne4, %o, %z : i64
        %inc5 = arith.select %ne5, %o, %z : i64
        %n4 = arith.addi %x4, %inc4 : i64
        %n5 = arith.addi %x5, %inc5 : i64
        %y16 = memref.load %out16[%i, %n] : memref<64x64xf32>
        %ne16 = arith.cmpf une, %y16, %reff : f32
        %inc16 = arith.select %ne16, %o, %z : i64
        %n16 = arith.addi %x16, %inc16 : i64
        scf.yield %n4, %n5, %n16 : i64, i64, i64
      }
      scf.yield %r#0, %r#1, %r#2 : i64, i64, i64
    }
    vector.print str "wgmma e4m3 x e4m3 mismatches: "
    vector.print %bad#0 : i64
    vector.print str "wgmma e4m3 x e5m2 mismatches: "
    vector.print %bad#1 : i64
    vector.print str "wgmma e4m3 x e4m3 f16-accumulated mismatches: "
    vector.print %bad#2 : i64
    return
  }
}
