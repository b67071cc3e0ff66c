#!/usr/bin/env bash
#===- test.sh - Set up, build and run every tile test ---------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Runs the lit suite (test/), the GoogleTest unit tests (unittests/), the
# Python package's pytest suite (python/tests) and a fixed-seed batch of the
# tile-opt mutation fuzzer (scripts/fuzz/fuzz.py --ci: fails on a crash or
# hang in project code), and ends with one line `N passed, N failed,
# N skipped`. Integration/GPU tests and the Python launch tests count as
# skipped on machines without a CUDA GPU.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

"$ROOT/scripts/install-deps.sh"
BUILD_DIR="$BUILD_DIR" "$ROOT/scripts/build.sh"

RESULTS="$BUILD_DIR/test-results.json"
PYTEST_RESULTS="$BUILD_DIR/pytest-results.xml"
rc=0
/usr/lib/llvm-22/bin/lit -sv --output "$RESULTS" \
  "$BUILD_DIR/test" "$BUILD_DIR/unittests" || rc=$?

# The Python package's tests (python/tests; launches are skipped without a
# GPU), with Debian's python3-pytest unless PYTEST_PYTHON names another.
PYTEST_PYTHON="${PYTEST_PYTHON:-/usr/bin/python3}"
rm -f "$PYTEST_RESULTS"
TILE_BIN_DIR="$BUILD_DIR/bin" TILE_RUNTIME_LIB="$BUILD_DIR/lib/libtile_runtime.so" \
  "$PYTEST_PYTHON" -m pytest -q -p no:cacheprovider --junitxml="$PYTEST_RESULTS" \
  "$ROOT/python/tests" || rc=$?

# The fuzzer's fixed-seed batch (about 30 s on 2 cores): one test.
FUZZ_OK=1
python3 "$ROOT/scripts/fuzz/fuzz.py" --ci --tile-opt "$BUILD_DIR/bin/tile-opt" \
  --out "$BUILD_DIR/fuzz-ci" || { FUZZ_OK=0; rc=1; }

python3 - "$RESULTS" "$PYTEST_RESULTS" "$FUZZ_OK" <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
tests = json.load(open(sys.argv[1]))["tests"]
passed = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
skipped = sum(t["code"] in ("UNSUPPORTED", "SKIPPED", "EXCLUDED") for t in tests)
failed = len(tests) - passed - skipped
if os.path.exists(sys.argv[2]):
    for case in ET.parse(sys.argv[2]).getroot().iter("testcase"):
        if case.find("skipped") is not None:
            skipped += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        else:
            passed += 1
else:
    failed += 1  # pytest did not run
if sys.argv[3] == "1":
    passed += 1
else:
    failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
