#!/usr/bin/env bash
#===- gemm.sh - tile GEMMs vs cuBLAS on the GPU machine -------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). In one run, for each element type (TYPES, default
# "f16 bf16"; f32 accumulation, C in the same type) and shape MxNxK (SHAPES,
# default the squares 2048/4096/8192 and the LLM-like 4096x4096x14336,
# 8192x1024x8192 and 16x4096x4096), it times
#  - the Hopper GEMM of examples/gemm_sm90.mlir (TMA, warp-specialized
#    wgmma, persistent) for C = A B^T and C = A B, and its 2x1-cluster
#    multicast variant (examples/gemm_sm90_multicast.mlir, A B^T),
#  - the Ampere-style hgemm of examples/hgemm_sm80.mlir (C = A B: cp.async +
#    ldmatrix + mma.sync; only shapes that are multiples of its 128x128x32
#    tile),
#  - cuBLAS through torch.matmul on the same layouts, types and input values,
# each the median of 20 timed launches (tile-run --time-kernels; CUDA events
# after 5 warm-up runs for cuBLAS). The examples' @main is replaced by one
# that runs @run at the shape 20 times and checks 64 sampled elements (bf16:
# the examples with f16 replaced by bf16). Prints ptxas' registers/spills/
# shared memory of the kernels and a table of TFLOP/s and ratios to cuBLAS;
# with $OUT set, writes $OUT/gemm.csv and, where matplotlib exists,
# $OUT/gemm.png.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
BIN="$(dirname "$TILE_RUN")"
TYPES="${TYPES:-f16 bf16}"
SHAPES="${SHAPES:-2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x4096x14336 8192x1024x8192 16x4096x4096}"
WORK="$(mktemp -d)"
CSV="$WORK/gemm.csv"
echo "kernel,type,m,n,k,tile_tflops,cublas_tflops,ratio" > "$CSV"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
for example in gemm_sm90 gemm_sm90_multicast hgemm_sm80; do
  "$BIN/tile-opt" "$ROOT/examples/$example.mlir" --tile-to-ptx-pipeline="chip=sm_90a" |
    "$BIN/tile-translate" --extract-ptx > "$WORK/$example.ptx"
  echo "ptxas $example: $(ptxas -arch=sm_90a -v "$WORK/$example.ptx" -o /dev/null 2>&1 |
    grep -E "Used|spill" | tr -s ' ' | tr '\n' ' ')"
done

bench_main() { # example, type, m, n, k, extra @run arguments, their types
  python3 "$ROOT/scripts/gemm-main.py" "$ROOT/examples/$1.mlir" "$2" "$3" "$4" "$5" 20 true "$6" "$7"
}

cublas() { # type, m, n, k, layout (nt: A B^T, nn: A B) -> median ms
  python3 - "$@" <<'PY'
import sys, torch
type_, m, n, k, layout = sys.argv[1], *map(int, sys.argv[2:5]), sys.argv[5]
dtype = torch.float16 if type_ == "f16" else torch.bfloat16
# The tile benchmarks' inputs: ((p i + q j) mod 5) - 2.
def fill(rows, cols, p, q):
    i = torch.arange(rows, device="cuda").view(-1, 1)
    j = torch.arange(cols, device="cuda").view(1, -1)
    return ((p * i + q * j) % 5 - 2).to(dtype)
a = fill(m, k, 3, 7)
if layout == "nt":
    b = fill(n, k, 2, 3)
    f = lambda: a @ b.t()
else:
    b = fill(k, n, 7, 2)
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

tile() { # file, kernel name -> median ms
  local out
  out="$("$TILE_RUN" "$1" --chip=sm_90a --time-kernels)"
  echo "$out" | grep -q "mismatches: 0" || { echo "$out" >&2; echo "$2 is wrong" >&2; exit 1; }
  echo "$out" | sed -n "s/^kernel $2: .* median \([0-9.]*\) ms.*/\1/p"
}

report() { # label, type, m, n, k, tile ms, cublas ms
  python3 - "$CSV" "$@" <<'PY'
import sys
csv, label, type_ = sys.argv[1:4]
m, n, k = map(int, sys.argv[4:7])
tile, cublas = map(float, sys.argv[7:9])
tf = lambda ms: 2 * m * n * k / (ms * 1e-3) / 1e12
print(f"{label:24s} {type_:4s} {m:5d}x{n:5d}x{k:5d}  tile {tf(tile):6.1f}  cuBLAS {tf(cublas):6.1f} TFLOP/s  ratio {cublas / tile:.3f}")
open(csv, "a").write(f"{label},{type_},{m},{n},{k},{tf(tile):.1f},{tf(cublas):.1f},{cublas / tile:.3f}\n")
PY
}

for type in $TYPES; do
  for shape in $SHAPES; do
    IFS=x read -r m n k <<< "$shape"
    bench_main gemm_sm90 "$type" "$m" "$n" "$k" ", %nt" ", i1" > "$WORK/gemm.mlir"
    t="$(tile "$WORK/gemm.mlir" gemm_nt)"
    report "sm90 ws wgmma (A B^T)" "$type" "$m" "$n" "$k" "$t" "$(cublas "$type" "$m" "$n" "$k" nt)"
    bench_main gemm_sm90 "$type" "$m" "$n" "$k" ", %nn" ", i1" > "$WORK/gemm.mlir"
    t="$(tile "$WORK/gemm.mlir" gemm_nn)"
    report "sm90 ws wgmma (A B)" "$type" "$m" "$n" "$k" "$t" "$(cublas "$type" "$m" "$n" "$k" nn)"
    bench_main gemm_sm90_multicast "$type" "$m" "$n" "$k" "" "" > "$WORK/gemm.mlir"
    t="$(tile "$WORK/gemm.mlir" gemm)"
    report "sm90 2x1 multicast (A B^T)" "$type" "$m" "$n" "$k" "$t" "$(cublas "$type" "$m" "$n" "$k" nt)"
    if (( m % 128 == 0 && n % 128 == 0 && k % 32 == 0 )); then
      bench_main hgemm_sm80 "$type" "$m" "$n" "$k" ", %nn" ", i1" > "$WORK/hgemm.mlir"
      t="$(tile "$WORK/hgemm.mlir" hgemm_nn)"
      report "sm80 mma.sync (A B)" "$type" "$m" "$n" "$k" "$t" "$(cublas "$type" "$m" "$n" "$k" nn)"
    fi
  done
done

if [ -n "${OUT:-}" ]; then
  cp "$CSV" "$OUT/gemm.csv"
  python3 - "$CSV" "$OUT/gemm.png" <<'PY' || echo "no plot (matplotlib missing)"
import sys, csv
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
shape = lambda r: f"{r['type']} {r['m']}x{r['n']}x{r['k']}"
labels = list(dict.fromkeys(shape(r) for r in rows))
kernels = list(dict.fromkeys(r["kernel"] for r in rows))
series = [(f"tile {kernel}", {shape(r): float(r["tile_tflops"]) for r in rows if r["kernel"] == kernel})
          for kernel in kernels]
series += [(f"cuBLAS {kernel.split('(')[-1].rstrip(')')}",
            {shape(r): float(r["cublas_tflops"]) for r in rows if r["kernel"] == kernel})
           for kernel in kernels if kernel.startswith("sm90")]
width = 0.8 / len(series)
fig, ax = plt.subplots(figsize=(14, 5))
for index, (name, ys) in enumerate(series):
    ax.bar([i + (index - (len(series) - 1) / 2) * width for i in range(len(labels))],
           [ys.get(l, 0) for l in labels], width, label=name)
ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
ax.set_ylabel("TFLOP/s")
ax.legend()
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
PY
fi
rm -rf "$WORK"
