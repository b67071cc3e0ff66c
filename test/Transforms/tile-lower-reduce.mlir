// tile-lower-tile-ops on tile.reduce: a warp reduction is one
// gpu.subgroup_reduce; warpgroup and block reductions pass the warps'
// partials through a shared scratch (one per kernel, scope and type)
// between two barriers. tile-lower-subgroup-reduce then makes the warp
// reductions butterflies of gpu.shuffle xor, or leaves whole-warp i32 ones
// to redux.sync.
// RUN: tile-opt %s -split-input-file -tile-lower-tile-ops | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-lower-tile-ops -tile-lower-subgroup-reduce="redux=true" | FileCheck %s --check-prefix=SHFL

// CHECK-LABEL: gpu.func @warp
// CHECK-NOT: tile.shared_alloc
// CHECK: gpu.subgroup_reduce add %{{.*}} uniform {tile.reduce_scope = #tile<reduce_scope warp>} : (f32) -> f32
// CHECK: gpu.subgroup_reduce maximumf %{{.*}} uniform cluster(size = 4) {tile.reduce_scope = #tile<reduce_scope warp>} : (f32) -> f32
// `lanes 32` is the whole warp.
// CHECK: gpu.subgroup_reduce add %{{.*}} uniform {tile.reduce_scope = #tile<reduce_scope warp>} : (i32) -> i32
// CHECK-NOT: gpu.barrier
// The butterflies: xor 1, 2, 4, 8, 16 over 32 lanes; xor 1, 2 for quads;
// the i32 sum is left to redux.sync.
// SHFL-LABEL: gpu.func @warp
// SHFL: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : f32
// SHFL: arith.addf
// SHFL: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32{{.*}} : f32
// SHFL: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32{{.*}} : f32
// SHFL: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32{{.*}} : f32
// SHFL: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32{{.*}} : f32
// SHFL: gpu.shuffle xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// SHFL: arith.maximumf
// SHFL: gpu.shuffle xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// SHFL: arith.maximumf
// SHFL-NOT: gpu.shuffle
// SHFL: gpu.subgroup_reduce add %{{.*}} uniform {{.*}} : (i32) -> i32
gpu.module @k {
  gpu.func @warp(%x: f32, %i: i32, %out: memref<4xf32>, %iout: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = tile.reduce add %x over warp : f32
    memref.store %s, %out[%c0] : memref<4xf32>
    %m = tile.reduce maximumf %x over warp, lanes 4 : f32
    memref.store %m, %out[%c1] : memref<4xf32>
    %r = tile.reduce add %i over warp, lanes 32 : i32
    memref.store %r, %iout[%c0] : memref<1xi32>
    gpu.return
  }
}

// -----

// Warpgroup: slot 4 w + (warp mod 4) = thread / 32, named barrier 1 + w of
// 128 threads before and after the write, the partials in warp order.
// CHECK-LABEL: gpu.func @warpgroup
// CHECK: %[[SCRATCH:.*]] = tile.shared_alloc {tile.reduce_scratch = #tile<reduce_scope warpgroup>} : memref<32xf32, 3>
// CHECK-NOT: tile.shared_alloc
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[PART:.*]] = gpu.subgroup_reduce maxnumf %{{.*}} uniform {tile.reduce_scope = #tile<reduce_scope warpgroup>} : (f32) -> f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: %[[WG:.*]] = arith.divui %[[TID]], %c128
// CHECK: %[[ID1:.*]] = arith.addi %[[WG]], %c1
// CHECK: %[[ID:.*]] = arith.index_cast %[[ID1]] : index to i32
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[PART]], %[[SCRATCH]][%[[WARP]]]
// CHECK: nvvm.barrier id = %[[ID]] number_of_threads = %c128_i32
// CHECK: %[[BASE:.*]] = arith.muli %[[WG]], %c4
// CHECK-COUNT-4: memref.load %[[SCRATCH]]
// CHECK: %[[A:.*]] = arith.maxnumf
// CHECK: %[[B:.*]] = arith.maxnumf
// CHECK: arith.maxnumf %[[A]], %[[B]] : f32
// The second reduction shares the scratch.
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
gpu.module @k {
  gpu.func @warpgroup(%x: f32, %out: memref<2xf32>) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tile.reduce maxnumf %x over warpgroup : f32
    memref.store %m, %out[%c0] : memref<2xf32>
    %s = tile.reduce maxnumf %m over warpgroup : f32
    memref.store %s, %out[%c1] : memref<2xf32>
    gpu.return
  }
}

// -----

// Block of 3 warps: gpu.barrier, lane 0 writes scratch[warp], gpu.barrier,
// lane l reads scratch[l], the identity past warp 2, a warp reduction.
// CHECK-LABEL: gpu.func @block96
// CHECK: %[[SCRATCH:.*]] = tile.shared_alloc {tile.reduce_scratch = #tile<reduce_scope block>} : memref<32xf32, 3>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: %[[PART:.*]] = gpu.subgroup_reduce minimumf %{{.*}} uniform {tile.reduce_scope = #tile<reduce_scope block>} : (f32) -> f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: gpu.barrier
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[PART]], %[[SCRATCH]][%[[WARP]]]
// CHECK: gpu.barrier
// CHECK: %[[V:.*]] = memref.load %[[SCRATCH]][%[[LANE]]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[LANE]], %c3
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: %[[SEL:.*]] = arith.select %[[IN]], %[[V]], %[[INF]] : f32
// CHECK: gpu.subgroup_reduce minimumf %[[SEL]] uniform : (f32) -> f32
// SHFL-LABEL: gpu.func @block96
// SHFL-NOT: gpu.subgroup_reduce
// SHFL: gpu.barrier
gpu.module @k {
  gpu.func @block96(%x: f32, %out: memref<1xf32>) kernel
      attributes {known_block_size = array<i32: 96, 1, 1>} {
    %c0 = arith.constant 0 : index
    %m = tile.reduce minimumf %x over block : f32
    memref.store %m, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// A 2-D block: the linear thread id; identities of the integer kinds.
// CHECK-LABEL: gpu.func @block2d
// CHECK: %[[X:.*]] = gpu.thread_id x
// CHECK: %[[Y:.*]] = gpu.thread_id y
// CHECK: %[[Z:.*]] = gpu.thread_id z
// CHECK: %[[DX:.*]] = gpu.block_dim x
// CHECK: %[[DY:.*]] = gpu.block_dim y
// CHECK: %[[YZ:.*]] = arith.muli %[[DY]], %[[Z]]
// CHECK: %[[P:.*]] = arith.addi %[[Y]], %[[YZ]]
// CHECK: %[[Q:.*]] = arith.muli %[[DX]], %[[P]]
// CHECK: arith.addi %[[X]], %[[Q]]
// CHECK: arith.cmpi ult, %{{.*}}, %c4
// CHECK: arith.constant 2147483647 : i32
// CHECK: gpu.subgroup_reduce minsi
// CHECK: arith.constant -1 : i32
// CHECK: gpu.subgroup_reduce minui
// CHECK: arith.constant 0 : i32
// CHECK: gpu.subgroup_reduce maxui
// CHECK: arith.constant 1 : i32
// CHECK: gpu.subgroup_reduce mul
// CHECK: arith.constant 0x7FC00000 : f32
// CHECK: gpu.subgroup_reduce maxnumf
gpu.module @k {
  gpu.func @block2d(%i: i32, %x: f32, %out: memref<4xi32>, %fout: memref<1xf32>) kernel
      attributes {known_block_size = array<i32: 32, 4, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %a = tile.reduce minsi %i over block : i32
    memref.store %a, %out[%c0] : memref<4xi32>
    %b = tile.reduce minui %i over block : i32
    memref.store %b, %out[%c1] : memref<4xi32>
    %c = tile.reduce maxui %i over block : i32
    memref.store %c, %out[%c2] : memref<4xi32>
    %d = tile.reduce mul %i over block : i32
    memref.store %d, %out[%c3] : memref<4xi32>
    %e = tile.reduce maxnumf %x over block : f32
    memref.store %e, %fout[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// Unknown block size: the warps counted from gpu.block_dim, rounded up.
// CHECK-LABEL: gpu.func @dynamic
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: %[[DX:.*]] = gpu.block_dim x
// CHECK: %[[DY:.*]] = gpu.block_dim y
// CHECK: %[[DZ:.*]] = gpu.block_dim z
// CHECK: %[[XY:.*]] = arith.muli %[[DX]], %[[DY]]
// CHECK: %[[ALL:.*]] = arith.muli %[[XY]], %[[DZ]]
// CHECK: %[[UP:.*]] = arith.addi %[[ALL]], %c31
// CHECK: %[[WARPS:.*]] = arith.divui %[[UP]], %c32
// CHECK: arith.cmpi ult, %{{.*}}, %[[WARPS]]
// CHECK: arith.select
gpu.module @k {
  gpu.func @dynamic(%x: f32, %out: memref<1xf32>) kernel {
    %c0 = arith.constant 0 : index
    %m = tile.reduce add %x over block : f32
    memref.store %m, %out[%c0] : memref<1xf32>
    gpu.return
  }
}

// -----

// A block of one warp is one warp reduction; 32 warps need no identity.
// CHECK-LABEL: gpu.func @one_warp
// CHECK-NOT: tile.shared_alloc
// CHECK-NOT: gpu.barrier
// CHECK: gpu.subgroup_reduce add %{{.*}} uniform {tile.reduce_scope = #tile<reduce_scope block>} : (i32) -> i32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @full_block
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK-NOT: arith.select
// CHECK: gpu.subgroup_reduce add %{{.*}} uniform : (i32) -> i32
// The i32 sums are redux.sync candidates: left as they are.
// SHFL-LABEL: gpu.func @one_warp
// SHFL-NOT: gpu.shuffle
// SHFL: gpu.subgroup_reduce add
gpu.module @k {
  gpu.func @one_warp(%i: i32, %out: memref<1xi32>) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %s = tile.reduce add %i over block : i32
    memref.store %s, %out[%c0] : memref<1xi32>
    gpu.return
  }
  gpu.func @full_block(%i: i32, %out: memref<1xi32>) kernel
      attributes {known_block_size = array<i32: 1024, 1, 1>} {
    %c0 = arith.constant 0 : index
    %s = tile.reduce add %i over block : i32
    memref.store %s, %out[%c0] : memref<1xi32>
    gpu.return
  }
}

// -----

// A gpu.launch body: the scratch at the start of the body.
// CHECK-LABEL: func.func @launch
// CHECK: gpu.launch
// CHECK-NEXT: tile.shared_alloc {tile.reduce_scratch = #tile<reduce_scope block>} : memref<32xf32, 3>
// CHECK: arith.cmpi ult, %{{.*}}, %c5
func.func @launch(%x: f32, %out: memref<1xf32>) {
  %c1 = arith.constant 1 : index
  %c160 = arith.constant 160 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c160, %sy = %c1, %sz = %c1) {
    %c0 = arith.constant 0 : index
    %r = tile.reduce add %x over block : f32
    memref.store %r, %out[%c0] : memref<1xf32>
    gpu.terminator
  }
  return
}
