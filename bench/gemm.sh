#!/usr/bin/env bash
#===- gemm.sh - tile GEMMs vs cuBLAS on the GPU machine -------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). In one run, for each square size (default 2048
# 4096 8192; override with SIZES="..."):
#  - the Hopper GEMM of bench/gemm-sm90.mlir (C = A B^T: TMA, warp-specialized
#    wgmma, f16 in, f32 accumulate, f16 out),
#  - the Ampere-style hgemm of bench/hgemm-sm80.mlir (C = A B, cp.async +
#    ldmatrix + mma.sync; at 4096 only, its size is fixed),
#  - cuBLAS through torch.matmul on the same layouts and types,
# each the median of 20 timed launches (tile-run --time-kernels; CUDA events
# after 5 warm-up runs for cuBLAS). Prints TFLOP/s and ratios to cuBLAS, and
# ptxas' registers/spills/shared memory of the kernels.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
BIN="$(dirname "$TILE_RUN")"
SIZES="${SIZES:-2048 4096 8192}"
WORK="$(mktemp -d)"

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
for kernel in gemm-sm90 hgemm-sm80; do
  "$BIN/tile-opt" "$ROOT/bench/$kernel.mlir" --tile-to-ptx-pipeline="chip=sm_90a" |
    "$BIN/tile-translate" --extract-ptx > "$WORK/$kernel.ptx"
  echo "ptxas $kernel: $(ptxas -arch=sm_90a -v "$WORK/$kernel.ptx" -o /dev/null 2>&1 |
    grep -E "Used|spill" | tr -s ' ' | tr '\n' ' ')"
done

cublas() { # size, layout (nt: A B^T, nn: A B) -> median ms
  python3 - "$1" "$2" <<'PY'
import sys, torch
n, layout = int(sys.argv[1]), sys.argv[2]
a = torch.randn(n, n, dtype=torch.float16, device="cuda")
b = torch.randn(n, n, dtype=torch.float16, device="cuda")
f = (lambda: a @ b.t()) if layout == "nt" else (lambda: a @ b)
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
  sed "s/%size = arith.constant [0-9]* : index/%size = arith.constant $size : index/" \
    "$ROOT/bench/gemm-sm90.mlir" > "$WORK/gemm-sm90-$size.mlir"
  t="$(tile "$WORK/gemm-sm90-$size.mlir" gemm "gemm sampled mismatches: 0")"
  report "sm90 warp-specialized (A B^T)" "$size" "$t" "$(cublas "$size" nt)"
done
t="$(tile "$ROOT/bench/hgemm-sm80.mlir" hgemm_nn "sampled mismatches: 0")"
report "sm80 hgemm (A B)" 4096 "$t" "$(cublas 4096 nn)"
rm -rf "$WORK"
