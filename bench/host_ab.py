#!/usr/bin/env python3
"""Host µs per call of the ops as a user calls them, this checkout's `tile`
against another version of the package, in ONE process (batches
alternating), so the host's speed, which moves between processes by tens of
percent on a shared machine, cancels in the ratio:

    python3 bench/host_ab.py --old-python OLD/python --old-runtime OLD/libtile_runtime.so

OLD is a checkout (or a copy of its python/ and examples/) of the version to
compare against; its package is imported as `tile_old`. Both versions use
the tools of $TILE_BIN_DIR (the compiler is the same when the PTX of every
shipped kernel is; scripts/kernel-ptx-digests.py checks that). Small shapes:
the calls are host-bound, so the loop times the host path. Results of both
versions are compared bit for bit first.
"""
import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import os

import harness  # also puts python/ on sys.path
import tile  # noqa: E402
from tile.runtime import Runtime  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old-python", required=True, help="the other version's python/")
    parser.add_argument("--old-runtime", required=True, help="its libtile_runtime.so")
    parser.add_argument("--batches", type=int, default=21)
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    torch = harness.torch_or_exit("host_ab.py")
    harness.describe_device()
    # The other version as package `tile_old`; its kernels where it looks
    # for them (an older package read ../../examples beside its modules).
    work = Path(tempfile.mkdtemp(prefix="tile-ab-"))
    old_python = Path(args.old_python)
    shutil.copytree(old_python / "tile", work / "packages" / "tile_old")
    if (old_python.parent / "examples").is_dir():
        shutil.copytree(old_python.parent / "examples", work / "examples")
    sys.path.insert(0, str(work / "packages"))
    import tile_old
    # Each version loads its runtime library once, from $TILE_RUNTIME_LIB as
    # it is when it first needs one: this version's first, then the other's
    # (its first launch, in the warm-up below).
    Runtime.get()
    os.environ["TILE_RUNTIME_LIB"] = str(Path(args.old_runtime).resolve())

    bf16 = torch.bfloat16
    a = torch.randn(128, 64, device="cuda", dtype=bf16)
    b = torch.randn(256, 64, device="cuda", dtype=bf16)
    x = torch.randn(16, 4096, device="cuda", dtype=bf16)
    w = torch.randn(4096, 4096, device="cuda", dtype=bf16)
    q = torch.randn(1, 2, 128, 64, device="cuda", dtype=bf16)
    outputs = {}
    subjects = {}
    for name, package in (("this", tile), ("old", tile_old)):
        c, y, o = (torch.empty(128, 256, device="cuda", dtype=bf16),
                   torch.empty(16, 4096, device="cuda", dtype=bf16), torch.empty_like(q))
        outputs[name] = (c, y, o)
        subjects[f"{name} tile.matmul 128x256x64"] = \
            lambda p=package, c=c: p.matmul(a, b, out=c, transpose_b=True)
        subjects[f"{name} tile.matmul 16x4096x4096 (decode)"] = \
            lambda p=package, y=y: p.matmul(x, w, out=y, transpose_b=True)
        subjects[f"{name} tile.attention 1x2x128x64"] = \
            lambda p=package, o=o: p.attention(q, q, q, out=o)
    c_torch = torch.empty(128, 256, device="cuda", dtype=bf16)
    subjects["torch.matmul 128x256x64"] = lambda: torch.matmul(a, b.t(), out=c_torch)
    for run in subjects.values():
        for _ in range(100):
            run()
    torch.cuda.synchronize()
    for mine, theirs in zip(outputs["this"], outputs["old"]):
        if not torch.equal(mine, theirs):
            raise SystemExit("the two versions computed different results")
    times = {name: [] for name in subjects}
    for _ in range(args.batches):
        for name, run in subjects.items():
            start = time.perf_counter_ns()
            for _ in range(args.calls):
                run()
            times[name].append((time.perf_counter_ns() - start) / args.calls / 1e3)
            torch.cuda.synchronize()
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"host µs per call (median of {args.batches} batches of {args.calls} calls; min):")
    for name, values in times.items():
        print(f"  {name:42s} {medians[name]:7.2f} (min {min(values):7.2f})")
    for name in [n for n in subjects if n.startswith("this ")]:
        other = "old " + name[len("this "):]
        print(f"  this / old {name[len('this '):]:32s} {medians[name] / medians[other]:.2f}")


if __name__ == "__main__":
    main()
