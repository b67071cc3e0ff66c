#!/usr/bin/env bash
#===- clean-root-test.sh - The README's commands in a bare Debian 12 root -===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Proves that the scripts install everything the build and the tests need: a
# fresh `debootstrap --variant=minbase bookworm` root (this machine's apt
# sources, the mirror install-deps uses; /usr/local/cuda bind-mounted
# read-only; nothing else added) gets a clean clone of the repository's HEAD
# and runs the README's two commands there, verbatim: scripts/quickstart.sh,
# then scripts/test.sh (what .ci/run runs). A machine that has been used
# before hides missing install steps; this one has none.
#
# Usage (root; slow: packages and a cold build, so not part of .ci/run):
#   scripts/clean-root-test.sh [DIR]      # DIR default /tmp/tile-clean-root
# Writes DIR.log and ends with test.sh's "N passed, N failed, N skipped".
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${1:-/tmp/tile-clean-root}"
LOG="$DEST.log"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"

if [ "$(id -u)" -ne 0 ]; then
  echo "clean-root-test: needs root (debootstrap, chroot, mounts)" >&2
  exit 2
fi
command -v debootstrap >/dev/null || {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}

mounts=()
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
bind() { # source target [options]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounts+=("$2")
  if [ -n "${3:-}" ]; then mount -o "remount,bind,$3" "$2"; fi
}

echo "clean-root-test: debootstrap --variant=minbase bookworm $DEST"
rm -rf "$DEST"
debootstrap --variant=minbase bookworm "$DEST" "$MIRROR" >"$LOG" 2>&1
# The same package sources as this machine (bookworm, -updates, -security).
rm -f "$DEST/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$DEST/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$DEST/etc/apt/"
cp /etc/resolv.conf "$DEST/etc/resolv.conf"

mount -t proc proc "$DEST/proc" && mounts+=("$DEST/proc")
bind /dev "$DEST/dev"
bind /sys "$DEST/sys"
[ -d /usr/local/cuda ] && bind "$(readlink -f /usr/local/cuda)" "$DEST/usr/local/cuda" ro

# A clean clone of what is committed, as CI checks it out.
git clone --quiet --no-local "$ROOT" "$DEST/work/tile"
echo "clean-root-test: $(git -C "$DEST/work/tile" log --oneline -1)"

run() { # the README's command, in the root, with a login-like environment
  chroot "$DEST" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c "cd /work/tile && $1"
}
rc=0
echo "clean-root-test: scripts/quickstart.sh"
run "scripts/quickstart.sh" >>"$LOG" 2>&1 || { rc=$?; echo "quickstart.sh failed ($rc)"; }
echo "clean-root-test: scripts/test.sh"
run "scripts/test.sh" >>"$LOG" 2>&1 || rc=$?
tail -n 40 "$LOG"
echo "clean-root-test: log in $LOG; exit $rc"
exit $rc
