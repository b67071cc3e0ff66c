// Found by scripts/fuzz: a stride of -2^63 overflowed the complement's
// running product to 0 (SIGFPE); a thread layout with overlapping modes
// gave composition a zero extent (SIGFPE in the tile.copy verifier).
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-test-layout-algebra

func.func private @complement() attributes {
    tile.test.op = "complement",
    // expected-error @below {{invalid layout: stride (-9223372036854775808,4) is not in [-2^31, 2^31]}}
    tile.test.args = [#tile.layout<(2,3):(-9223372036854775808,4)>],
    tile.test.cotarget = 24}

// -----

gpu.module @m {
  gpu.func @zero_fill(%a: memref<?x?xf16>, %i: index, %rows: index, %cols: index) kernel {
    %s = tile.shared_alloc : memref<64x32xf16, 3>
    // expected-error @below {{thread/value layouts do not compose}}
    tile.copy %a[%i, %i] to %s bounds [%rows, %cols] {threads = #tile.layout<(32,4):(4,2)>, values = #tile.layout<(1,8)>}
        : memref<?x?xf16> to memref<64x32xf16, 3>
    gpu.return
  }
}
