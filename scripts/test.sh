#!/usr/bin/env bash
#===- test.sh - Set up, build and run every tile test ---------------------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Runs the lit suite (test/) and the GoogleTest unit tests (unittests/) and
# ends with one line `N passed, N failed, N skipped`. Integration/GPU tests
# count as skipped (UNSUPPORTED) on machines without a CUDA GPU.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"

"$ROOT/scripts/install-deps.sh"
BUILD_DIR="$BUILD_DIR" "$ROOT/scripts/build.sh"

RESULTS="$BUILD_DIR/test-results.json"
rc=0
/usr/lib/llvm-22/bin/lit -sv --output "$RESULTS" \
  "$BUILD_DIR/test" "$BUILD_DIR/unittests" || rc=$?

python3 - "$RESULTS" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
passed = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
skipped = sum(t["code"] in ("UNSUPPORTED", "SKIPPED", "EXCLUDED") for t in tests)
failed = len(tests) - passed - skipped
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $rc
