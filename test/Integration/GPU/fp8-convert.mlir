// arith.truncf to f8E4M3FN and f8E5M2 in a kernel (T-TARGET-7: cvt.rn.satfinite
// with arith.truncf's overflow), element by element and in pairs (the byte
// order of a pair), against bytes computed from the formats' definitions:
// round to nearest even; E4M3FN saturates to 448 up to 464 (a tie that
// rounds to 448's even encoding) and is NaN above it and for infinities;
// E5M2 is infinite from 61440 (a tie that rounds to the even infinity);
// subnormals (2^-9 in E4M3FN) and underflow to zero, signed zeros.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: fp8 conversion mismatches: 0

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @one_by_one(%x: memref<16xf32>, %e4: memref<16xi8>, %e5: memref<16xi8>) kernel
        attributes {known_block_size = array<i32: 16, 1, 1>} {
      %tid = gpu.thread_id x
      %v = memref.load %x[%tid] : memref<16xf32>
      %q4 = arith.truncf %v : f32 to f8E4M3FN
      %q5 = arith.truncf %v : f32 to f8E5M2
      %b4 = arith.bitcast %q4 : f8E4M3FN to i8
      %b5 = arith.bitcast %q5 : f8E5M2 to i8
      memref.store %b4, %e4[%tid] : memref<16xi8>
      memref.store %b5, %e5[%tid] : memref<16xi8>
      gpu.return
    }
    gpu.func @pairs(%x: memref<16xf32>, %e4: memref<16xi8>, %e5: memref<16xi8>) kernel
        attributes {known_block_size = array<i32: 8, 1, 1>} {
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %i = arith.muli %tid, %c2 : index
      %v = vector.load %x[%i] : memref<16xf32>, vector<2xf32>
      %q4 = arith.truncf %v : vector<2xf32> to vector<2xf8E4M3FN>
      %q5 = arith.truncf %v : vector<2xf32> to vector<2xf8E5M2>
      %b4 = arith.bitcast %q4 : vector<2xf8E4M3FN> to vector<2xi8>
      %b5 = arith.bitcast %q5 : vector<2xf8E5M2> to vector<2xi8>
      vector.store %b4, %e4[%i] : memref<16xi8>, vector<2xi8>
      vector.store %b5, %e5[%i] : memref<16xi8>, vector<2xi8>
      gpu.return
    }
  }

  // Mismatches of the 16 bytes of `got` against `want`.
  func.func @mismatches(%got: memref<16xi8>, %want: vector<16xi8>) -> i32 {
    %c0 = arith.constant 0 : index
    %g = vector.load %got[%c0] : memref<16xi8>, vector<16xi8>
    %ne = arith.cmpi ne, %g, %want : vector<16xi8>
    %ones = arith.constant dense<1> : vector<16xi32>
    %zeros = arith.constant dense<0> : vector<16xi32>
    %counts = arith.select %ne, %ones, %zeros : vector<16xi1>, vector<16xi32>
    %n = vector.reduction <add>, %counts : vector<16xi32> into i32
    return %n : i32
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    // 0, -0, 1, -2.5, 448, 460, 464, 465, 1000, -1000, 57344, 61440, 2^-9,
    // 2^-17, 0.3, -inf.
    %values = arith.constant dense<[0.0, -0.0, 1.0, -2.5, 448.0, 460.0, 464.0, 465.0, 1000.0,
        -1000.0, 57344.0, 61440.0, 0.001953125, 7.62939453125e-06, 0.3, 0xFF800000]> : vector<16xf32>
    %want4 = arith.constant dense<[0, -128, 56, -62, 126, 126, 126, 127, 127, -1, 127, 127, 1, 0,
        42, -1]> : vector<16xi8>
    %want5 = arith.constant dense<[0, -128, 60, -63, 95, 95, 95, 95, 100, -28, 123, 124, 24, 0,
        53, -4]> : vector<16xi8>
    %h = memref.alloc() : memref<16xf32>
    vector.store %values, %h[%c0] : memref<16xf32>, vector<16xf32>
    %x = gpu.alloc () : memref<16xf32>
    gpu.memcpy %x, %h : memref<16xf32>, memref<16xf32>
    %e4 = gpu.alloc () : memref<16xi8>
    %e5 = gpu.alloc () : memref<16xi8>
    %o4 = memref.alloc() : memref<16xi8>
    %o5 = memref.alloc() : memref<16xi8>
    gpu.launch_func @kernels::@one_by_one blocks in (%c1, %c1, %c1) threads in (%c16, %c1, %c1)
        args(%x : memref<16xf32>, %e4 : memref<16xi8>, %e5 : memref<16xi8>)
    gpu.memcpy %o4, %e4 : memref<16xi8>, memref<16xi8>
    gpu.memcpy %o5, %e5 : memref<16xi8>, memref<16xi8>
    %a = func.call @mismatches(%o4, %want4) : (memref<16xi8>, vector<16xi8>) -> i32
    %b = func.call @mismatches(%o5, %want5) : (memref<16xi8>, vector<16xi8>) -> i32
    gpu.launch_func @kernels::@pairs blocks in (%c1, %c1, %c1) threads in (%c8, %c1, %c1)
        args(%x : memref<16xf32>, %e4 : memref<16xi8>, %e5 : memref<16xi8>)
    gpu.memcpy %o4, %e4 : memref<16xi8>, memref<16xi8>
    gpu.memcpy %o5, %e5 : memref<16xi8>, memref<16xi8>
    %c = func.call @mismatches(%o4, %want4) : (memref<16xi8>, vector<16xi8>) -> i32
    %d = func.call @mismatches(%o5, %want5) : (memref<16xi8>, vector<16xi8>) -> i32
    %ab = arith.addi %a, %b : i32
    %cd = arith.addi %c, %d : i32
    %bad = arith.addi %ab, %cd : i32
    vector.print str "fp8 conversion mismatches: "
    vector.print %bad : i32
    return
  }
}
