#!/usr/bin/env bash
#===- gemm.sh - tile GEMMs vs cuBLAS and Triton on the GPU machine --------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools to
# /tmp/tile-device, or with TILE_BIN_DIR / tile-opt on PATH). Prints ptxas'
# registers, spills and shared memory of the GEMM examples' kernels (f16,
# sm_90a), then runs bench/gemm.py with its arguments: every kernel checked
# and timed against cuBLAS and Triton by kernel time (CUPTI) and by user path
# (CUDA events around the Python calls); TYPES and SHAPES as there; with $OUT
# set, $OUT/gemm.csv and $OUT/gemm.png.
#
#   bash bench/gemm.sh [gemm.py options, e.g. --shapes 4096x4096x4096]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${TILE_BIN_DIR:-$(dirname "$(command -v tile-opt || echo /tmp/tile-device/bin/tile-opt)")}"
export PATH="/usr/local/cuda/bin:$PATH"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

for example in gemm_sm90 gemm_sm90_multicast hgemm_sm80; do
  "$BIN/tile-opt" "$ROOT/examples/$example.mlir" --tile-to-ptx-pipeline="chip=sm_90a" |
    "$BIN/tile-translate" --extract-ptx > "$WORK/$example.ptx"
  echo "ptxas $example: $(ptxas -arch=sm_90a -v "$WORK/$example.ptx" -o /dev/null 2>&1 |
    grep -E "Used|spill" | tr -s ' ' | tr '\n' ' ')"
done

export TILE_BIN_DIR="$BIN"
if [ -z "${TILE_RUNTIME_LIB:-}" ] && [ -f "$BIN/../lib/libtile_runtime.so" ]; then
  export TILE_RUNTIME_LIB="$BIN/../lib/libtile_runtime.so"
fi
PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" python3 "$ROOT/bench/gemm.py" "$@"
