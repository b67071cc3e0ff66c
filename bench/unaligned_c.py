#!/usr/bin/env python3
"""tile.matmul with a C whose rows TMA cannot write (an odd N: a vocabulary
of 50257 tokens, say), stored by the kernel in place against the same call
staged (C written into aligned rows, then copied out) and cuBLAS.

    PYTHONPATH=python python3 bench/unaligned_c.py [--shapes 4096x50257x768 ...]
                                                   [--rounds 3] [--csv FILE]

bf16, B an nn.Linear weight (N x K, transpose_b=True). Four sides a
shape, checked against an f32 product first: tile.matmul into an out at an
aligned address (the persistent kernels' own stores, or a decode
kernel's), the same call into an out one element past an aligned address
(whose pairs the stores cannot take: C staged, as every odd N was before),
torch.matmul into an out, and as a reference tile.matmul of N rounded up to
a multiple of 8 (C's rows TMA's to write). Kernel time from CUPTI (every
kernel and copy a call runs, medians of --rounds rotated rounds) and the
user path (CUDA events around back-to-back calls), cuBLAS / tile both ways.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from tile.testing import relative_error  # noqa: E402

#: GPT-2's LM head (vocabulary 50257, hidden 768) at prefill and decode
#: token counts, an odd N of a square-ish product, and the small odd shape
#: whose user path is host time.
SHAPES = ["4096x50257x768", "1024x50257x768", "128x50257x768", "16x50257x768",
          "4096x4095x4096", "1000x1001x512", "777x1111x333"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--csv", help="write the rows to this CSV file")
    args = parser.parse_args()
    torch = harness.torch_or_exit("unaligned_c.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    print(f"{'shape':18} | {'kernel µs direct / staged / cuBLAS / N8':>42} | "
          f"{'user µs direct / staged / cuBLAS':>34} | cuBLAS/direct kernel user | "
          f"staged/direct N8/direct kernel")
    rows = []
    for shape in args.shapes:
        m, n, k = (int(v) for v in shape.split("x"))
        generator = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=generator)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16,
                        generator=generator) / k ** 0.5
        want = a.float() @ w.float().t()
        direct = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        shifted = torch.empty(m * n + 1, device="cuda", dtype=torch.bfloat16)[1:].view(m, n)
        theirs = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        n8 = n + -n % 8
        w8 = torch.zeros(n8, k, device="cuda", dtype=torch.bfloat16)
        w8[:n] = w
        aligned = torch.empty(m, n8, device="cuda", dtype=torch.bfloat16)
        sides = [lambda: tile.matmul(a, w, transpose_b=True, out=direct),
                 lambda: tile.matmul(a, w, transpose_b=True, out=shifted),
                 lambda: torch.matmul(a, w.t(), out=theirs),
                 lambda: tile.matmul(a, w8, transpose_b=True, out=aligned)]
        for side, out in zip(sides, (direct, shifted, theirs, aligned)):
            out.fill_(float("nan"))
            side()
            error = relative_error(out[:, :n], want)
            assert error < 1e-2, (shape, error)
        repeats = max(20, min(200, int(2e12 / (2 * m * n * k))))
        kernel = harness.rotated_kernel_us(sides, args.rounds, repeats, copies=True)
        user = [harness.user_us(side, repeats)[0] for side in sides[:3]]
        row = dict(card=card, shape=shape, direct_us=kernel[0], staged_us=kernel[1],
                   cublas_us=kernel[2], aligned_n_us=kernel[3], direct_user_us=user[0],
                   staged_user_us=user[1], cublas_user_us=user[2],
                   kernel_ratio=kernel[2] / kernel[0], user_ratio=user[2] / user[0],
                   staged_over_direct=kernel[1] / kernel[0],
                   aligned_over_direct=kernel[3] / kernel[0])
        rows.append(row)
        print(f"{shape:18} | {kernel[0]:8.1f} / {kernel[1]:8.1f} / {kernel[2]:8.1f} / "
              f"{kernel[3]:8.1f} | {user[0]:9.1f} / {user[1]:9.1f} / {user[2]:9.1f} | "
              f"{row['kernel_ratio']:12.2f} {row['user_ratio']:5.2f} | "
              f"{row['staged_over_direct']:8.2f} {row['aligned_over_direct']:8.2f}", flush=True)
    if args.csv:
        harness.write_csv(rows, args.csv)


if __name__ == "__main__":
    main()
