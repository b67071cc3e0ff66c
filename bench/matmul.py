#!/usr/bin/env python3
"""tile.matmul against torch.matmul (cuBLAS) as a user calls them.

    PYTHONPATH=python python3 bench/matmul.py [--types f16 bf16] [--shapes 16x8192x8192 ...]
                                              [--layouts nt nn] [--tune] [--no-triton]
                                              [--csv FILE] [--plot FILE.png] [--repeats R]

For each element type, shape MxNxK and layout (nt: B given as N x K with
transpose_b=True; nn: B given as K x N) it checks tile.matmul against an f32
torch.matmul (relative error < 1e-2), then times both sides the same two
ways (bench/harness.py): the kernel time from CUPTI — every kernel a call
launches, so tile.matmul's staging copies of unaligned operands count; the
median of --rounds rounds that alternate tile and cuBLAS — and
the user path (CUDA events around back-to-back calls). Prints one row per
case: the kernels tile.matmul ran, µs both ways (and Triton's kernel time,
bench/gemm.py's autotuned Triton matmul), cuBLAS time / tile time by kernel
time and by user path, Triton time / tile time, and tile's effective bandwidth
(bytes of A, B and C over its kernel time) against the device-to-device
copy bandwidth measured first. The default shapes are decode
(M = 1..64, N = K = 8192 and 14336 x 4096), squares, skinny shapes with a
large K and unaligned K or N. --csv writes the rows (card named), --plot a bar
chart of the ratios.
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from gemm import triton_matmul  # noqa: E402
from tile.testing import relative_error  # noqa: E402

DECODE = [f"{m}x{n}x{k}" for n, k in ((8192, 8192), (14336, 4096)) for m in (1, 8, 16, 32, 64)]
SHAPES = DECODE + ["4096x4096x4096", "8192x8192x8192", "256x16384x8192", "16384x256x8192",
                   "4096x4096x4095", "2000x3000x999"]


def copy_bandwidth(torch) -> float:
    """Device-to-device copy bandwidth in GB/s: bytes read + written by
    back-to-back 1 GiB copies (cudaMemcpyAsync, which CUPTI records as a
    copy, not a kernel) over their CUDA-event time — the card's measured
    ceiling; launch cost is negligible beside 1 GiB."""
    src = torch.empty(2**29, device="cuda", dtype=torch.float16)
    dst = torch.empty_like(src)
    us, _ = harness.user_us(lambda: dst.copy_(src), 20)
    return 2 * src.numel() * 2 / us / 1e3


def plot(rows, path, title):
    """cuBLAS time / tile time (and / Triton time) by kernel time per case,
    a bar pair per case, the 1.0 line drawn; skipped without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no plot")
        return
    cases = [r["case"] for r in rows]
    figure, axes = plt.subplots(figsize=(max(8, len(cases) * 0.35), 5))
    xs = range(len(cases))
    axes.bar([x - 0.2 for x in xs], [r["cublas_kernel_us"] / r["tile_kernel_us"] for r in rows],
             0.4, label="cuBLAS time / tile time")
    if any(r["triton_kernel_us"] for r in rows):
        axes.bar([x + 0.2 for x in xs],
                 [r["triton_kernel_us"] / r["tile_kernel_us"] if r["triton_kernel_us"] else 0
                  for r in rows], 0.4, label="Triton time / tile time")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(list(xs), cases, rotation=90, fontsize=7)
    axes.set_ylabel("speedup of tile (kernel time)")
    axes.set_title(title, fontsize=9)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"plot: {path}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--types", nargs="+", default=["f16", "bf16"])
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--layouts", nargs="+", default=["nt", "nn"])
    parser.add_argument("--tune", action="store_true",
                        help="tile.matmul(..., tune=True): decode shapes run the autotuned "
                             "config (tuned before timing, cached on disk)")
    parser.add_argument("--no-triton", action="store_true", help="skip Triton")
    parser.add_argument("--csv", help="write the rows to this CSV file")
    parser.add_argument("--plot", help="write a bar chart of the ratios to this PNG")
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: about 2e13 FLOP, 20 to 200)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="kernel-time rounds, tile and cuBLAS alternating; medians")
    args = parser.parse_args()
    torch = harness.torch_or_exit("matmul.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    triton = None if args.no_triton else triton_matmul()
    copy = copy_bandwidth(torch)
    print(f"device-to-device copy: {copy:.0f} GB/s (read + write, CUDA events)")
    print(f"{'case':30} | {'kernels':38} | {'kernel µs tile / cuBLAS / Triton':>32} | "
          f"{'user path µs tile / cuBLAS':>26} | cuBLAS/tile kernel  user | Triton/tile | "
          f"tile GB/s, % of copy")
    rows = []
    for type_ in args.types:
        dtype = {"f16": torch.float16, "bf16": torch.bfloat16}[type_]
        for shape in args.shapes:
            m, n, k = (int(v) for v in shape.split("x"))
            flops = 2 * m * n * k
            moved = (m * k + k * n + m * n) * 2  # bytes of A, B and C
            repeats = args.repeats or max(20, min(200, int(2e13 / flops)))
            generator = torch.Generator(device="cuda").manual_seed(0)
            a = torch.randn(m, k, device="cuda", dtype=dtype, generator=generator) / k ** 0.25
            b_nk = torch.randn(n, k, device="cuda", dtype=dtype, generator=generator) / k ** 0.25
            b_kn = b_nk.t().contiguous()
            reference = a.float() @ b_kn.float()
            c = torch.empty(m, n, device="cuda", dtype=dtype)
            for layout in args.layouts:
                b_logical = b_nk.t() if layout == "nt" else b_kn
                if layout == "nt":
                    ours = lambda: tile.matmul(a, b_nk, out=c, transpose_b=True,  # noqa: E731
                                               tune=args.tune)
                else:
                    ours = lambda: tile.matmul(a, b_kn, out=c, tune=args.tune)  # noqa: E731
                theirs = lambda: torch.matmul(a, b_logical, out=c)  # noqa: E731
                case = f"{type_} {layout} {m}x{n}x{k}"
                c.fill_(float("nan"))
                ours()
                error = relative_error(c, reference)
                if not error < 1e-2:
                    print(f"{case:30} | WRONG: relative error {error:.2e}")
                    continue
                # Alternating rounds: the power-limited clock drifts between
                # measurements seconds apart; the medians of interleaved
                # rounds see the same drift on both sides.
                tile_times, cublas_times = [], []
                for _ in range(max(1, args.rounds)):
                    tile_time, names, _ = harness.kernel_us(ours, repeats)
                    tile_times.append(tile_time)
                    cublas_times.append(harness.kernel_us(theirs, repeats)[0])
                tile_kernel = statistics.median(tile_times)
                cublas_kernel = statistics.median(cublas_times)
                triton_kernel = None
                if triton is not None:
                    run_triton = lambda: triton(a, b_logical, c)  # noqa: E731
                    c.fill_(float("nan"))
                    run_triton()
                    if relative_error(c, reference) < 1e-2:
                        triton_kernel = harness.kernel_us(run_triton, repeats)[0]
                tile_user, _ = harness.user_us(ours, repeats)
                cublas_user, _ = harness.user_us(theirs, repeats)
                kernels = ", ".join(f"{name.split('(')[0]} x{count:g}"
                                    for name, count in names.items())
                row = dict(card=card, case=case, kernels=kernels, tile_kernel_us=tile_kernel,
                           cublas_kernel_us=cublas_kernel, triton_kernel_us=triton_kernel,
                           tile_user_us=tile_user, cublas_user_us=cublas_user,
                           tile_gbs=moved / tile_kernel / 1e3, copy_gbs=copy)
                rows.append(row)
                triton_text = f"{triton_kernel:8.1f}" if triton_kernel else "       -"
                triton_ratio = f"{triton_kernel / tile_kernel:5.2f}" if triton_kernel else "    -"
                print(f"{case:30} | {kernels[-38:]:38} | {tile_kernel:8.1f} {cublas_kernel:8.1f} "
                      f"{triton_text} {'':5} | {tile_user:8.1f} {cublas_user:8.1f} {'':8} | "
                      f"{cublas_kernel / tile_kernel:5.2f} {cublas_user / tile_user:5.2f} {'':6} | "
                      f"{triton_ratio} {'':5} | "
                      f"{row['tile_gbs']:6.0f} {row['tile_gbs'] / copy:4.0%}", flush=True)
    if args.csv:
        harness.write_csv(rows, args.csv)
    if args.plot and rows:
        plot(rows, args.plot, f"tile.matmul vs cuBLAS and Triton, {card}, kernel time")


if __name__ == "__main__":
    main()
