// Warp specialization on the GPU: warpgroup 0 (40 registers) is the
// producer of a 4-stage full/empty mbarrier ring of 128B-swizzled 32x32 f32
// tiles, filled with tile.tma_copy; warpgroups 1 and 2 (232 registers) both
// consume every tile and release it (256 arrivals on the empty barrier).
// 16 tiles, so the ring wraps four times and its phases flip; every
// consumer thread's sum equals the host's.
//
// RUN: tile-run %s --chip=sm_90a --timeout=60 | FileCheck %s
// CHECK: warp-specialized sum - host sum: 0

!desc = !tile.tma_desc<memref<512x32xf32>, box = [32, 32], swizzle = b128>
!bars = !tile.mbarrier<count = 4>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @ws(%d: !desc, %out: memref<256xf32>) kernel
        attributes {known_block_size = array<i32: 384, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c8 = arith.constant 8 : index
      %c16 = arith.constant 16 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %one = arith.constant 1 : i32
      %consumers = arith.constant 256 : i32
      %false = arith.constant false
      %true = arith.constant true
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %ring = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<4x32x32xf32, 3>
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        scf.for %s = %c0 to %c4 step %c1 {
          tile.mbarrier_init %full[%s], %one : !bars
          tile.mbarrier_init %empty[%s], %consumers : !bars
        }
      }
      gpu.barrier
      tile.warp_specialize producer(registers = 40) {
        // One thread runs the ring (the warpgroup's other threads, only
        // waiting, could fall two phases behind it: T-PROTO-7). It starts at
        // phase 1 of the empty barriers, which fresh barriers report as
        // complete.
        scf.if %first {
          %r:2 = scf.for %k = %c0 to %c16 step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {
            tile.mbarrier_wait_parity %empty[%s], %ph : !bars
            %row = arith.muli %k, %c32 : index
            tile.tma_copy %d[%row, %c0] to %ring[%s], %full[%s] : !desc, memref<4x32x32xf32, 3>, !bars
            %n = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %n, %c4 : index
            %ns = arith.select %wrap, %c0, %n : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %ns, %nph : index, i1
          }
        }
      } consumers(2, registers = 232) {
      ^bb0(%consumer: index):
        %lane = arith.remui %tid, %c128 : index
        %base = arith.muli %consumer, %c128 : index
        %t = arith.addi %base, %lane : index
        %row = arith.divui %t, %c8 : index
        %q = arith.remui %t, %c8 : index
        %col = arith.muli %q, %c4 : index
        %r:3 = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero, %s = %c0, %ph = %false) -> (f32, index, i1) {
          tile.mbarrier_wait_parity %full[%s], %ph : !bars
          %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
            %c = arith.addi %col, %j : index
            %v = memref.load %ring[%s, %row, %c] : memref<4x32x32xf32, 3>
            %sum = arith.addf %a, %v : f32
            scf.yield %sum : f32
          }
          %tok = tile.mbarrier_arrive %empty[%s] : !bars -> !tile.mbarrier_token
          %n = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %n, %c4 : index
          %ns = arith.select %wrap, %c0, %n : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %part, %ns, %nph : f32, index, i1
        }
        memref.store %r#0, %out[%t] : memref<256xf32>
      }
      gpu.return
    }
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c384 = arith.constant 384 : index
    %c512 = arith.constant 512 : index
    %h = memref.alloc() : memref<512x32xf32>
    scf.for %i = %c0 to %c512 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %i3 = arith.muli %i, %c7 : index
        %ij = arith.addi %i3, %j : index
        %m = arith.remui %ij, %c16 : index
        %mi = arith.index_cast %m : index to i32
        %f = arith.sitofp %mi : i32 to f32
        memref.store %f, %h[%i, %j] : memref<512x32xf32>
      }
    }
    %dg = gpu.alloc () : memref<512x32xf32>
    %dout = gpu.alloc () : memref<256xf32>
    gpu.memcpy %dg, %h : memref<512x32xf32>, memref<512x32xf32>
    %dd = tile.tma_create_descriptor %dg : memref<512x32xf32> -> !desc
    gpu.launch_func @kernels::@ws blocks in (%c1, %c1, %c1) threads in (%c384, %c1, %c1)
        args(%dd : !desc, %dout : memref<256xf32>)
    %out = memref.alloc() : memref<256xf32>
    gpu.memcpy %out, %dout : memref<256xf32>, memref<256xf32>
    %zero = arith.constant 0.0 : f32
    %diff = scf.for %t = %c0 to %c256 step %c1 iter_args(%d = %zero) -> (f32) {
      %row = arith.divui %t, %c8 : index
      %q = arith.remui %t, %c8 : index
      %col = arith.muli %q, %c4 : index
      %ref = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
        %base = arith.muli %k, %c32 : index
        %gr = arith.addi %base, %row : index
        %part = scf.for %j = %c0 to %c4 step %c1 iter_args(%a = %acc) -> (f32) {
          %c = arith.addi %col, %j : index
          %v = memref.load %h[%gr, %c] : memref<512x32xf32>
          %s = arith.addf %a, %v : f32
          scf.yield %s : f32
        }
        scf.yield %part : f32
      }
      %got = memref.load %out[%t] : memref<256xf32>
      %delta = arith.subf %got, %ref : f32
      %abs = math.absf %delta : f32
      %nd = arith.addf %d, %abs : f32
      scf.yield %nd : f32
    }
    vector.print str "warp-specialized sum - host sum: "
    vector.print %diff : f32
    return
  }
}
