// tile.warp_specialize: round trip and T-WS-1..3.
// RUN: tile-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: gpu.func @ws
// CHECK: tile.warp_specialize producer(registers = 40) {
// CHECK:   memref.store
// CHECK: } consumers(2, registers = 232) {
// CHECK: ^bb0(%[[C:.*]]: index):
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[C]]]
gpu.module @k {
  gpu.func @ws(%out: memref<3xf32>) kernel
      attributes {known_block_size = array<i32: 384, 1, 1>} {
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    tile.warp_specialize producer(registers = 40) {
      memref.store %one, %out[%c2] : memref<3xf32>
    } consumers(2, registers = 232) {
    ^bb0(%consumer: index):
      memref.store %one, %out[%consumer] : memref<3xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @registers() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    // expected-error @below {{consumer register count must be a multiple of 8 in [24, 256], got 230 (T-WS-1)}}
    tile.warp_specialize producer(registers = 40) {
    } consumers(2, registers = 230) {
    ^bb0(%consumer: index):
    }
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @block_size() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    // expected-error @below {{needs its kernel's known_block_size to be [384, 1, 1] (1 producer and 2 consumer warpgroups of 128 threads), got [256, 1, 1] (T-WS-2)}}
    tile.warp_specialize producer(registers = 40) {
    } consumers(2, registers = 232) {
    ^bb0(%consumer: index):
    }
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @no_block_size() kernel {
    // expected-error @below {{needs its kernel's known_block_size to be [256, 1, 1] (1 producer and 1 consumer warpgroups of 128 threads), got none (T-WS-2)}}
    tile.warp_specialize producer(registers = 40) {
    } consumers(1, registers = 232) {
    ^bb0(%consumer: index):
    }
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @too_many_registers() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    // expected-error @below {{asks for 128 x (40 + 2 x 256) = 70656 registers, more than the 384 x 168 = 64512 its 384 threads are launched with: setmaxnreg.inc would wait forever (T-WS-3)}}
    tile.warp_specialize producer(registers = 40) {
    } consumers(2, registers = 256) {
    ^bb0(%consumer: index):
    }
    gpu.return
  }
}

// -----

// 48 + 2 x 232 fits an SM's 65536 registers but not the 384 x 168 that the
// CTA holds: the second consumer's setmaxnreg.inc hung on an H200.
gpu.module @k {
  gpu.func @registers_beyond_the_launch() kernel attributes {known_block_size = array<i32: 384, 1, 1>} {
    // expected-error @below {{asks for 128 x (48 + 2 x 232) = 65536 registers, more than the 384 x 168 = 64512 its 384 threads are launched with: setmaxnreg.inc would wait forever (T-WS-3)}}
    tile.warp_specialize producer(registers = 48) {
    } consumers(2, registers = 232) {
    ^bb0(%consumer: index):
    }
    gpu.return
  }
}

// -----

gpu.module @k {
  gpu.func @arguments() kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
    // expected-error @below {{the producer region takes no arguments and the consumer region one index (the consumer number)}}
    tile.warp_specialize producer(registers = 40) {
    } consumers(1, registers = 232) {
    }
    gpu.return
  }
}
