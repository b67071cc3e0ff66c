#!/usr/bin/env bash
#===- build.sh - Configure and build tile (idempotent) --------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Usage: scripts/build.sh [extra cmake -D options]
# Env:   BUILD_DIR (default: build), JOBS (default: nproc),
#        TILE_PTXAS (path to ptxas, default: found under CUDA_HOME or
#        /usr/local/cuda/bin).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
JOBS="${JOBS:-$(nproc)}"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
ptxas=()
if [ -n "${TILE_PTXAS:-}" ]; then ptxas=(-DTILE_PTXAS="$TILE_PTXAS"); fi

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld "${launcher[@]}" "${ptxas[@]}" "$@"
fi
# The default target: tools, libtile_runtime, unit tests, the op reference
# (build/docs/reference; not tile-tools).
ninja -C "$BUILD_DIR" -j "$JOBS"
