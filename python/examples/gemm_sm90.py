#!/usr/bin/env python3
"""tile.matmul on PyTorch tensors: the Hopper GEMM of python/tile/kernels/gemm_sm90.mlir
(compiled on first use and cached), checked against torch.matmul and timed
against it.

    python3 python/examples/gemm_sm90.py [M N K]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tile  # noqa: E402
from tile.testing import cuda_torch, median_ms, relative_error  # noqa: E402


def main():
    m, n, k = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (4096, 4096, 4096)
    torch, reason = cuda_torch()
    if torch is None:
        sys.exit(f"gemm_sm90.py {reason}")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)

    def run():
        tile.matmul(a, b, out=c, transpose_b=True)  # C = A B^T

    run()
    error = relative_error(c, a @ b.t())
    print(f"C = A B^T, {m}x{n}x{k} f16: relative error against torch.matmul {error:.2e}")
    flops = 2 * m * n * k
    ours, theirs = median_ms(run), median_ms(lambda: torch.matmul(a, b.t(), out=c))
    print(f"tile.matmul {flops / ours / 1e9:.1f} TFLOP/s, torch.matmul {flops / theirs / 1e9:.1f} "
          f"TFLOP/s (median of 20 calls each, CUDA events around the calls)")


if __name__ == "__main__":
    main()
