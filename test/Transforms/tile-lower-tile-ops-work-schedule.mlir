// tile.work_count / tile.work_unit / tile.tile_coord (T-TILE-7), lowered
// and run on the CPU: over tiles 1..39, iterations 1, 4, 7, 10, 13 and
// workers 1..12 (2340 schedules a kind; the printed numbers of them where
// stream_k and split_k share tiles, data-parallel in the others) and 2040
// and 2048 tiles of 128 iterations on 132 workers (2040 for split_k), the
// units cover every tile's iterations exactly once, are non-empty, cut a
// tile into splits in K order that agree on their count (stream_k: at most
// 2, fixup below workers + workers / 2, every worker's iterations equal to
// within one; split_k: at most 8, fixup below workers / 2, the examples'
// workspace slot below 2 x workers and counter below workers); the
// grouped order visits every tile of 1..12 x 1..12 grids once. Prints the
// cases, the stream-K and split-K cases and the violations of each check.
// REQUIRES: mlir-runner
// RUN: tile-opt %s -tile-lower-tile-ops -convert-scf-to-cf -convert-to-llvm \
// RUN:   -reconcile-unrealized-casts \
// RUN: | %mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_c_runner_utils | FileCheck %s
// CHECK: 2340
// CHECK-NEXT: 860
// CHECK-NEXT: 832
// CHECK-NEXT: 0
// CHECK-NEXT: 0
// CHECK-NEXT: 0

module {
  func.func private @printI64(i64)
  func.func private @printNewline()

  // Violations of T-TILE-7 for `tiles` tiles of `iters` iterations shared
  // by `workers` workers under stream-K.
  func.func @violations(%tiles: index, %iters: index, %workers: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %cells = arith.muli %tiles, %iters : index
    %cover = memref.alloc(%cells) : memref<?xi32>
    %splits_of = memref.alloc(%tiles) : memref<?xindex>
    scf.for %e = %c0 to %cells step %c1 {
      memref.store %zero, %cover[%e] : memref<?xi32>
    }
    scf.for %t = %c0 to %tiles step %c1 {
      memref.store %c0, %splits_of[%t] : memref<?xindex>
    }
    %half = arith.divui %workers, %c2 : index
    %fixups = arith.addi %workers, %half : index
    %max_splits = arith.constant 2 : index
    %big = arith.constant 1000000000 : index
    %r:3 = scf.for %w = %c0 to %workers step %c1 iter_args(%bad = %c0, %lo = %big, %hi = %c0) -> (index, index, index) {
      %units = tile.work_count stream_k tiles %tiles iters %iters worker %w of %workers
      %s:2 = scf.for %i = %c0 to %units step %c1 iter_args(%b = %bad, %work = %c0) -> (index, index) {
        %tile, %first, %count, %fixup, %split, %splits = tile.work_unit %i of stream_k tiles %tiles iters %iters worker %w of %workers
        %end = arith.addi %first, %count : index
        %v0 = arith.cmpi eq, %count, %c0 : index
        %v1 = arith.cmpi uge, %tile, %tiles : index
        %v2 = arith.cmpi ugt, %end, %iters : index
        %v3 = arith.cmpi uge, %split, %splits : index
        %v4 = arith.cmpi ugt, %splits, %max_splits : index
        %shared = arith.cmpi ugt, %splits, %c1 : index
        %far = arith.cmpi uge, %fixup, %fixups : index
        %v5 = arith.andi %shared, %far : i1
        // K order: split 0 starts the tile, the last split ends it.
        %starts = arith.cmpi eq, %first, %c0 : index
        %is_first = arith.cmpi eq, %split, %c0 : index
        %v6 = arith.cmpi ne, %starts, %is_first : i1
        %ends = arith.cmpi eq, %end, %iters : index
        %last_split = arith.subi %splits, %c1 : index
        %is_last = arith.cmpi eq, %split, %last_split : index
        %v7 = arith.cmpi ne, %ends, %is_last : i1
        // Every unit of a tile agrees on its splits.
        %known = memref.load %splits_of[%tile] : memref<?xindex>
        %seen = arith.cmpi ne, %known, %c0 : index
        %differs = arith.cmpi ne, %known, %splits : index
        %v8 = arith.andi %seen, %differs : i1
        memref.store %splits, %splits_of[%tile] : memref<?xindex>
        %v = arith.ori %v0, %v1 : i1
        %va = arith.ori %v, %v2 : i1
        %vb = arith.ori %va, %v3 : i1
        %vc = arith.ori %vb, %v4 : i1
        %vd = arith.ori %vc, %v5 : i1
        %ve = arith.ori %vd, %v6 : i1
        %vf = arith.ori %ve, %v7 : i1
        %vg = arith.ori %vf, %v8 : i1
        %inc = arith.index_castui %vg : i1 to index
        %b2 = arith.addi %b, %inc : index
        %base = arith.muli %tile, %iters : index
        %ok = arith.cmpi ule, %end, %iters : index
        %in = arith.cmpi ult, %tile, %tiles : index
        %safe = arith.andi %ok, %in : i1
        scf.if %safe {
          scf.for %k = %first to %end step %c1 {
            %cell = arith.addi %base, %k : index
            %old = memref.load %cover[%cell] : memref<?xi32>
            %new = arith.addi %old, %one : i32
            memref.store %new, %cover[%cell] : memref<?xi32>
          }
        }
        %work2 = arith.addi %work, %count : index
        scf.yield %b2, %work2 : index, index
      }
      %lo2 = arith.minui %lo, %s#1 : index
      %hi2 = arith.maxui %hi, %s#1 : index
      scf.yield %s#0, %lo2, %hi2 : index, index, index
    }
    %holes = scf.for %e = %c0 to %cells step %c1 iter_args(%b = %r#0) -> (index) {
      %n = memref.load %cover[%e] : memref<?xi32>
      %wrong = arith.cmpi ne, %n, %one : i32
      %inc = arith.index_castui %wrong : i1 to index
      %b2 = arith.addi %b, %inc : index
      scf.yield %b2 : index
    }
    // Balance: where stream-K applies (a last wave that would leave at
    // least half the workers idle), workers differ by at most one
    // iteration.
    %rem = arith.remui %tiles, %workers : index
    %partial = arith.cmpi ne, %rem, %c0 : index
    %more = arith.cmpi ugt, %tiles, %workers : index
    %rem2 = arith.addi %rem, %rem : index
    %idle = arith.cmpi ule, %rem2, %workers : index
    %partial_idle = arith.andi %partial, %idle : i1
    %streamk = arith.andi %partial_idle, %more : i1
    %spread = arith.subi %r#2, %r#1 : index
    %uneven = arith.cmpi ugt, %spread, %c1 : index
    %v = arith.andi %streamk, %uneven : i1
    %inc = arith.index_castui %v : i1 to index
    %total = arith.addi %holes, %inc : index
    memref.dealloc %cover : memref<?xi32>
    memref.dealloc %splits_of : memref<?xindex>
    return %total : index
  }

  // The same under split_k: at most 8 splits, fixup below workers / 2, no
  // balance (the tail's splits are a tile's share each).
  func.func @violations_split_k(%tiles: index, %iters: index, %workers: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %cells = arith.muli %tiles, %iters : index
    %cover = memref.alloc(%cells) : memref<?xi32>
    %splits_of = memref.alloc(%tiles) : memref<?xindex>
    scf.for %e = %c0 to %cells step %c1 {
      memref.store %zero, %cover[%e] : memref<?xi32>
    }
    scf.for %t = %c0 to %tiles step %c1 {
      memref.store %c0, %splits_of[%t] : memref<?xindex>
    }
    %fixups = arith.divui %workers, %c2 : index
    %max_splits = arith.constant 8 : index
    %big = arith.constant 1000000000 : index
    %r:3 = scf.for %w = %c0 to %workers step %c1 iter_args(%bad = %c0, %lo = %big, %hi = %c0) -> (index, index, index) {
      %units = tile.work_count split_k tiles %tiles iters %iters worker %w of %workers
      %s:2 = scf.for %i = %c0 to %units step %c1 iter_args(%b = %bad, %work = %c0) -> (index, index) {
        %tile, %first, %count, %fixup, %split, %splits = tile.work_unit %i of split_k tiles %tiles iters %iters worker %w of %workers
        %end = arith.addi %first, %count : index
        %v0 = arith.cmpi eq, %count, %c0 : index
        %v1 = arith.cmpi uge, %tile, %tiles : index
        %v2 = arith.cmpi ugt, %end, %iters : index
        %v3 = arith.cmpi uge, %split, %splits : index
        %v4 = arith.cmpi ugt, %splits, %max_splits : index
        %shared = arith.cmpi ugt, %splits, %c1 : index
        %far = arith.cmpi uge, %fixup, %fixups : index
        %v5a = arith.andi %shared, %far : i1
        // The examples' workspace and counters (tile.matmul's
        // split_k_shape): half tile fixup x 2 + 1 below workers, its
        // slot (half x max(splits, 2) + split) below 2 x workers.
        %half2 = arith.muli %fixup, %c2 : index
        %half = arith.addi %half2, %c1 : index
        %slots = arith.maxui %splits, %c2 : index
        %slot0 = arith.muli %half, %slots : index
        %slot = arith.addi %slot0, %split : index
        %w2 = arith.muli %workers, %c2 : index
        %ws_out = arith.cmpi uge, %slot, %w2 : index
        %cnt_out = arith.cmpi uge, %half, %workers : index
        %out = arith.ori %ws_out, %cnt_out : i1
        %v5b = arith.andi %shared, %out : i1
        %v5 = arith.ori %v5a, %v5b : i1
        // K order: split 0 starts the tile, the last split ends it.
        %starts = arith.cmpi eq, %first, %c0 : index
        %is_first = arith.cmpi eq, %split, %c0 : index
        %v6 = arith.cmpi ne, %starts, %is_first : i1
        %ends = arith.cmpi eq, %end, %iters : index
        %last_split = arith.subi %splits, %c1 : index
        %is_last = arith.cmpi eq, %split, %last_split : index
        %v7 = arith.cmpi ne, %ends, %is_last : i1
        // Every unit of a tile agrees on its splits.
        %known = memref.load %splits_of[%tile] : memref<?xindex>
        %seen = arith.cmpi ne, %known, %c0 : index
        %differs = arith.cmpi ne, %known, %splits : index
        %v8 = arith.andi %seen, %differs : i1
        memref.store %splits, %splits_of[%tile] : memref<?xindex>
        %v = arith.ori %v0, %v1 : i1
        %va = arith.ori %v, %v2 : i1
        %vb = arith.ori %va, %v3 : i1
        %vc = arith.ori %vb, %v4 : i1
        %vd = arith.ori %vc, %v5 : i1
        %ve = arith.ori %vd, %v6 : i1
        %vf = arith.ori %ve, %v7 : i1
        %vg = arith.ori %vf, %v8 : i1
        %inc = arith.index_castui %vg : i1 to index
        %b2 = arith.addi %b, %inc : index
        %base = arith.muli %tile, %iters : index
        %ok = arith.cmpi ule, %end, %iters : index
        %in = arith.cmpi ult, %tile, %tiles : index
        %safe = arith.andi %ok, %in : i1
        scf.if %safe {
          scf.for %k = %first to %end step %c1 {
            %cell = arith.addi %base, %k : index
            %old = memref.load %cover[%cell] : memref<?xi32>
            %new = arith.addi %old, %one : i32
            memref.store %new, %cover[%cell] : memref<?xi32>
          }
        }
        %work2 = arith.addi %work, %count : index
        scf.yield %b2, %work2 : index, index
      }
      %lo2 = arith.minui %lo, %s#1 : index
      %hi2 = arith.maxui %hi, %s#1 : index
      scf.yield %s#0, %lo2, %hi2 : index, index, index
    }
    %holes = scf.for %e = %c0 to %cells step %c1 iter_args(%b = %r#0) -> (index) {
      %n = memref.load %cover[%e] : memref<?xi32>
      %wrong = arith.cmpi ne, %n, %one : i32
      %inc = arith.index_castui %wrong : i1 to index
      %b2 = arith.addi %b, %inc : index
      scf.yield %b2 : index
    }
    %total = arith.addi %holes, %c0 : index
    memref.dealloc %cover : memref<?xi32>
    memref.dealloc %splits_of : memref<?xindex>
    return %total : index
  }

  // Violations of tile.tile_coord's order for a rows x cols grid in groups
  // of 4: tiles that map outside the grid, and cells not visited exactly
  // once.
  func.func @coord_violations(%rows: index, %cols: index) -> index {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %cells = arith.muli %rows, %cols : index
    %seen = memref.alloc(%cells) : memref<?xi32>
    scf.for %e = %c0 to %cells step %c1 {
      memref.store %zero, %seen[%e] : memref<?xi32>
    }
    %outside = scf.for %t = %c0 to %cells step %c1 iter_args(%b = %c0) -> (index) {
      %row, %col = tile.tile_coord %t in [%rows, %cols] group 4
      %in_rows = arith.cmpi ult, %row, %rows : index
      %in_cols = arith.cmpi ult, %col, %cols : index
      %in = arith.andi %in_rows, %in_cols : i1
      %b2 = scf.if %in -> (index) {
        %base = arith.muli %row, %cols : index
        %cell = arith.addi %base, %col : index
        %old = memref.load %seen[%cell] : memref<?xi32>
        %new = arith.addi %old, %one : i32
        memref.store %new, %seen[%cell] : memref<?xi32>
        scf.yield %b : index
      } else {
        %next = arith.addi %b, %c1 : index
        scf.yield %next : index
      }
      scf.yield %b2 : index
    }
    %total = scf.for %e = %c0 to %cells step %c1 iter_args(%b = %outside) -> (index) {
      %n = memref.load %seen[%e] : memref<?xi32>
      %wrong = arith.cmpi ne, %n, %one : i32
      %inc = arith.index_castui %wrong : i1 to index
      %b2 = arith.addi %b, %inc : index
      scf.yield %b2 : index
    }
    memref.dealloc %seen : memref<?xi32>
    return %total : index
  }

  func.func @print(%value: index) {
    %v = arith.index_cast %value : index to i64
    func.call @printI64(%v) : (i64) -> ()
    func.call @printNewline() : () -> ()
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c40 = arith.constant 40 : index
    %c13 = arith.constant 13 : index
    %c5 = arith.constant 5 : index
    // tiles 1..39, iters 1, 4, 7, 10, 13, workers 1..12: 2340 cases, and
    // how many of them stream-K shares tiles in.
    %cases:4 = scf.for %t = %c1 to %c40 step %c1 iter_args(%n = %c0, %bad = %c0, %sk = %c0, %sp = %c0) -> (index, index, index, index) {
      %r:4 = scf.for %w = %c1 to %c13 step %c1 iter_args(%n1 = %n, %b1 = %bad, %sk1 = %sk, %sp1 = %sp) -> (index, index, index, index) {
        %rem = arith.remui %t, %w : index
        %more = arith.cmpi ugt, %t, %w : index
        %partial = arith.cmpi ne, %rem, %c0 : index
        %rem2 = arith.muli %rem, %c2 : index
        %idle = arith.cmpi ule, %rem2, %w : index
        %e1 = arith.andi %more, %partial : i1
        %e2 = arith.andi %e1, %idle : i1
        %engages = arith.index_castui %e2 : i1 to index
        %e3 = arith.andi %partial, %idle : i1
        %r2:4 = scf.for %ki = %c0 to %c5 step %c1 iter_args(%n2 = %n1, %b2 = %b1, %sk2 = %sk1, %sp2 = %sp1) -> (index, index, index, index) {
          %k2 = arith.muli %ki, %c3 : index
          %k = arith.addi %k2, %c1 : index
          %v = func.call @violations(%t, %k, %w) : (index, index, index) -> index
          %vs = func.call @violations_split_k(%t, %k, %w) : (index, index, index) -> index
          %n3 = arith.addi %n2, %c1 : index
          %vv = arith.addi %v, %vs : index
          %b3 = arith.addi %b2, %vv : index
          %sk3 = arith.addi %sk2, %engages : index
          %two_slices = arith.cmpi uge, %k, %c2 : index
          %e4 = arith.andi %e3, %two_slices : i1
          %splitting = arith.index_castui %e4 : i1 to index
          %sp3 = arith.addi %sp2, %splitting : index
          scf.yield %n3, %b3, %sk3, %sp3 : index, index, index, index
        }
        scf.yield %r2#0, %r2#1, %r2#2, %r2#3 : index, index, index, index
      }
      scf.yield %r#0, %r#1, %r#2, %r#3 : index, index, index, index
    }
    func.call @print(%cases#0) : (index) -> ()
    func.call @print(%cases#2) : (index) -> ()
    func.call @print(%cases#3) : (index) -> ()
    func.call @print(%cases#1) : (index) -> ()
    // Large cases on 132 workers: 2040 tiles of 128 iterations (stream-K
    // shares the last 192) and 2048 (a last wave of 68: data-parallel).
    %w132 = arith.constant 132 : index
    %k128 = arith.constant 128 : index
    %t2040 = arith.constant 2040 : index
    %t2048 = arith.constant 2048 : index
    %v1 = func.call @violations(%t2040, %k128, %w132) : (index, index, index) -> index
    %v2 = func.call @violations(%t2048, %k128, %w132) : (index, index, index) -> index
    %v3 = func.call @violations_split_k(%t2040, %k128, %w132) : (index, index, index) -> index
    %v12a = arith.addi %v1, %v2 : index
    %v12 = arith.addi %v12a, %v3 : index
    func.call @print(%v12) : (index) -> ()
    // tile.tile_coord over grids of 1..12 x 1..12 tiles: 144 grids.
    %grids = scf.for %rows = %c1 to %c13 step %c1 iter_args(%b = %c0) -> (index) {
      %row_bad = scf.for %cols = %c1 to %c13 step %c1 iter_args(%b1 = %b) -> (index) {
        %v = func.call @coord_violations(%rows, %cols) : (index, index) -> index
        %b2 = arith.addi %b1, %v : index
        scf.yield %b2 : index
      }
      scf.yield %row_bad : index
    }
    func.call @print(%grids) : (index) -> ()
    return
  }
}
