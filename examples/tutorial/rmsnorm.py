"""The tutorial's driver (docs/Tutorial.md): the RMSNorm kernels of this
directory, launched on PyTorch tensors and checked against PyTorch.

    python examples/tutorial/rmsnorm.py               # check each kernel, time it
    python examples/tutorial/rmsnorm.py --rows 16384  # another shape

    y = rmsnorm(x, w, eps)   # x: (rows, 4096) bf16 CUDA tensor, w: (4096,) bf16
"""
import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
try:
    import tile
except ImportError:  # run from a checkout: the repository's package
    sys.path.insert(0, str(HERE.parents[1] / "python"))
    import tile

HIDDEN = 4096        # the kernels' row length (memref<?x4096xbf16>)
THREADS = 512        # known_block_size: 8 elements a thread
CTAS_PER_SM = 2      # the persistent kernel's grid: 2 CTAs an SM
# name: (file, kernel, persistent: one CTA loops over rows)
KERNELS = {
    "shuffles": ("rmsnorm_shuffles.mlir", "rmsnorm", False),
    "reduce": ("rmsnorm.mlir", "rmsnorm", False),
    "pipelined": ("rmsnorm_pipelined.mlir", "rmsnorm_rows", True),
}
_loaded = {}


def kernel(name: str):
    """The compiled kernel `name` of KERNELS (compiled once, then cached)."""
    if name not in _loaded:
        file, function, _ = KERNELS[name]
        _loaded[name] = tile.compile(HERE / file, chip="sm_90a").kernel(function)
    return _loaded[name]


def rmsnorm(x, w, eps: float = 1e-6, out=None, variant: str = "reduce"):
    """x * rsqrt(mean(x^2, -1) + eps) * w with the tutorial's kernel
    `variant`, on x's device and PyTorch's current stream."""
    import torch
    if x.dim() != 2 or x.shape[1] != HIDDEN or w.shape != (HIDDEN,):
        raise ValueError(f"takes x of shape (rows, {HIDDEN}) and w of shape ({HIDDEN},), "
                         f"got {tuple(x.shape)} and {tuple(w.shape)}")
    y = torch.empty_like(x) if out is None else out
    rows = x.shape[0]
    if rows == 0:
        return y
    persistent = KERNELS[variant][2]
    if persistent:  # two CTAs an SM, each with 3 rows in flight
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count
        grid = min(rows, CTAS_PER_SM * sms)
    else:
        grid = rows
    kernel(variant)(x, w, y, float(eps), grid=(grid, 1, 1), block=(THREADS, 1, 1))
    return y


def reference(x, w, eps: float = 1e-6):
    """RMSNorm in float32, rounded to x's type."""
    import torch
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=8192)
    parser.add_argument("--eps", type=float, default=1e-6)
    args = parser.parse_args()
    import torch
    from tile.testing import median_ms
    x = torch.randn(args.rows, HIDDEN, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(HIDDEN, device="cuda", dtype=torch.bfloat16)
    want = reference(x, w, args.eps)
    moved = 2 * x.numel() * x.element_size()  # bytes read and written
    for variant in KERNELS:
        y = rmsnorm(x, w, args.eps, variant=variant)
        error = (y.float() - want.float()).abs().max().item()
        ms = median_ms(lambda: rmsnorm(x, w, args.eps, out=y, variant=variant))
        print(f"{variant:10s} max |y - reference| = {error:.3g}   "
              f"{ms * 1e3:8.1f} us  {moved / ms / 1e6:7.0f} GB/s")
    ms = median_ms(lambda: torch.nn.functional.rms_norm(x, (HIDDEN,), w, args.eps))
    print(f"{'torch':10s} {'':29s}{ms * 1e3:8.1f} us  {moved / ms / 1e6:7.0f} GB/s")


if __name__ == "__main__":
    main()
