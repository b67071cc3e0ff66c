#!/usr/bin/env bash
#===- sanitize-gemms.sh - compute-sanitizer on the GEMM examples -----------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). Runs memcheck, racecheck and synccheck on both GEMM
# examples at a small shape (SIZE, default 512: M = N = K), one launch each,
# every element of C checked, and prints each tool's summary line.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
SIZE="${SIZE:-512}"
WORK="$(mktemp -d)"

small_main() { # example, extra @run arguments and their types
  python3 - "$ROOT/examples/$1.mlir" "$SIZE" "$2" "$3" <<'PY'
import sys
path, size, args, types = sys.argv[1:]
text = open(path).read()
text = text[:text.index("  func.func @main() {")]
print(text + f"""  func.func @main() {{
    %reps = arith.constant 1 : index
    %sampled = arith.constant false
    %nn = arith.constant false
    %size = arith.constant {size} : index
    %bad = func.call @run(%size, %size, %size, %reps, %sampled{args})
        : (index, index, index, index, i1{types}) -> i32
    vector.print str "mismatches: "
    vector.print %bad : i32
    return
  }}
}}""")
PY
}

small_main gemm_sm90 "" "" > "$WORK/gemm_sm90.mlir"
small_main hgemm_sm80 ", %nn" ", i1" > "$WORK/hgemm_sm80.mlir"
for example in gemm_sm90 hgemm_sm80; do
  for tool in memcheck racecheck synccheck; do
    out="$(compute-sanitizer --tool "$tool" "$TILE_RUN" "$WORK/$example.mlir" --chip=sm_90a 2>&1)"
    echo "$example $tool: $(echo "$out" | grep -E "mismatches" | tr -d '\n') | $(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tr '\n' ' ')"
  done
done
rm -rf "$WORK"
