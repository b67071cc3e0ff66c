// T-SMEM-4: the static shared memory of a kernel (its static tile.shared_alloc
// buffers at their alignments, its mbarriers, workgroup attributions and
// shared memref.globals) fits in the 48 KB CUDA allows; more must be dynamic.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -tile-check-target

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{kernel @k takes 65552 bytes of static shared memory (65536 in static tile.shared_alloc buffers, 16 in mbarriers, attributions, globals and the scratch of reductions, with alignment padding), more than the 49152 bytes (48 KB) a kernel may have; allocate the large buffers with `tile.shared_alloc dynamic` and launch with dynamic_shared_memory_size (T-SMEM-4)}}
    gpu.func @k() kernel {
      // expected-note @below {{largest static buffer here (32768 bytes)}}
      %a = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf16, 3>
      %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<2x128x64xf16, 3>
      %bars = tile.mbarrier_alloc : !tile.mbarrier<count = 2>
      // Dynamic buffers do not count.
      %c = tile.shared_alloc dynamic : memref<16384xf32, 3>
      gpu.return
    }
  }
}

// -----

// A gpu.launch body, with a workgroup attribution.
module attributes {gpu.container_module} {
  func.func @launch() {
    %c1 = arith.constant 1 : index
    // expected-error @below {{the gpu.launch kernel takes 53248 bytes of static shared memory (36864 in static tile.shared_alloc buffers, 16384 in mbarriers, attributions, globals and the scratch of reductions, with alignment padding), more than the 49152 bytes (48 KB)}}
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
               workgroup(%w : memref<4096xf32, 3>) {
      // expected-note @below {{largest static buffer here (36864 bytes)}}
      %a = tile.shared_alloc : memref<9216xf32, 3>
      gpu.terminator
    }
    return
  }
}

// -----

// 48 KB in all: accepted.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      %a = tile.shared_alloc : memref<8192xf32, 3>
      %b = tile.shared_alloc : memref<4096xf32, 3>
      gpu.return
    }
  }
}

// -----

// A block reduction's scratch (32 floats, added by tile-lower-tile-ops)
// counts: with a 48 KB buffer the kernel is over.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{kernel @reduce takes 49280 bytes of static shared memory (49152 in static tile.shared_alloc buffers, 128 in mbarriers, attributions, globals and the scratch of reductions, with alignment padding)}}
    gpu.func @reduce(%x: f32) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      // expected-note @below {{largest static buffer here (49152 bytes)}}
      %a = tile.shared_alloc : memref<12288xf32, 3>
      %s = tile.reduce add %x over block : f32
      %t = tile.reduce maximumf %x over block : f32
      gpu.return
    }
  }
}
