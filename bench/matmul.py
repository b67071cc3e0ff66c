#!/usr/bin/env python3
"""tile.matmul against torch.matmul (cuBLAS) as a user calls them.

    PYTHONPATH=python python3 bench/matmul.py [--types f16 bf16] [--shapes 16x8192x8192 ...]
                                              [--layouts nt nn] [--tune] [--repeats R]

For each element type, shape MxNxK and layout (nt: B given as N x K with
transpose_b=True; nn: B given as K x N) it checks tile.matmul against an f32
torch.matmul (relative error < 1e-2), then times both sides the same two
ways (bench/harness.py): the kernel time from CUPTI — every kernel a call
launches, so tile.matmul's staging copies of unaligned operands count — and
the user path (CUDA events around back-to-back calls). Prints one row per
case: the kernels tile.matmul ran, TFLOP/s and µs both ways, and cuBLAS time
/ tile time by kernel time and by user path, and tile's effective bandwidth
(bytes of A, B and C over its kernel time) against the device-to-device
copy bandwidth measured first. The default shapes are decode
(M = 1..64, N = K = 8192 and 14336 x 4096), squares, skinny shapes with a
large K and unaligned K or N.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--types", nargs="+", default=["f16", "bf16"])
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--layouts", nargs="+", default=["nt", "nn"])
    parser.add_argument("--tune", action="store_true",
                        help="tile.matmul(..., tune=True): decode shapes run the autotuned "
                             "config (tuned before timing, cached on disk)")
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: about 2e13 FLOP, 20 to 200)")
    args = parser.parse_args()
    torch = harness.torch_or_exit("matmul.py")
    harness.describe_device()
    copy = copy_bandwidth(torch)
    print(f"device-to-device copy: {copy:.0f} GB/s (read + write, CUPTI)")
    print(f"{'case':34} | {'kernels':44} | {'kernel time TFLOP/s, µs':>29} | "
          f"{'user path TFLOP/s, µs':>29} | cuBLAS/tile kernel  user | "
          f"tile GB/s, % of copy")
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
                if layout == "nt":
                    ours = lambda: tile.matmul(a, b_nk, out=c, transpose_b=True,  # noqa: E731
                                               tune=args.tune)
                    theirs = lambda: torch.matmul(a, b_nk.t(), out=c)  # noqa: E731
                else:
                    ours = lambda: tile.matmul(a, b_kn, out=c, tune=args.tune)  # noqa: E731
                    theirs = lambda: torch.matmul(a, b_kn, out=c)  # noqa: E731
                c.fill_(float("nan"))
                ours()
                error = relative_error(c, reference)
                case = f"{type_} {layout} {m}x{n}x{k}"
                if not error < 1e-2:
                    print(f"{case:34} | WRONG: relative error {error:.2e}")
                    continue
                tile_kernel, names, _ = harness.kernel_us(ours, repeats)
                cublas_kernel, _, _ = harness.kernel_us(theirs, repeats)
                tile_user, _ = harness.user_us(ours, repeats)
                cublas_user, _ = harness.user_us(theirs, repeats)
                kernels = ", ".join(f"{name.split('(')[0][:28]}x{count:g}"
                                    for name, count in names.items())
                tflops = lambda us: flops / us / 1e6  # noqa: E731
                print(f"{case:34} | {kernels:44.44} | "
                      f"{tflops(tile_kernel):6.1f} {tile_kernel:7.1f} / {tflops(cublas_kernel):6.1f} "
                      f"{cublas_kernel:7.1f} | {tflops(tile_user):6.1f} {tile_user:7.1f} / "
                      f"{tflops(cublas_user):6.1f} {cublas_user:7.1f} | "
                      f"{cublas_kernel / tile_kernel:5.2f} {cublas_user / tile_user:5.2f} | "
                      f"{moved / tile_kernel / 1e3:6.0f} {moved / tile_kernel / 1e3 / copy:4.0%}",
                      flush=True)


if __name__ == "__main__":
    main()
