#!/usr/bin/env python3
"""The Hopper GEMM of examples/gemm_sm90.mlir called from Python on PyTorch
tensors: compiled with tile-opt's pipeline (cached), launched through
libtile_runtime, checked against torch.matmul and timed against it.

    python3 python/examples/gemm_sm90.py [M N K]
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tile  # noqa: E402
from tile.testing import cuda_torch, median_ms, relative_error  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


def main():
    m, n, k = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (4096, 4096, 4096)
    torch, reason = cuda_torch()
    if torch is None:
        sys.exit(f"gemm_sm90.py {reason}")
    module = tile.compile(REPO / "examples" / "gemm_sm90.mlir", chip="sm_90a")
    gemm = module.kernel("gemm_nt")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    grid = (min(-(-m // 128) * -(-n // 256), 132), 1, 1)

    def run():
        gemm(a, b, c, m, n, k, grid=grid, block=(384, 1, 1), shared=229376,
             synchronize=False)

    run()
    error = relative_error(c, a @ b.t())
    print(f"C = A B^T, {m}x{n}x{k} f16: relative error against torch.matmul {error:.2e}")
    flops = 2 * m * n * k
    ours, theirs = median_ms(run), median_ms(lambda: a @ b.t())
    print(f"tile {flops / ours / 1e9:.1f} TFLOP/s, torch.matmul {flops / theirs / 1e9:.1f} "
          f"TFLOP/s (median of 20 launches each, CUDA events)")


if __name__ == "__main__":
    main()
