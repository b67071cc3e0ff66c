#!/usr/bin/env bash
#===- install-deps.sh - Install what a fresh Debian 12 machine lacks ------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Idempotent: installs only the Debian packages that are missing. Needs root
# (or sudo). CUDA's ptxas is not a Debian package; it is looked up at
# configure time (TILE_PTXAS / CUDA_HOME / /usr/local/cuda/bin / PATH).
set -euo pipefail

# llvm-22-tools: FileCheck, not, count and lit (the `lit` Python package in
# /usr/lib/llvm-22/utils/lit, which the lit configurations and
# `python3 -m tile lit` import); python3-numpy: the Python tests' host arrays; python3-venv and
# python3-wheel-whl: the test that pip-installs the package, offline, into a
# fresh virtual environment (setuptools 66 builds wheels with `wheel`).
PACKAGES=(
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  libzstd-dev zlib1g-dev ninja-build cmake ccache python3 python3-pytest xz-utils
  libgtest-dev python3-numpy python3-venv python3-wheel-whl
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
