// TMA im2col mode (a 3x3 convolution with padding 1 on a 1x4x4x16 f32 NHWC
// tensor): the descriptor's pixel box corners are -pad = -1 and
// pad - (3 - 1) = -1, so for output pixel (h, w) the filter tap (r, s)
// (the im2col offsets) reads input (h - 1 + r, w - 1 + s). The coordinates
// name a position in the tensor inside the pixel box [lower, dim - 1 +
// upper] = [-1, 2]: output pixel (0, 0) is position (-1, -1), and the
// pixels of a load walk that box W first. Each TMA load fetches the 16
// output pixels x 16 channels of one tap; the host prints which input pixel
// (h * 4 + w, or "pad" for the zero fill) each loaded row came from, and
// counts rows whose 16 channels are not one input pixel's. (Starting at
// position (0, 0) instead walks output pixels (1, 1) ... and runs off the
// box after 11 pixels, as measured on the H100.)
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK-LABEL: centre tap
// CHECK-NEXT: 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
// CHECK-LABEL: top-left tap
// CHECK-NEXT: pad pad pad pad pad 0 1 2 pad 4 5 6 pad 8 9 10
// CHECK: inconsistent rows: 0

!desc = !tile.tma_desc<memref<1x4x4x16xf32>, box = [16, 16], im2col_lower = [-1, -1], im2col_upper = [-1, -1]>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @im2col(%d: !desc, %out: memref<2x16x16xf32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c16 = arith.constant 16 : index
      %c256 = arith.constant 256 : index
      %c512 = arith.constant 512 : index
      %one = arith.constant 1 : i32
      %bytes = arith.constant 1024 : i32
      %false = arith.constant false
      %o0 = arith.constant 0 : i16
      %o1 = arith.constant 1 : i16
      %first = arith.constant -1 : index
      %tid = gpu.thread_id x
      %tiles = tile.shared_alloc : memref<2x16x16xf32, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        tile.mbarrier_init %bars[%c0], %one : !tile.mbarrier<count = 2>
        tile.mbarrier_init %bars[%c1], %one : !tile.mbarrier<count = 2>
      }
      gpu.barrier
      scf.if %leader {
        %t0 = tile.mbarrier_arrive_expect_tx %bars[%c0], %bytes : !tile.mbarrier<count = 2> -> !tile.mbarrier_token
        tile.tma_load %d[%c0, %first, %first, %c0] im2col [%o1, %o1] to %tiles[%c0], %bars[%c0]
            : !desc, memref<2x16x16xf32, 3>, !tile.mbarrier<count = 2>
        %t1 = tile.mbarrier_arrive_expect_tx %bars[%c1], %bytes : !tile.mbarrier<count = 2> -> !tile.mbarrier_token
        tile.tma_load %d[%c0, %first, %first, %c0] im2col [%o0, %o0] to %tiles[%c1], %bars[%c1]
            : !desc, memref<2x16x16xf32, 3>, !tile.mbarrier<count = 2>
      }
      tile.mbarrier_wait_parity %bars[%c0], %false : !tile.mbarrier<count = 2>
      tile.mbarrier_wait_parity %bars[%c1], %false : !tile.mbarrier<count = 2>
      scf.for %e = %tid to %c512 step %c32 {
        %t = arith.divui %e, %c256 : index
        %in = arith.remui %e, %c256 : index
        %r = arith.divui %in, %c16 : index
        %c = arith.remui %in, %c16 : index
        %v = memref.load %tiles[%t, %r, %c] : memref<2x16x16xf32, 3>
        memref.store %v, %out[%t, %r, %c] : memref<2x16x16xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %h = memref.alloc() : memref<1x4x4x16xf32>
    scf.for %y = %c0 to %c4 step %c1 {
      scf.for %x = %c0 to %c4 step %c1 {
        scf.for %c = %c0 to %c16 step %c1 {
          %y4 = arith.muli %y, %c4 : index
          %pix = arith.addi %y4, %x : index
          %base = arith.muli %pix, %c16 : index
          %v0 = arith.addi %base, %c : index
          %v = arith.addi %v0, %c1 : index
          %vi = arith.index_cast %v : index to i32
          %f = arith.sitofp %vi : i32 to f32
          memref.store %f, %h[%c0, %y, %x, %c] : memref<1x4x4x16xf32>
        }
      }
    }
    %dh = gpu.alloc () : memref<1x4x4x16xf32>
    %dout = gpu.alloc () : memref<2x16x16xf32>
    gpu.memcpy %dh, %h : memref<1x4x4x16xf32>, memref<1x4x4x16xf32>
    %d = tile.tma_create_descriptor %dh : memref<1x4x4x16xf32> -> !desc
    gpu.launch_func @kernels::@im2col blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%d : !desc, %dout : memref<2x16x16xf32>)
    %out = memref.alloc() : memref<2x16x16xf32>
    gpu.memcpy %out, %dout : memref<2x16x16xf32>, memref<2x16x16xf32>
    %zero = arith.constant 0 : i64
    %one = arith.constant 1 : i64
    %bad = scf.for %t = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (i64) {
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        vector.print str "centre tap\n"
      } else {
        vector.print str "top-left tap\n"
      }
      %next = scf.for %p = %c0 to %c16 step %c1 iter_args(%a = %acc) -> (i64) {
        %notfirst = arith.cmpi ne, %p, %c0 : index
        scf.if %notfirst {
          vector.print str " "
        }
        %v0 = memref.load %out[%t, %p, %c0] : memref<2x16x16xf32>
        %v0i = arith.fptosi %v0 : f32 to i64
        %pad = arith.cmpi eq, %v0i, %zero : i64
        scf.if %pad {
          vector.print str "pad"
        } else {
          %m1 = arith.subi %v0i, %one : i64
          %c16i = arith.constant 16 : i64
          %pix = arith.divsi %m1, %c16i : i64
          vector.print %pix : i64 punctuation <no_punctuation>
        }
        // Every channel of the row belongs to the same input pixel.
        %wrong = scf.for %c = %c0 to %c16 step %c1 iter_args(%w = %zero) -> (i64) {
          %v = memref.load %out[%t, %p, %c] : memref<2x16x16xf32>
          %vi = arith.fptosi %v : f32 to i64
          %ci = arith.index_cast %c : index to i64
          %want0 = arith.addi %v0i, %ci : i64
          %want = arith.select %pad, %zero, %want0 : i64
          %ne = arith.cmpi ne, %vi, %want : i64
          %inc = arith.select %ne, %one, %zero : i64
          %n = arith.addi %w, %inc : i64
          scf.yield %n : i64
        }
        %isbad = arith.cmpi ne, %wrong, %zero : i64
        %inc = arith.select %isbad, %one, %zero : i64
        %n = arith.addi %a, %inc : i64
        scf.yield %n : i64
      }
      vector.print punctuation <newline>
      scf.yield %next : i64
    }
    vector.print str "inconsistent rows: "
    vector.print %bad : i64
    return
  }
}
