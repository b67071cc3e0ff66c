#!/usr/bin/env python3
"""The tile GEMMs against cuBLAS and Triton, each timed two ways.

    PYTHONPATH=python python3 bench/gemm.py [--types f16 bf16] [--shapes 4096x4096x4096 ...]
    bash bench/gemm.sh      # the same, after ptxas' register report of the kernels

For each element type (--types, default $TYPES or "f16 bf16"; f32
accumulation, C in the input type) and shape MxNxK (--shapes, default
$SHAPES or 2048³, 4096³, 8192³, 4096x4096x14336, 8192x1024x8192 and
16x4096x4096) it runs, from Python on PyTorch tensors:
  - the Hopper GEMM of python/tile/kernels/gemm_sm90.mlir for C = A B^T (@gemm_nt) and
    C = A B (@gemm_nn) — at every M: tile.matmul's decode kernels for
    M <= 64 are timed by bench/matmul.py —, and its 2x1-cluster multicast variant
    (examples/gemm_sm90_multicast.mlir, A B^T);
  - the Ampere hgemm of examples/hgemm_sm80.mlir (C = A B) where the shape
    is a multiple of its 128x128x32 tile;
  - cuBLAS: torch.matmul(a, b, out=c) on the same layouts and values (for
    A B^T, b is the N x K tensor's transposed view, as the tile kernel reads
    it), and where Triton is installed a Triton matmul (below).
Inputs are torch.randn scaled by K^-1/4 (C ~ N(0, 1), no f16 overflow), one
seed for every pass. Every result is checked first: C is filled with NaN,
one call, ‖C − A B‖ / ‖A B‖ < 1e-2 against an f32 torch.matmul (NaN fails).
Then each is timed the two ways of bench/harness.py: the kernel time from
CUPTI (torch.profiler around R back-to-back calls, the kernels' device time
summed / R) and the user path (CUDA events around the same R calls, mean per
call; and the median of R single calls between events). The first of
--rounds rounds (default 5) times every subject by the user path before the
profiler ever starts, then by CUPTI; later rounds time each subject both ways
back to back, so that both timings see the GPU at the same clock (a
power-limited GPU's clock drifts between measurements seconds apart). Each
figure is the median of its rounds.
R (--repeats) defaults to about 2e13 FLOP per measurement, 20 to 200 calls.

Prints the GPU, progress, then one table row per tile kernel: TFLOP/s and µs
for tile, cuBLAS and Triton by kernel time and by user path (back-to-back
mean), the single-call medians (µs), and cuBLAS time / tile time by kernel
time, by user path, and by user path timed on the very calls CUPTI timed
(CUDA events around them), with the launch tax: that paired ratio over the
kernel-time ratio − 1, in percent. A power-limited GPU's clock moves the
separately timed ratios by several percent between measurements; on the same
calls it cancels out.
With $OUT set writes $OUT/gemm.csv and, with matplotlib, $OUT/gemm.png.
Exits 1 when a result is wrong or a kernel fails.
"""
import argparse
import csv
import math
import os
import sys

import harness  # also puts python/ on sys.path
from harness import DTYPES
from tile.testing import relative_error

SHAPES = ("2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x4096x14336 "
          "8192x1024x8192 16x4096x4096")
TILE_KERNELS = {  # key: (label, layout)
    "sm90_nt": ("sm90 ws wgmma (A B^T)", "nt"),
    "sm90_nn": ("sm90 ws wgmma (A B)", "nn"),
    "multicast": ("sm90 2x1 multicast (A B^T)", "nt"),
    "sm80": ("sm80 mma.sync (A B)", "nn"),
}
SIDES = ("tile", "cublas", "triton")


def triton_matmul():
    """matmul(a, b, c): C = A B in Triton for any strides (B may be the
    transposed view of an N x K tensor), autotuned per shape and layout over
    four Hopper-sized configurations; None without Triton."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None
    configs = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "G": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 256, "BK": 32, "G": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 64, "BK": 64, "G": 8}, num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K", "sbk", "sbn"])
    @triton.jit
    def kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        in_group = G * tiles_n
        first_m = (pid // in_group) * G
        group_m = min(tiles_m - first_m, G)
        pid_m = first_m + (pid % in_group) % group_m
        pid_n = (pid % in_group) // group_m
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            kk = k0 * BK + rk
            x = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            y = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn,
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn,
                 acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    def matmul(a, b, c):
        m, k = a.shape
        n = b.shape[1]
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)  # noqa: E731
        kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                     c.stride(0), c.stride(1))

    return matmul


class Bench:
    def __init__(self, torch, args):
        self.torch, self.args = torch, args
        self.kernels = {}  # (type, example, entry) -> tile kernel, loaded once
        self.triton = None if args.no_triton else triton_matmul()
        self.results = {}  # (type, shape, subject) -> {"kernel_us", "user_us", ...}
        self.failed = []

    def kernel(self, type_, example, entry):
        key = (type_, example, entry)
        if key not in self.kernels:
            self.kernels[key] = harness.compile_example(example, type_).kernel(entry)
        return self.kernels[key]

    def subjects(self, type_, m, n, k, a, b_nt, b_nn):
        """(subject, layout, entry, run(c)) for the tile kernels that run the
        shape and for cuBLAS and Triton in both layouts."""
        kernels = self.args.kernels
        result = []
        if "sm90_nt" in kernels:
            gemm = self.kernel(type_, "gemm_sm90", "gemm_nt")
            launch = harness.sm90_launch(m, n, k)
            result.append(("sm90_nt", "nt", gemm.name,
                           lambda c: gemm(a, b_nt, c, m, n, k, *harness.sm90_extras(c),
                                          **launch)))
        if "sm90_nn" in kernels:
            gemm_nn = self.kernel(type_, "gemm_sm90", "gemm_nn")
            launch_nn = harness.sm90_launch(m, n, k)
            result.append(("sm90_nn", "nn", gemm_nn.name,
                           lambda c: gemm_nn(a, b_nn, c, m, n, k, *harness.sm90_extras(c),
                                             **launch_nn)))
        if "multicast" in kernels:
            multicast = self.kernel(type_, "gemm_sm90_multicast", "gemm")
            launch_mc = harness.multicast_launch(m, n)
            result.append(("multicast", "nt", multicast.name,
                           lambda c: multicast(a, b_nt, c, m, n, k, **launch_mc)))
        if "sm80" in kernels and m % 128 == 0 and n % 128 == 0 and k % 32 == 0:
            hgemm = self.kernel(type_, "hgemm_sm80", "hgemm_nn")
            launch_80 = harness.sm80_launch(m, n)
            result.append(("sm80", "nn", hgemm.name, lambda c: hgemm(a, b_nn, c, **launch_80)))
        matmul = self.torch.matmul
        b_t = b_nt.t()  # K x N view of the N x K tensor: cuBLAS reads A B^T
        result.append(("cublas_nt", "nt", "torch.matmul", lambda c: matmul(a, b_t, out=c)))
        result.append(("cublas_nn", "nn", "torch.matmul", lambda c: matmul(a, b_nn, out=c)))
        if self.triton:
            triton = self.triton
            result.append(("triton_nt", "nt", "triton", lambda c: triton(a, b_t, c)))
            result.append(("triton_nn", "nn", "triton", lambda c: triton(a, b_nn, c)))
        return result

    def inputs(self, type_, m, n, k):
        """A (M x K), B (N x K) and B as K x N row-major, the same values in
        every pass, and A B in f32."""
        torch = self.torch
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[type_]
        generator = torch.Generator(device="cuda").manual_seed(self.args.seed)
        scale = k ** -0.25

        def randn(*shape):
            return torch.randn(*shape, device="cuda", dtype=dtype,
                               generator=generator).mul_(scale)

        a, b_nt = randn(m, k), randn(n, k)
        b_nn = b_nt.t().contiguous()
        want = torch.matmul(a.float(), b_nt.float().t())
        return a, b_nt, b_nn, want

    def repeats(self, m, n, k):
        return self.args.repeats or max(20, min(200, int(2e13 / (2 * m * n * k))))

    def run_pass(self, timings):
        """Checks, then times every subject each way of `timings` ("user",
        "kernel"), the ways of one subject back to back, so that both see
        the GPU at the same clock."""
        for type_ in self.args.types:
            for shape in self.args.shapes:
                m, n, k = shape
                a, b_nt, b_nn, want = self.inputs(type_, m, n, k)
                repeats = self.repeats(m, n, k)
                for subject, _, entry, make in self.subjects(type_, m, n, k, a, b_nt, b_nn):
                    key = (type_, shape, subject)
                    result = self.results.setdefault(key, {"entry": entry, "repeats": repeats})
                    if "failure" in result:
                        continue
                    for timing in timings:
                        tag = f"{timing:6s} {type_:4s} {m}x{n}x{k} R={repeats:<3d} {subject:9s}"
                        try:
                            line = self.measure(timing, make, a.dtype, want, repeats, result)
                            print(f"{tag} {line}", flush=True)
                        except Exception as failure:  # noqa: BLE001 - report, go on
                            result["failure"] = f"{type(failure).__name__}: {failure}"
                            self.failed.append(key)
                            print(f"{tag} FAILED: {result['failure']}", flush=True)
                            break
                del a, b_nt, b_nn, want
                self.torch.cuda.empty_cache()

    def measure(self, timing, make, dtype, want, repeats, result):
        """One subject: one call on a NaN-filled C, checked against `want`,
        then timed into `result`; returns the progress line."""
        torch = self.torch
        c = torch.full(want.shape, float("nan"), device="cuda", dtype=dtype)
        run = lambda: make(c)  # noqa: E731
        run()
        torch.cuda.synchronize()
        result["error"] = error = relative_error(c, want)
        if not error < 1e-2:  # NaN fails too
            raise AssertionError(f"relative error {error:.3g} against torch.matmul in f32")
        if timing == "user":
            user, single = harness.user_us(run, repeats, self.args.warmup)
            result["user_us"] = record(result, "user_us", user)
            result["single_us"] = record(result, "single_us", single)
            return (f"{user:9.1f} µs/call back to back, "
                    f"{single:9.1f} single; error {error:.1e}")
        kernel, names, paired = harness.kernel_us(run, repeats, self.args.warmup)
        result["kernel_us"] = record(result, "kernel_us", kernel)
        result["paired_us"] = record(result, "paired_us", paired)
        listed = ", ".join(f"{count:g} x {name[:60]}" for name, count in names.items())
        listed = listed or "no CUPTI kernel records"
        return f"{kernel:9.1f} µs/call on the GPU: {listed}"

    def rows(self):  # noqa: C901 - one row per tile kernel
        """One row per tile kernel result with its layout's cuBLAS and Triton."""
        for type_ in self.args.types:
            for shape in self.args.shapes:
                m, n, k = shape
                flops = 2 * m * n * k
                for subject, (label, layout) in TILE_KERNELS.items():
                    tile = self.results.get((type_, shape, subject))
                    if tile is None:
                        continue
                    row = {"kernel": label, "type": type_, "m": m, "n": n, "k": k,
                           "repeats": tile.get("repeats"), "tile_entry": tile["entry"],
                           "tile_error": tile.get("error"), "failure": tile.get("failure", "")}
                    for side in SIDES:
                        r = tile if side == "tile" else self.results.get(
                            (type_, shape, f"{side}_{layout}"), {})
                        for timing in ("kernel", "user", "single", "paired"):
                            us = r.get(f"{timing}_us", math.nan)
                            row[f"{side}_{timing}_us"] = us
                            row[f"{side}_{timing}_tflops"] = flops / us / 1e6
                    for timing in ("kernel", "user", "single", "paired"):
                        row[f"ratio_{timing}"] = (row[f"cublas_{timing}_us"]
                                                  / row[f"tile_{timing}_us"])
                    # The launch tax: the user-path ratio over the kernel-time
                    # ratio on the same calls (the GPU's clock cancels out).
                    row["ratio_diff_pct"] = 100 * (row["ratio_paired"] / row["ratio_kernel"] - 1)
                    yield row


def record(result, key, value):
    """Adds one round's `value` to result[key + "_rounds"]; returns the
    median over the rounds so far (the clock of a power-limited GPU drifts
    between measurements seconds apart: medians of interleaved rounds)."""
    values = sorted(result.setdefault(key + "_rounds", []) + [value])
    result[key + "_rounds"] = values
    return values[len(values) // 2]


def print_table(rows):
    cell = lambda tf, us: f"{tf:6.1f} {us:8.1f}"  # noqa: E731
    print("\nTFLOP/s and µs per call; kernel time: CUPTI's kernel records / R; user path: CUDA "
          "events around R back-to-back calls / R;\n1-call: median of single calls between "
          "events (µs); ratios: cuBLAS time / tile time by kernel time, by user path, and by\n"
          "user path on the calls CUPTI timed ('paired'); diff: paired ratio / kernel ratio - 1, "
          "the launch tax (the GPU's clock, which drifts by several percent, cancels out).")
    sides = " ".join(f"{s:>15s}" for s in ("tile", "cuBLAS", "Triton"))
    print(f"{'':26s} {'':4s} {'':16s} | {'kernel time':^47s} | {'user path':^47s} | "
          f"{'1-call µs':^26s} | cuBLAS/tile")
    print(f"{'kernel':26s} {'type':4s} {'M x N x K':16s} | {sides} | {sides} | "
          f"{'tile':>8s} {'cuBLAS':>8s} {'Triton':>8s} | kernel   user paired  diff")
    for r in rows:
        shape = f"{r['m']}x{r['n']}x{r['k']}"
        head = f"{r['kernel']:26s} {r['type']:4s} {shape:16s} |"
        if r["failure"]:
            print(f"{head} FAILED: {r['failure']}")
            continue
        kernel = " ".join(cell(r[f"{s}_kernel_tflops"], r[f"{s}_kernel_us"]) for s in SIDES)
        user = " ".join(cell(r[f"{s}_user_tflops"], r[f"{s}_user_us"]) for s in SIDES)
        single = " ".join(f"{r[f'{s}_single_us']:8.1f}" for s in SIDES)
        print(f"{head} {kernel} | {user} | {single} | {r['ratio_kernel']:6.3f} "
              f"{r['ratio_user']:6.3f} {r['ratio_paired']:6.3f} {r['ratio_diff_pct']:+5.1f}%")


def write_csv(rows, path):
    rows = list(rows)
    if not rows:
        return
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({key: ("" if isinstance(v, float) and math.isnan(v) else
                                   f"{v:.4g}" if isinstance(v, float) else v)
                             for key, v in row.items()})


def plot(rows, path):
    """TFLOP/s by kernel time (top) and by user path (bottom): the tile
    kernels, cuBLAS and Triton per layout."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no plot (matplotlib missing)")
        return
    rows = [r for r in rows if not r["failure"]]
    shape = lambda r: f"{r['type']} {r['m']}x{r['n']}x{r['k']}"  # noqa: E731
    labels = list(dict.fromkeys(shape(r) for r in rows))
    fig, axes = plt.subplots(2, 1, figsize=(15, 9), sharex=True)
    for ax, timing, title in zip(axes, ("kernel", "user"),
                                 ("kernel time (CUPTI)", "user path (CUDA events, back to back)")):
        series, layouts = [], {}
        for kernel in dict.fromkeys(r["kernel"] for r in rows):
            series.append((f"tile {kernel}", {shape(r): r[f"tile_{timing}_tflops"]
                                              for r in rows if r["kernel"] == kernel}))
            layouts.setdefault(kernel.split("(")[-1].rstrip(")"), kernel)
        for side, name in (("cublas", "cuBLAS"), ("triton", "Triton")):
            for layout, kernel in layouts.items():
                ys = {shape(r): r[f"{side}_{timing}_tflops"] for r in rows
                      if r["kernel"] == kernel and not math.isnan(r[f"{side}_{timing}_tflops"])}
                if ys:
                    series.append((f"{name} {layout}", ys))
        width = 0.8 / max(len(series), 1)
        for index, (name, ys) in enumerate(series):
            ax.bar([i + (index - (len(series) - 1) / 2) * width for i in range(len(labels))],
                   [0 if math.isnan(ys.get(x, math.nan)) else ys[x] for x in labels],
                   width, label=name)
        ax.set_title(title)
        ax.set_ylabel("TFLOP/s")
        ax.legend(fontsize=7, ncol=2)
    axes[-1].set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def parse_shape(text):
    m, n, k = (int(v) for v in text.lower().split("x"))
    return m, n, k


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--types", nargs="+", choices=DTYPES,
                        default=os.environ.get("TYPES", " ".join(DTYPES)).split())
    parser.add_argument("--shapes", nargs="+", type=parse_shape,
                        default=[parse_shape(s) for s in os.environ.get("SHAPES", SHAPES).split()],
                        help="MxNxK (default $SHAPES or the six above)")
    parser.add_argument("--kernels", nargs="+", choices=list(TILE_KERNELS),
                        default=list(TILE_KERNELS), help="tile kernels to run")
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: ~2e13 FLOP, 20 to 200)")
    parser.add_argument("--warmup", type=int, default=10, help="calls before each measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=5,
                        help="rounds of both timings; each figure is the median of its rounds")
    parser.add_argument("--no-triton", action="store_true")
    args = parser.parse_args()
    bad = [f"{m}x{n}x{k}" for m, n, k in args.shapes if n % 8 or k % 8]
    if bad:
        parser.error(f"N and K must be multiples of 8 (TMA row strides): {' '.join(bad)}")

    torch = harness.torch_or_exit("gemm.py")
    harness.describe_device()
    if torch.cuda.get_device_capability() < (9, 0):
        sys.exit("gemm.py: the Hopper kernels need sm_90a")
    bench = Bench(torch, args)
    if bench.triton is None and not args.no_triton:
        print("Triton not installed: no Triton columns")
    bench.run_pass(("user",))  # a first round before any profiler has started
    bench.run_pass(("kernel",))
    for _ in range(args.rounds - 1):
        bench.run_pass(("user", "kernel"))
    rows = list(bench.rows())
    print_table(rows)
    out = os.environ.get("OUT")
    if out:
        write_csv(rows, os.path.join(out, "gemm.csv"))
        plot(rows, os.path.join(out, "gemm.png"))
    if bench.failed:
        print(f"\n{len(bench.failed)} failed: " + ", ".join(
            f"{t} {m}x{n}x{k} {s}" for t, (m, n, k), s in bench.failed))
        sys.exit(1)


if __name__ == "__main__":
    main()
