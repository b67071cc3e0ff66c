// tile.tile_coord, tile.work_count, tile.work_unit and split_k_reduce's
// slots: round trip and T-TILE-7.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @persistent_loop
// CHECK: %[[UNITS:.*]] = tile.work_count stream_k tiles %{{.*}} iters %{{.*}} worker %{{.*}} of %{{.*}}
// CHECK: %tile, %first, %count, %fixup, %split, %splits = tile.work_unit %{{.*}} of stream_k tiles %{{.*}} iters %{{.*}} worker %{{.*}} of %{{.*}}
// CHECK: tile.tile_coord %tile in [%{{.*}}, %{{.*}}] group 4
// CHECK: tile.split_k_reduce %{{.*}}, %{{.*}}, %{{.*}}, tile %fixup, split %split of %splits slots %{{.*}} :
// CHECK: tile.work_count data_parallel tiles
func.func @persistent_loop(%tiles_m: index, %tiles_n: index, %iters: index,
                           %cta: index, %ctas: index, %acc: vector<128xf32>,
                           %ws: memref<?x128xf32>, %counters: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  %units = tile.work_count stream_k tiles %tiles iters %iters worker %cta of %ctas
  scf.for %i = %c0 to %units step %c1 {
    %tile, %first, %count, %fixup, %split, %splits = tile.work_unit %i of stream_k
        tiles %tiles iters %iters worker %cta of %ctas
    %row, %col = tile.tile_coord %tile in [%tiles_m, %tiles_n] group 4
    %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %fixup,
        split %split of %splits slots %c2 : vector<128xf32>, memref<?x128xf32>, memref<?xi32>
  }
  %dp = tile.work_count data_parallel tiles %tiles iters %iters worker %cta of %ctas
  return
}

// -----

func.func @empty_group(%t: index, %rows: index, %cols: index) {
  // expected-error @+1 {{a group holds at least one tile row, got group 0 (T-TILE-7)}}
  %row, %col = tile.tile_coord %t in [%rows, %cols] group 0
  return
}

// -----

func.func @unknown_schedule(%t: index, %k: index, %w: index) {
  // expected-error @+1 {{one of the following enum values for attribute 'schedule' [data_parallel, stream_k, split_k]}}
  %units = tile.work_count stream_k_2 tiles %t iters %k worker %w of %w
  return
}

// -----

func.func @too_few_slots(%acc: vector<8xf32>, %ws: memref<?x8xf32>, %counters: memref<?xi32>,
                         %t: index, %s: index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{a tile's 3 splits need as many workspace slots, got slots 2 (T-TILE-6)}}
  %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %t, split %s of %c3 slots %c2
      : vector<8xf32>, memref<?x8xf32>, memref<?xi32>
  return
}
