#!/usr/bin/env bash
#===- device-pack.sh - Pack the static tools for the GPU machine ----------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# The GPU machine has CUDA but no LLVM/MLIR. This builds the multi-call
# `tile-tools` (tile-opt + tile-translate + tile-run in one fully static
# binary), strips it, and packs it with libtile_runtime, the unit tests,
# LLVM's lit and FileCheck/not/count/split-file (plus the libz3 they load)
# into carry/tile-device.tar.xz (git-ignored). scripts/device-test.sh unpacks
# it there. Sizes are printed; the device tool carries at most 64 MiB.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
LLVM_BIN=/usr/lib/llvm-22/bin

BUILD_DIR="$BUILD_DIR" "$ROOT/scripts/build.sh"
ninja -C "$BUILD_DIR" tile-tools tile_runtime TileUnitTests

STAGE="$ROOT/carry/tile-device"
rm -rf "$STAGE" && mkdir -p "$STAGE"/{bin,lib,unittests}
strip -o "$STAGE/bin/tile-tools" "$BUILD_DIR/bin/tile-tools"
for tool in tile-opt tile-translate tile-run; do ln -s tile-tools "$STAGE/bin/$tool"; done
strip -o "$STAGE/unittests/TileUnitTests" "$BUILD_DIR/unittests/TileUnitTests"
strip -o "$STAGE/lib/libtile_runtime.so" "$BUILD_DIR/lib/libtile_runtime.so"
for tool in FileCheck not count split-file; do cp "$LLVM_BIN/$tool" "$STAGE/bin/"; done
# Debian's FileCheck & co. link libz3.so.4, which Ubuntu's CUDA images lack.
cp "$(ldd "$LLVM_BIN/FileCheck" | awk '/libz3/ {print $3}')" "$STAGE/lib/"
cp -r /usr/lib/llvm-22/utils/lit "$STAGE/lit"
find "$STAGE/lit" -name __pycache__ -prune -exec rm -rf {} +

echo "== stripped sizes"
ls -l "$STAGE/bin/tile-tools" "$STAGE/unittests/TileUnitTests" "$STAGE/lib/"*
XZ_OPT="-6 -T0" tar -C "$ROOT/carry" -cJf "$ROOT/carry/tile-device.tar.xz" tile-device
rm -rf "$STAGE"
echo "== packed: $(du -h "$ROOT/carry/tile-device.tar.xz" | cut -f1) carry/tile-device.tar.xz"
