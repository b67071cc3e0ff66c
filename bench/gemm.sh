#!/usr/bin/env bash
#===- gemm.sh - tile GEMMs vs cuBLAS on the GPU machine -------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). Times the Ampere-style hgemm of
# bench/hgemm-sm80.mlir at 4096^3 (f16 in, f32 accumulate, f16 out; median
# of 20 launches from tile-run --time-kernels) and cuBLAS through
# torch.matmul on the same shapes and types (5 warm-up runs, CUDA events,
# median of 20) in the same run, and prints TFLOP/s and the ratio. Also
# prints ptxas' registers/spills/shared memory of the kernel.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
TILE_OPT="${TILE_OPT:-$(dirname "$TILE_RUN")/tile-opt}"
TILE_TRANSLATE="${TILE_TRANSLATE:-$(dirname "$TILE_RUN")/tile-translate}"
SIZE=4096

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
"$TILE_OPT" "$ROOT/bench/hgemm-sm80.mlir" --tile-to-ptx-pipeline="chip=sm_90a" |
  "$TILE_TRANSLATE" --extract-ptx > /tmp/hgemm-sm80.ptx
ptxas -arch=sm_90a -v /tmp/hgemm-sm80.ptx -o /dev/null 2>&1 | grep -E "Used|spill" || true
out="$("$TILE_RUN" "$ROOT/bench/hgemm-sm80.mlir" --chip=sm_90a --time-kernels)"
echo "$out"
echo "$out" | grep -q "sampled mismatches: 0" || { echo "hgemm is wrong" >&2; exit 1; }
tile_ms="$(echo "$out" | sed -n 's/^kernel hgemm_nn: .* median \([0-9.]*\) ms.*/\1/p')"

cublas_ms="$(python3 - "$SIZE" <<'PY'
import sys, torch
n = int(sys.argv[1])
a = torch.randn(n, n, dtype=torch.float16, device="cuda")
b = torch.randn(n, n, dtype=torch.float16, device="cuda")
for _ in range(5):
    c = a @ b
times = []
for _ in range(20):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); c = a @ b; end.record()
    torch.cuda.synchronize()
    times.append(start.elapsed_time(end))
times.sort()
print(f"{times[len(times) // 2]:.4f}")
PY
)"
python3 - "$SIZE" "$tile_ms" "$cublas_ms" <<'PY'
import sys
n, tile, cublas = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
tflops = lambda ms: 2 * n ** 3 / (ms * 1e-3) / 1e12
print(f"{n}^3 fp16  tile hgemm (sm80 path): {tile:.4f} ms  {tflops(tile):6.1f} TFLOP/s")
print(f"{n}^3 fp16  cuBLAS (torch.matmul):  {cublas:.4f} ms  {tflops(cublas):6.1f} TFLOP/s")
print(f"ratio tile/cuBLAS: {cublas / tile:.3f}")
PY
