#!/usr/bin/env bash
#===- sanitize-gemms.sh - compute-sanitizer on the GEMM examples -----------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). Runs memcheck, racecheck and synccheck on both GEMM
# examples (the Hopper one for A B^T and A B, and its small-M kernel at
# M = 16) at a small shape (SIZE, default 512: M = N = K), one launch each,
# every element of C checked, and prints each tool's summary line.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
SIZE="${SIZE:-512}"
WORK="$(mktemp -d)"

small_main() { # example, extra @run arguments and their types
  python3 "$ROOT/scripts/gemm-main.py" "$ROOT/examples/$1.mlir" f16 "$SIZE" "$SIZE" "$SIZE" 1 false "$2" "$3"
}

small_main gemm_sm90 ", %nt" ", i1" > "$WORK/gemm_sm90_nt.mlir"
small_main gemm_sm90 ", %nn" ", i1" > "$WORK/gemm_sm90_nn.mlir"
small_main gemm_sm90_multicast "" "" > "$WORK/gemm_sm90_multicast.mlir"
# The small-M (decode) kernel: M = 16.
python3 "$ROOT/scripts/gemm-main.py" "$ROOT/examples/gemm_sm90.mlir" f16 16 "$SIZE" "$SIZE" 1 false \
  ", %nt" ", i1" > "$WORK/gemm_sm90_small_m.mlir"
small_main hgemm_sm80 ", %nn" ", i1" > "$WORK/hgemm_sm80.mlir"
for example in gemm_sm90_nt gemm_sm90_nn gemm_sm90_multicast gemm_sm90_small_m hgemm_sm80; do
  for tool in memcheck racecheck synccheck; do
    out="$(compute-sanitizer --tool "$tool" "$TILE_RUN" "$WORK/$example.mlir" --chip=sm_90a 2>&1)"
    echo "$example $tool: $(echo "$out" | grep -E "mismatches" | tr -d '\n') | $(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tr '\n' ' ')"
  done
done
rm -rf "$WORK"
