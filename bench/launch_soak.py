#!/usr/bin/env python3
"""Many small launches from Python: does device or host memory grow?

    PYTHONPATH=python python3 bench/launch_soak.py [--launches 1000000] [--kernel gemm] [--check]

Launches the Hopper @gemm_nt of python/tile/kernels/gemm_sm90.mlir at 128x256x64
(--kernel gemm), @copy_tile of examples/cp_async_copy.mlir (copy) or both
alternately, --launches times on the same tensors, waiting for the GPU
(tile.synchronize) every --sync-every launches. After 1000 warm-up launches
and again at the end it reads the device memory in use (total - free of
torch.cuda.mem_get_info, and of the tile runtime's tileRtMemoryInfo: both the
driver's count; PyTorch's allocator's reserved bytes beside them) and the host
RSS (VmRSS of /proc/self/status), and prints them, their growth and
the launches per second (progress every tenth). The results are checked
against PyTorch at the end. With --check, exits 1 when the device memory in
use grew by more than 2 MiB, the RSS by more than 10 MiB, or a result is
wrong.
"""
import argparse
import gc
import time

import harness  # also puts python/ on sys.path
import tile
from tile.testing import relative_error

MIB = 1 << 20


def memory(torch):
    """(device bytes in use by torch.cuda.mem_get_info, PyTorch's reserved
    bytes, host RSS bytes, device bytes in use by tileRtMemoryInfo or NaN),
    after a collection."""
    gc.collect()
    free, total = torch.cuda.mem_get_info()
    driver = harness.driver_memory()
    tile_used = driver[1] - driver[0] if driver else float("nan")
    return total - free, torch.cuda.memory_reserved(), harness.rss_bytes(), tile_used


def show(what, state):
    used, reserved, rss, tile_used = state
    print(f"{what:6s} device in use {used / MIB:10.2f} MiB (tileRtMemoryInfo "
          f"{tile_used / MIB:10.2f} MiB, PyTorch reserved {reserved / MIB:8.2f} MiB), "
          f"host RSS {rss / MIB:8.2f} MiB", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=1_000_000)
    parser.add_argument("--kernel", choices=("gemm", "copy", "both"), default="gemm")
    parser.add_argument("--sync-every", type=int, default=10_000)
    parser.add_argument("--warmup", type=int, default=1000)
    parser.add_argument("--check", action="store_true",
                        help="exit 1 on growth over 2 MiB (device) or 10 MiB (RSS)")
    args = parser.parse_args()

    torch = harness.torch_or_exit("launch_soak.py")
    harness.describe_device()
    m, n, k = 128, 256, 64
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    dst = torch.full_like(src, float("nan"))
    gemm = harness.compile_example("gemm_sm90").kernel("gemm_nt")
    copy = harness.compile_example("cp_async_copy").kernel("copy_tile")
    launch = harness.sm90_launch(m, n, k)
    extras = harness.sm90_extras(c)
    runs = {"gemm": [lambda: gemm(a, b, c, m, n, k, *extras, **launch)],
            "copy": [lambda: copy(src, dst, grid=(4, 1, 1), block=(128, 1, 1))]}
    runs["both"] = runs["gemm"] + runs["copy"]
    calls = runs[args.kernel]

    def launch_n(count):
        for i in range(count):
            calls[i % len(calls)]()

    launch_n(args.warmup)
    tile.synchronize(timeout=60)
    before = memory(torch)
    show("before", before)
    start, done, report = time.perf_counter(), 0, args.launches // 10
    while done < args.launches:
        count = min(args.sync_every, args.launches - done)
        launch_n(count)
        tile.synchronize(timeout=60)
        done += count
        if report and done % report < count or done == args.launches:
            rate = done / (time.perf_counter() - start)
            used, _, rss, _ = memory(torch)
            print(f"{done:9d} launches, {rate:9.0f}/s, device in use {used / MIB:10.2f} MiB, "
                  f"RSS {rss / MIB:8.2f} MiB", flush=True)
    elapsed = max(time.perf_counter() - start, 1e-9)
    after = memory(torch)
    show("after", after)
    grown = [(x - y) / MIB for x, y in zip(after, before)]
    print(f"growth: device {grown[0]:+.2f} MiB (tileRtMemoryInfo {grown[3]:+.2f} MiB, PyTorch "
          f"reserved {grown[1]:+.2f} MiB), RSS {grown[2]:+.2f} MiB; "
          f"{args.launches} {args.kernel} launches in {elapsed:.1f} s, "
          f"{args.launches / elapsed:.0f} launches/s")

    wrong = []
    if args.kernel != "copy" and not relative_error(c, a @ b.t()) < 1e-2:
        wrong.append("gemm_nt")
    if args.kernel != "gemm" and not torch.equal(dst, src):
        wrong.append("copy_tile")
    print(f"results: {'wrong: ' + ', '.join(wrong) if wrong else 'match PyTorch'}")
    if args.check and (grown[0] > 2 or grown[2] > 10 or wrong):
        print("check FAILED: device growth > 2 MiB, RSS growth > 10 MiB or a wrong result")
        raise SystemExit(1)


if __name__ == "__main__":
    main()
