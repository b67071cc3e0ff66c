#!/usr/bin/env bash
#===- tma-bandwidth.sh - TMA copy bandwidth vs cudaMemcpy D2D ------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). Times bench/tma-copy.mlir (256 MiB f32, 20
# launches, median kernel time from tile-run --time-kernels) and a 256 MiB
# device-to-device cudaMemcpy (PyTorch's copy_, CUDA events, 5 warm-up runs,
# median of 20) in the same run, and prints both bandwidths (read + write
# bytes per second) and their ratio.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
BYTES=$((32768 * 2048 * 4))

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader || true
out="$("$TILE_RUN" "$ROOT/bench/tma-copy.mlir" --chip=sm_90a --time-kernels)"
echo "$out"
echo "$out" | grep -q "tma copy mismatches: 0" || { echo "TMA copy is wrong" >&2; exit 1; }
tma_ms="$(echo "$out" | sed -n 's/^kernel tma_copy: .* median \([0-9.]*\) ms.*/\1/p')"

memcpy_ms="$(python3 - "$BYTES" <<'PY'
import sys, torch
n = int(sys.argv[1]) // 4
src = torch.arange(n, dtype=torch.float32, device="cuda")
dst = torch.empty_like(src)
for _ in range(5):
    dst.copy_(src)
times = []
for _ in range(20):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); dst.copy_(src); end.record()
    torch.cuda.synchronize()
    times.append(start.elapsed_time(end))
times.sort()
print(f"{times[len(times) // 2]:.4f}")
PY
)"
python3 - "$BYTES" "$tma_ms" "$memcpy_ms" <<'PY'
import sys
nbytes, tma, memcpy = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
gbps = lambda ms: 2 * nbytes / (ms * 1e-3) / 1e9
print(f"TMA copy:          {tma:.4f} ms  {gbps(tma):7.1f} GB/s")
print(f"cudaMemcpy D2D:    {memcpy:.4f} ms  {gbps(memcpy):7.1f} GB/s")
print(f"ratio TMA/memcpy:  {memcpy / tma:.3f}")
PY
