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
#  - cuBLAS through torch.matmul on the same layouts, types and input
#    values, and where Triton is installed a Triton matmul of A B and A B^T
#    (bench/gemm_reference.py),
# each the median of 20 timed launches after warm-up (tile-run
# --time-kernels; CUDA events). For short kernels (2MNK < 5e10) cuBLAS and
# Triton are timed as the mean of 20 back-to-back launches instead, their
# throughput without launch gaps; tile-run's launches are synchronous (each
# waits for the previous one on the host), so its back-to-back mean would
# time the host, and the tile kernels keep the per-launch median, which
# includes the few microseconds between the start event and the kernel:
# the short shapes' ratios understate tile. The examples' @main is replaced
# by one that runs @run at the shape 20 times and checks 64 sampled
# elements (bf16: the examples with f16 replaced by bf16). Prints ptxas'
# registers/spills/shared memory of the kernels and a table of TFLOP/s and
# ratios to cuBLAS; with $OUT set, writes $OUT/gemm.csv and, where
# matplotlib exists, $OUT/gemm.png.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
BIN="$(dirname "$TILE_RUN")"
TYPES="${TYPES:-f16 bf16}"
SHAPES="${SHAPES:-2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x4096x14336 8192x1024x8192 16x4096x4096}"
WORK="$(mktemp -d)"
CSV="$WORK/gemm.csv"
echo "kernel,type,m,n,k,tile_tflops,cublas_tflops,triton_tflops,ratio" > "$CSV"

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

reference() { # type, m, n, k, layout (nt: A B^T, nn: A B) -> "cublas_ms triton_ms"
  python3 "$ROOT/bench/gemm_reference.py" "$@" "$(batched "$2" "$3" "$4")"
}

batched() { # m, n, k -> 1 when the kernel is short enough to time in a batch
  python3 -c "import sys; m, n, k = map(int, sys.argv[1:]); print(int(2 * m * n * k < 5e10))" "$@"
}

tile() { # file, kernel name -> median ms of the launches timed one by one
  local out
  out="$("$TILE_RUN" "$1" --chip=sm_90a --time-kernels --timeout=120)"
  echo "$out" | grep -q "mismatches: 0" || { echo "$out" >&2; echo "$2 is wrong" >&2; exit 1; }
  echo "$out" | sed -n "s/^kernel $2: .* median \([0-9.]*\) ms, min.*/\1/p"
}

report() { # label, type, m, n, k, tile ms, cublas ms, triton ms
  python3 - "$CSV" "$@" <<'PY'
import math, sys
csv, label, type_ = sys.argv[1:4]
m, n, k = map(int, sys.argv[4:7])
tile, cublas, triton = map(float, sys.argv[7:10])
tf = lambda ms: 2 * m * n * k / (ms * 1e-3) / 1e12
tri = f"  Triton {tf(triton):6.1f}" if not math.isnan(triton) else ""
print(f"{label:26s} {type_:4s} {m:5d}x{n:5d}x{k:5d}  tile {tf(tile):6.1f}  cuBLAS {tf(cublas):6.1f}{tri} TFLOP/s  ratio {cublas / tile:.3f}")
open(csv, "a").write(f"{label},{type_},{m},{n},{k},{tf(tile):.1f},{tf(cublas):.1f},"
                     f"{'' if math.isnan(triton) else f'{tf(triton):.1f}'},{cublas / tile:.3f}\n")
PY
}

for type in $TYPES; do
  for shape in $SHAPES; do
    IFS=x read -r m n k <<< "$shape"
    read -r nt_cublas nt_triton <<< "$(reference "$type" "$m" "$n" "$k" nt)"
    read -r nn_cublas nn_triton <<< "$(reference "$type" "$m" "$n" "$k" nn)"
    bench_main gemm_sm90 "$type" "$m" "$n" "$k" ", %nt" ", i1" > "$WORK/gemm.mlir"
    t="$(tile "$WORK/gemm.mlir" "$( (( m <= 64 )) && echo gemm_nt_small_m || echo gemm_nt)")"
    report "sm90 ws wgmma (A B^T)" "$type" "$m" "$n" "$k" "$t" "$nt_cublas" "$nt_triton"
    bench_main gemm_sm90 "$type" "$m" "$n" "$k" ", %nn" ", i1" > "$WORK/gemm.mlir"
    t="$(tile "$WORK/gemm.mlir" gemm_nn)"
    report "sm90 ws wgmma (A B)" "$type" "$m" "$n" "$k" "$t" "$nn_cublas" "$nn_triton"
    bench_main gemm_sm90_multicast "$type" "$m" "$n" "$k" "" "" > "$WORK/gemm.mlir"
    t="$(tile "$WORK/gemm.mlir" gemm)"
    report "sm90 2x1 multicast (A B^T)" "$type" "$m" "$n" "$k" "$t" "$nt_cublas" "$nt_triton"
    if (( m % 128 == 0 && n % 128 == 0 && k % 32 == 0 )); then
      bench_main hgemm_sm80 "$type" "$m" "$n" "$k" ", %nn" ", i1" > "$WORK/hgemm.mlir"
      t="$(tile "$WORK/hgemm.mlir" hgemm_nn)"
      report "sm80 mma.sync (A B)" "$type" "$m" "$n" "$k" "$t" "$nn_cublas" "$nn_triton"
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
layouts = {}
for kernel in kernels:
    layouts.setdefault(kernel.split("(")[-1].rstrip(")"), kernel)
for column, name in (("cublas_tflops", "cuBLAS"), ("triton_tflops", "Triton")):
    for layout, kernel in layouts.items():
        ys = {shape(r): float(r[column]) for r in rows if r["kernel"] == kernel and r[column]}
        if ys:
            series.append((f"{name} {layout}", ys))
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
