#!/usr/bin/env bash
#===- quickstart.sh - Set up, build, and compile the bundled example ------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Installs what is missing, builds tile, lowers examples/cp_async_copy.mlir
# (or the file given as $1) to PTX for sm_90a (or $CHIP), prints the PTX and
# ptxas's register/shared-memory report, then (only where a GPU is present)
# runs it with tile-run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
EXAMPLE="${1:-$ROOT/examples/cp_async_copy.mlir}"
CHIP="${CHIP:-sm_90a}"

"$ROOT/scripts/install-deps.sh"
BUILD_DIR="$BUILD_DIR" "$ROOT/scripts/build.sh"

OUT="$BUILD_DIR/quickstart"
mkdir -p "$OUT"
PTX="$OUT/$(basename "${EXAMPLE%.mlir}").$CHIP.ptx"
echo "== tile-opt $(basename "$EXAMPLE") --tile-to-ptx-pipeline=chip=$CHIP | tile-translate --extract-ptx"
"$BUILD_DIR/bin/tile-opt" "$EXAMPLE" --tile-to-ptx-pipeline="chip=$CHIP" \
  | "$BUILD_DIR/bin/tile-translate" --extract-ptx -o "$PTX"
cat "$PTX"
echo "== PTX written to $PTX"

PTXAS="${TILE_PTXAS:-$(command -v ptxas || true)}"
if [ -z "$PTXAS" ]; then
  for dir in "${CUDA_HOME:-}" /usr/local/cuda; do
    if [ -n "$dir" ] && [ -x "$dir/bin/ptxas" ]; then PTXAS="$dir/bin/ptxas"; break; fi
  done
fi
if [ -n "$PTXAS" ]; then
  echo "== $PTXAS -arch=$CHIP -v"
  "$PTXAS" -arch="$CHIP" -v "$PTX" -o "${PTX%.ptx}.cubin"
else
  echo "== ptxas not found (set TILE_PTXAS or CUDA_HOME): skipped assembling"
fi

# On a machine with an NVIDIA GPU, run it: tile-run JIT-compiles the host
# code and launches the kernel.
if [ -x "$BUILD_DIR/bin/tile-run" ] && [ -e /dev/nvidiactl ]; then
  echo "== tile-run $(basename "$EXAMPLE") --chip=$CHIP"
  "$BUILD_DIR/bin/tile-run" "$EXAMPLE" --chip="$CHIP"
fi
