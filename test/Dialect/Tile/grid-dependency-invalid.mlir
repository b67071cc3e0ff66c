// RUN: tile-opt %s -split-input-file -verify-diagnostics

// T-PDL-1: the wait is a kernel's, directly in its body.
func.func @not_a_kernel() {
  // expected-error @below {{'tile.grid_dependency_wait' op expected directly in the body of a gpu.func kernel or a gpu.launch (its entry block, not inside a region), so that every thread waits (T-PDL-1)}}
  tile.grid_dependency_wait
  return
}

// -----

// T-PDL-1: not under a branch (threads that skip it would not wait).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @branch(%flag: i1) kernel {
      scf.if %flag {
        // expected-error @below {{'tile.grid_dependency_wait' op expected directly in the body of a gpu.func kernel or a gpu.launch (its entry block, not inside a region), so that every thread waits (T-PDL-1)}}
        tile.grid_dependency_wait
      }
      gpu.return
    }
  }
}

// -----

// T-PDL-1: once.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @twice() kernel {
      tile.grid_dependency_wait
      // expected-error @below {{'tile.grid_dependency_wait' op expected once in a kernel; the first is at}}
      tile.grid_dependency_wait
      gpu.return
    }
  }
}

// -----

// T-PDL-2: a global load before the wait may read what the previous grid
// still writes.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @load_first(%in: memref<?xf32>, %out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      // expected-note @below {{the access}}
      %x = memref.load %in[%c0] : memref<?xf32>
      // expected-error @below {{'tile.grid_dependency_wait' op expected no access to global memory before the wait: 'memref.load' may read what the previous grid still writes or write what it reads; only shared memory, barriers and L2 prefetches go before it (T-PDL-2)}}
      tile.grid_dependency_wait
      memref.store %x, %out[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// T-PDL-2: a TMA load into shared memory before the wait, under a branch.
!d = !tile.tma_desc<memref<?x?xbf16>, box = [64, 64], swizzle = b128>
!bars = !tile.mbarrier<count = 1>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @tma_first(%w: !d) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %tid = gpu.thread_id x
      %stage = tile.shared_alloc dynamic {swizzle = #tile.swizzle<b128>} : memref<64x64xbf16, 3>
      %bars = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        tile.mbarrier_init %bars[%c0], %one : !bars
        // expected-note @below {{the access}}
        tile.tma_copy %w[%c0, %c0] to %stage[], %bars[%c0] : !d, memref<64x64xbf16, 3>, !bars
      }
      // expected-error @below {{'tile.grid_dependency_wait' op expected no access to global memory before the wait: 'tile.tma_copy'}}
      tile.grid_dependency_wait
      gpu.return
    }
  }
}

// -----

// T-PDL-2: a global store before the wait may overwrite what the previous
// grid still reads.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @store_first(%out: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %zero = arith.constant 0.0 : f32
      // expected-note @below {{the access}}
      memref.store %zero, %out[%c0] : memref<?xf32>
      // expected-error @below {{'tile.grid_dependency_wait' op expected no access to global memory before the wait: 'memref.store'}}
      tile.grid_dependency_wait
      gpu.return
    }
  }
}

// -----

// T-PDL-2: inline assembly with side effects may address global memory
// through plain integers.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @asm_first(%address: i64) kernel {
      // expected-note @below {{the access}}
      %x = llvm.inline_asm has_side_effects "ld.global.f32 $0, [$1];", "=f,l" %address : (i64) -> f32
      // expected-error @below {{'tile.grid_dependency_wait' op expected no access to global memory before the wait: 'llvm.inline_asm'}}
      tile.grid_dependency_wait
      gpu.return
    }
  }
}
