#!/usr/bin/env bash
#===- gemm.sh - tile GEMMs vs cuBLAS on the GPU machine -------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). In one run, for each square size (default 2048
# 4096 8192; override with SIZES="..."):
#  - the Hopper GEMM of examples/gemm_sm90.mlir (C = A B^T: TMA,
#    warp-specialized wgmma),
#  - the Ampere-style hgemm of examples/hgemm_sm80.mlir (C = A B: cp.async +
#    ldmatrix + mma.sync),
#  - cuBLAS through torch.matmul on the same layouts, types and input values,
# all f16 in, f32 accumulation, f16 out, each the median of 20 timed launches
# (tile-run --time-kernels; CUDA events after 5 warm-up runs for cuBLAS). The
# examples' @main is replaced by one that runs @run at the size 20 times and
# checks 64 sampled elements. Prints TFLOP/s and ratios to cuBLAS, and ptxas'
# registers/spills/shared memory of the kernels.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
BIN="$(dirname "$TILE_RUN")"
SIZES="${SIZES:-2048 4096 8192}"
WORK="$(mktemp -d)"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
for example in gemm_sm90 hgemm_sm80; do
  "$BIN/tile-opt" "$ROOT/examples/$example.mlir" --tile-to-ptx-pipeline="chip=sm_90a" |
    "$BIN/tile-translate" --extract-ptx > "$WORK/$example.ptx"
  echo "ptxas $example: $(ptxas -arch=sm_90a -v "$WORK/$example.ptx" -o /dev/null 2>&1 |
    grep -E "Used|spill" | tr -s ' ' | tr '\n' ' ')"
done

bench_main() { # example, size, extra @run arguments and their types
  python3 - "$ROOT/examples/$1.mlir" "$2" "$3" "$4" <<'PY'
import sys
path, size, args, types = sys.argv[1:]
text = open(path).read()
text = text[:text.index("  func.func @main() {")]
print(text + f"""  func.func @main() {{
    %reps = arith.constant 20 : index
    %sampled = arith.constant true
    %size = arith.constant {size} : index
    %bad = func.call @run(%size, %size, %size, %reps, %sampled{args})
        : (index, index, index, index, i1{types}) -> i32
    vector.print str "sampled mismatches: "
    vector.print %bad : i32
    return
  }}
}}""")
PY
}

cublas() { # size, layout (nt: A B^T, nn: A B) -> median ms
  python3 - "$1" "$2" <<'PY'
import sys, torch
n, layout = int(sys.argv[1]), sys.argv[2]
# The tile benchmarks' inputs: ((p i + q j) mod 5) - 2.
def fill(p, q):
    i = torch.arange(n, device="cuda").view(-1, 1)
    j = torch.arange(n, device="cuda").view(1, -1)
    return ((p * i + q * j) % 5 - 2).to(torch.float16)
a = fill(3, 7)
if layout == "nt":
    b = fill(2, 3)
    f = lambda: a @ b.t()
else:
    b = fill(7, 2)
    f = lambda: a @ b
for _ in range(5):
    f()
times = []
for _ in range(20):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); f(); end.record()
    torch.cuda.synchronize()
    times.append(start.elapsed_time(end))
times.sort()
print(f"{times[len(times) // 2]:.4f}")
PY
}

tile() { # file, kernel name, check string -> median ms
  local out
  out="$("$TILE_RUN" "$1" --chip=sm_90a --time-kernels)"
  echo "$out" | grep -q "$3" || { echo "$out" >&2; echo "$2 is wrong" >&2; exit 1; }
  echo "$out" | sed -n "s/^kernel $2: .* median \([0-9.]*\) ms.*/\1/p"
}

report() { # label, size, tile ms, cublas ms
  python3 - "$@" <<'PY'
import sys
label, n, tile, cublas = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
tf = lambda ms: 2 * n ** 3 / (ms * 1e-3) / 1e12
print(f"{label:28s} {n:5d}^3  tile {tf(tile):6.1f} TFLOP/s  cuBLAS {tf(cublas):6.1f} TFLOP/s  ratio {cublas / tile:.3f}")
PY
}

for size in $SIZES; do
  bench_main gemm_sm90 "$size" "" "" > "$WORK/gemm-$size.mlir"
  t="$(tile "$WORK/gemm-$size.mlir" gemm "sampled mismatches: 0")"
  report "sm90 warp-specialized (A B^T)" "$size" "$t" "$(cublas "$size" nt)"
  bench_main hgemm_sm80 "$size" ", %nn" ", i1" | sed 's/    %sampled = arith.constant true/&\n    %nn = arith.constant false/' > "$WORK/hgemm-$size.mlir"
  t="$(tile "$WORK/hgemm-$size.mlir" hgemm_nn "sampled mismatches: 0")"
  report "sm80 hgemm (A B)" "$size" "$t" "$(cublas "$size" nn)"
done
rm -rf "$WORK"
