// tile.reduce: round trip of each scope, lane groups, integer and float
// kinds, in a gpu.func and in a gpu.launch body.
// RUN: tile-opt %s | FileCheck %s
// RUN: tile-opt %s | tile-opt | FileCheck %s

// CHECK-LABEL: gpu.func @reductions
gpu.module @k {
  gpu.func @reductions(%x: f32, %k: i32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    // CHECK: tile.reduce add %{{.*}} over warp : f32
    %s = tile.reduce add %x over warp : f32
    // CHECK: tile.reduce maximumf %{{.*}} over warp, lanes 4 : f32
    %m = tile.reduce maximumf %x over warp, lanes 4 : f32
    // CHECK: tile.reduce minnumf %{{.*}} over warp, lanes 32 : f32
    %n = tile.reduce minnumf %x over warp, lanes 32 : f32
    // CHECK: tile.reduce add %{{.*}} over warpgroup : f32
    %w = tile.reduce add %x over warpgroup : f32
    // CHECK: tile.reduce add %{{.*}} over block : f32
    %b = tile.reduce add %x over block : f32
    // CHECK: tile.reduce maxsi %{{.*}} over block : i32
    %i = tile.reduce maxsi %k over block : i32
    // CHECK: tile.reduce xor %{{.*}} over warp, lanes 2 : i32
    %j = tile.reduce xor %k over warp, lanes 2 : i32
    // CHECK: tile.reduce mul %{{.*}} over warpgroup : i32
    %l = tile.reduce mul %k over warpgroup : i32
    gpu.return
  }
}

// CHECK-LABEL: func.func @launch
func.func @launch(%x: f32) {
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c96, %sy = %c1, %sz = %c1) {
    // CHECK: tile.reduce minimumf %{{.*}} over block : f32
    %r = tile.reduce minimumf %x over block : f32
    gpu.terminator
  }
  return
}
