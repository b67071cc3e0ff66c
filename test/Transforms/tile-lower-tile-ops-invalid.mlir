// RUN: tile-opt %s -tile-lower-tile-ops -split-input-file -verify-diagnostics

// tile.split_k_reduce keeps its flag in a static shared allocation of the
// enclosing kernel: outside a gpu.func it cannot be lowered, and says so.
func.func @split_k_outside_a_kernel(%acc: vector<8xf32>, %ws: memref<?x8xf32>,
                                    %counters: memref<?xi32>, %i: index) {
  // expected-error @below {{must be inside a gpu.func (its shared flag is a static shared allocation)}}
  %last, %sum = tile.split_k_reduce %acc, %ws, %counters, tile %i, split %i of %i
      : vector<8xf32>, memref<?x8xf32>, memref<?xi32>
  return
}
