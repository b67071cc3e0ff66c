#!/usr/bin/env python3
"""The host cost of one kernel launch from Python, steady state and cold.

    PYTHONPATH=python python3 bench/launch_overhead.py [--launches 2000] [--batches 21]

In one process, on tensors allocated once:
  (a) tile: the Hopper @gemm_nt of python/tile/kernels/gemm_sm90.mlir (three tensor-map
      arguments, three ints) at a tiny shape (--shape, default 128x256x64:
      one CTA, one K slice), launched as a user calls it;
  (b) torch.matmul(a, b.t(), out=c) on the same tensors (cuBLAS);
  (c) tile: @copy_tile of examples/cp_async_copy.mlir (two memref
      arguments, 256x64 f16, four CTAs);
  (d) tile.matmul(a, b, out=c, transpose_b=True) on the same tensors as
      (a): the op as a user calls it (plan cache, workspace, launch).
Steady state: after 100 warm-up calls, --batches batches of --launches
back-to-back calls, the subjects' batches alternating; only the host loop is
timed (time.perf_counter_ns around
it; the GPU is synchronized between batches, outside the timing); the median
per call. Each kernel's device time (CUPTI, measured after all host timings)
is printed beside it: a host time not clearly above it means the launch
queue filled and the loop timed the GPU. Cold: compiling without and with
the cache, loading the kernel (the driver JITs the PTX), and the first and
second call of each (host time, and until the GPU is done).
"""
import argparse
import statistics
import time

import harness  # also puts python/ on sys.path
import tile  # noqa: E402
from tile.testing import relative_error


def timed(run, sync):
    """(host µs of one call, µs until the GPU is done)."""
    start = time.perf_counter_ns()
    run()
    issued = time.perf_counter_ns()
    sync()
    done = time.perf_counter_ns()
    return (issued - start) / 1e3, (done - start) / 1e3


def host_us(runs, sync, launches, batches):
    """For each of `runs`: (median, min) over batches of the host µs per call
    of `launches` back-to-back calls. The subjects' batches alternate, so a
    slow spell of the machine falls on all of them alike."""
    for run in runs:
        for _ in range(100):
            run()
    sync()
    per_call = [[] for _ in runs]
    for _ in range(batches):
        for run, times in zip(runs, per_call):
            start = time.perf_counter_ns()
            for _ in range(launches):
                run()
            times.append((time.perf_counter_ns() - start) / launches / 1e3)
            sync()
    return [(statistics.median(times), min(times)) for times in per_call]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--launches", type=int, default=2000, help="calls per batch")
    parser.add_argument("--batches", type=int, default=21)
    parser.add_argument("--shape", default="128x256x64", help="MxNxK of the GEMMs")
    args = parser.parse_args()
    m, n, k = (int(v) for v in args.shape.lower().split("x"))

    torch = harness.torch_or_exit("launch_overhead.py")
    harness.describe_device()
    sync = torch.cuda.synchronize
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    c_torch, c_tile = torch.empty_like(c), torch.empty_like(c)
    src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    b_t = b.t()
    sync()

    print("cold (first use in this process):")

    def cold(what, action):
        start = time.perf_counter()
        result = action()
        print(f"  {what:46s} {(time.perf_counter() - start) * 1e3:9.1f} ms")
        return result

    cold("tile.compile gemm_sm90.mlir, no cache",
         lambda: harness.compile_example("gemm_sm90", cache=False))
    harness.compile_example("gemm_sm90")
    module = cold("tile.compile gemm_sm90.mlir, cache hit",
                  lambda: harness.compile_example("gemm_sm90"))
    gemm = module.kernel("gemm_nt")
    cold("gemm.function(0) (loads the PTX on cuda:0)", lambda: gemm.function(0))
    copy = harness.compile_example("cp_async_copy").kernel("copy_tile")
    launch = harness.sm90_launch(m, n, k)
    extras = harness.sm90_extras(c)

    subjects = [
        (f"tile gemm_nt {m}x{n}x{k} (3 tensor maps + 3 ints + 6 buffers)",
         lambda: gemm(a, b, c, m, n, k, *extras, **launch)),
        (f"torch.matmul {m}x{n}x{k} (A B^T, out=)",
         lambda: torch.matmul(a, b_t, out=c_torch)),
        ("tile copy_tile 256x64 (2 memrefs)",
         lambda: copy(src, dst, grid=(4, 1, 1), block=(128, 1, 1))),
        (f"tile.matmul {m}x{n}x{k} (A B^T, out=)",
         lambda: tile.matmul(a, b, out=c_tile, transpose_b=True)),
    ]
    for name, run in subjects:
        first, second = timed(run, sync), timed(run, sync)
        print(f"  {name:46s} first call: host {first[0]:9.1f} µs, done after {first[1]:9.1f} µs;"
              f" second: host {second[0]:6.1f} µs, done after {second[1]:6.1f} µs")
    error = max(relative_error(c, a @ b_t), relative_error(c_tile, a @ b_t))
    if not error < 1e-2 or not torch.equal(dst, src):
        raise SystemExit(f"wrong results: gemm relative error {error:.3g}, "
                         f"copy equal {torch.equal(dst, src)}")

    hosts = host_us([run for _, run in subjects], sync, args.launches, args.batches)
    devices = [harness.kernel_us(run, 200)[0] for _, run in subjects]  # CUPTI last
    print(f"steady state: host µs per call (median of {args.batches} batches of "
          f"{args.launches} back-to-back calls; min), device µs per call (CUPTI):")
    for (name, _), (median, least), device in zip(subjects, hosts, devices):
        note = "  <- not above the GPU's time: GPU-bound" if median < 1.2 * device else ""
        print(f"  {name:46s} {median:7.2f} µs (min {least:7.2f})   GPU {device:6.2f} µs{note}")
    matmul = hosts[1][0]
    print(f"tile gemm_nt / torch.matmul: {hosts[0][0] / matmul:.2f}x; "
          f"tile copy_tile / torch.matmul: {hosts[2][0] / matmul:.2f}x; "
          f"tile.matmul / torch.matmul: {hosts[3][0] / matmul:.2f}x (host time per call)")


if __name__ == "__main__":
    main()
