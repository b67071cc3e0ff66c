// Runs examples/cp_async_copy.mlir's kernel on the GPU through the CUDA
// driver (tools/ptx-launch.py, ctypes) and compares the copied matrix with
// the input. UNSUPPORTED without a CUDA GPU and driver.
//
// RUN: tile-opt %S/../../../examples/cp_async_copy.mlir --tile-to-ptx-pipeline="chip=sm_80" \
// RUN:   | tile-translate --extract-ptx -o %t.ptx
// RUN: %python %S/../../../scripts/ptx-copy-check.py %t.ptx copy_tile --rows 1024 --cols 64 --dtype f16 --block 128 --rows-per-block 64
