#!/usr/bin/env python3
"""FP8 tile.matmul against torch._scaled_mm (cuBLAS FP8) as a user calls them.

    PYTHONPATH=python python3 bench/matmul_fp8.py [--shapes 8192x8192x8192 ...]
                                                  [--scaling tensor row block] [--rounds 3]
                                                  [--csv FILE] [--plot FILE.png]

For each shape MxNxK and scaling on e4m3 operands (A M x K, W N x K, the
product A W^T in bf16) quantized from the same float32 matrices (random, with
outlier columns in A) — tensor: one float32 scale per operand; row: one per
row of A and of W; block: one per 1x128 block of A and 128x128 block of W
(tile's promoted kernel; cuBLAS then runs the row-wise quantization of the
same matrices) — prints the relative error of tile's and cuBLAS's products
against the float32 product of the original matrices, then times tile,
torch._scaled_mm as called by default (cuBLAS promotes the FP8 partial sums
into f32 periodically) and with use_fast_accum=True (it accumulates in the
tensor cores' own precision, as tile's per-tensor and row-wise kernels do:
the like-for-like comparison) the same two ways
(bench/harness.py): kernel time from CUPTI, the median of --rounds rounds
in rotated order, and the user path (CUDA events around
back-to-back calls). Prints µs, TFLOP/s and cuBLAS time / tile time; --csv
writes the rows (card named), --plot a bar chart of the ratios.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from tile.testing import quantize_fp8, relative_error  # noqa: E402

SHAPES = ["8192x8192x8192", "4096x7168x16384", "4096x4096x4096", "2048x7168x4096",
          "16384x1024x8192"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--scaling", nargs="+", default=["tensor", "row", "block"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: about 4e13 FLOP, 20 to 200)")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    args = parser.parse_args()
    torch = harness.torch_or_exit("matmul_fp8.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    print(f"{'case':24} | {'kernel µs tile / cuBLAS / fast':>30} | "
          f"{'TFLOP/s tile / cuBLAS / fast':>28} | {'user µs tile / cuBLAS':>21} | "
          f"cuBLAS/tile fast/tile user | rel. error tile / cuBLAS")
    rows = []
    for shape in args.shapes:
        m, n, k = (int(v) for v in shape.split("x"))
        flops = 2 * m * n * k
        repeats = args.repeats or max(20, min(200, int(4e13 / flops)))
        generator = torch.Generator(device="cuda").manual_seed(0)
        # Float32 operands with outlier columns (as activations have), and
        # the float32 product the quantized products are compared with.
        x = torch.randn(m, k, device="cuda", generator=generator)
        y = torch.randn(n, k, device="cuda", generator=generator)
        x[:, ::97] *= 30
        exact = x @ y.t()
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        for scaling in args.scaling:
            # tile and cuBLAS on the same FP8 data, except for block scales,
            # which cuBLAS is given as row-wise scales of the same matrices.
            blocks = {"tensor": ((m, k), (n, k)), "row": ((1, k), (1, k)),
                      "block": ((1, 128), (128, 128))}[scaling]
            a, sa = quantize_fp8(x, blocks[0])
            w, sb = quantize_fp8(y, blocks[1])
            ca, csa, cw, csb = a, sa, w, sb.t()
            if scaling == "block":
                ca, csa = quantize_fp8(x, (1, k))
                cw, csb = quantize_fp8(y, (1, k))
                csb = csb.t()
            if scaling == "tensor":
                sa, sb, csa, csb = sa.reshape(()), sb.reshape(()), csa.reshape(()), csb.reshape(())
            ours = lambda: tile.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=c)  # noqa: E731

            def theirs(fast=False):
                return torch._scaled_mm(ca, cw.t(), scale_a=csa, scale_b=csb,
                                        out_dtype=torch.bfloat16, use_fast_accum=fast)
            fast = lambda: theirs(True)  # noqa: E731
            case = f"e4m3 {scaling} {m}x{n}x{k}"
            c.fill_(float("nan"))
            ours()
            error = relative_error(c, exact)
            cublas_error = relative_error(theirs(), exact)
            # The same FP8 data: tile's error is cuBLAS's (both round the
            # f32 sums to bf16); block scales: below the row-wise error.
            bound = cublas_error * (1.0 if scaling == "block" else 1.5) + 1e-3
            if not error <= bound:
                print(f"{case:24} | WRONG: relative error {error:.2e} (cuBLAS {cublas_error:.2e})")
                continue
            tile_kernel, cublas_kernel, fast_kernel = harness.rotated_kernel_us(
                [ours, theirs, fast], args.rounds, repeats)
            tile_user, _ = harness.user_us(ours, repeats)
            cublas_user, _ = harness.user_us(theirs, repeats)
            row = dict(card=card, case=case, tile_kernel_us=tile_kernel,
                       cublas_kernel_us=cublas_kernel, cublas_fast_kernel_us=fast_kernel,
                       tile_tflops=flops / tile_kernel / 1e6,
                       cublas_tflops=flops / cublas_kernel / 1e6,
                       cublas_fast_tflops=flops / fast_kernel / 1e6, tile_user_us=tile_user,
                       cublas_user_us=cublas_user, tile_error=error, cublas_error=cublas_error)
            rows.append(row)
            print(f"{case:24} | {tile_kernel:9.1f} {cublas_kernel:9.1f} {fast_kernel:9.1f}  | "
                  f"{row['tile_tflops']:8.0f} {row['cublas_tflops']:8.0f} "
                  f"{row['cublas_fast_tflops']:8.0f}   | {tile_user:9.1f} {cublas_user:9.1f}   | "
                  f"{cublas_kernel / tile_kernel:8.2f} {fast_kernel / tile_kernel:8.2f} "
                  f"{cublas_user / tile_user:5.2f}  | {error:.2e} / {cublas_error:.2e}",
                  flush=True)
    if args.csv:
        harness.write_csv(rows, args.csv)
    if args.plot and rows:
        harness.ratio_plot(
            rows, args.plot, f"FP8 tile.matmul vs torch._scaled_mm, {card}, kernel time",
            {"torch._scaled_mm": lambda r: r["cublas_kernel_us"] / r["tile_kernel_us"],
             "torch._scaled_mm(use_fast_accum=True)":
                 lambda r: r["cublas_fast_kernel_us"] / r["tile_kernel_us"]},
            ylabel="cuBLAS time / tile time (kernel)")


if __name__ == "__main__":
    main()
