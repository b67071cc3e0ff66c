#!/usr/bin/env bash
#===- device-test.sh - Run the test suite on the GPU machine --------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine from the repository root, after
# scripts/device-pack.sh here and with carry/ carried there. Unpacks the tools,
# points a lit site configuration at them and runs the whole suite (the
# Integration/GPU tests run there, the rest as on CI) plus the unit tests.
# Arguments name tests to run instead (paths under test/, e.g.
# test/Integration/GPU/tma-multicast.mlir) or are lit options. Writes the lit
# results to $OUT/lit.json when $OUT is set.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${TILE_DEVICE_DIR:-/tmp/tile-device}"

rm -rf "$DEST" && mkdir -p "$(dirname "$DEST")"
tar -C "$(dirname "$DEST")" -xJf "$ROOT/carry/tile-device.tar.xz"
[ "$(basename "$DEST")" = tile-device ] || mv "$(dirname "$DEST")/tile-device" "$DEST"
export LD_LIBRARY_PATH="$DEST/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="/usr/local/cuda/bin:$PATH"

mkdir -p "$DEST/build/test"
cat > "$DEST/build/test/lit.site.cfg.py" <<CFG
config.llvm_tools_dir = "$DEST/bin"
config.llvm_shlib_ext = ".so"
config.tile_src_root = "$ROOT"
config.tile_obj_root = "$DEST/build"
config.tile_tools_dir = "$DEST/bin"
config.tile_ptxas = "$(command -v ptxas || true)"
config.tile_enable_cuda_runner = True
import lit.llvm
lit.llvm.initialize(lit_config, config)
lit_config.load_config(config, "$ROOT/test/lit.cfg.py")
CFG
cat > "$DEST/unittests/lit.site.cfg.py" <<CFG
config.tile_unittests_dir = "$DEST/unittests"
lit_config.load_config(config, "$ROOT/unittests/lit.cfg.py")
CFG

"$DEST/bin/tile-run" --version >/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
# Tests named by their source path run through the configured tree.
args=() tests=()
for arg in "$@"; do
  case "$arg" in
    test/*) tests+=("$DEST/build/$arg") ;;
    *) args+=("$arg") ;;
  esac
done
whole=0
[ ${#tests[@]} -gt 0 ] || { tests=("$DEST/build/test" "$DEST/unittests"); whole=1; }
rc=0
PYTHONPATH="$DEST/lit" python3 -c 'import sys; from lit.main import main; sys.argv[0] = "lit"; main()' \
  -sv ${OUT:+--output "$OUT/lit.json"} "${args[@]}" "${tests[@]}" || rc=$?
# With the whole suite, the Python package's tests too (GPU launches run here).
if [ "$whole" = 1 ] || [ "${TILE_PYTEST:-0}" = 1 ]; then
  if python3 -c "import pytest" 2>/dev/null; then
    # The packed lit as a module and FileCheck & co. on PATH, for
    # `python -m tile lit` (the user-facing lit runner) and the tutorial.
    TILE_BIN_DIR="$DEST/bin" TILE_RUNTIME_LIB="$DEST/lib/libtile_runtime.so" \
      PYTHONPATH="$DEST/lit${PYTHONPATH:+:$PYTHONPATH}" PATH="$DEST/bin:$PATH" \
      python3 -m pytest -q -p no:cacheprovider "$ROOT/python/tests" || rc=$?
  else
    echo "device-test: no pytest on this machine; python/tests not run"
  fi
fi
exit $rc
