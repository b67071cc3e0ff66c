#!/usr/bin/env python3
"""The Ampere hgemm (examples/hgemm_sm80.mlir's C = A B kernel) built in
Python with tile.builder, compiled through tile-to-ptx-pipeline (the loop's
pipeline_stages = 3 becomes the cp.async ring), run on PyTorch tensors,
checked against torch.matmul and timed against it.

    python3 python/examples/hgemm.py [M N K]      # prints the IR without a GPU
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tile.builder import Module, memref  # noqa: E402
from tile.testing import cuda_torch, median_ms, relative_error  # noqa: E402

TILE, SLICE = 128, 32


def build() -> Module:
    """C (M x N, f16) = A (M x K) B (K x N): 128x128 CTA tiles, 32-wide K
    slices copied with a CuTe TiledCopy's layouts (threads (32,4):(4,1),
    values (1,8)) into swizzled buffers, a 2x2 warp grid of mma.sync, the
    epilogue through a shared C tile."""
    module = Module()
    matrix = memref("?x?", "f16")
    with module.kernel("hgemm", a=matrix, b=matrix, c=matrix, block=(128, 1, 1)) as k:
        a, b, c = k.arg("a"), k.arg("b"), k.arg("c")
        m, n, kk = k.dim(c, 0), k.dim(c, 1), k.dim(a, 1)
        m0, n0 = k.block_id("y") * TILE, k.block_id("x") * TILE
        sa = k.shared([TILE, SLICE], "f16", swizzle="b128")
        sb = k.shared([SLICE, TILE], "f16", swizzle="3, 4, 4")  # K x N: 256-byte rows
        sc = k.shared([TILE, TILE], "f16", swizzle="b128", dynamic=True)
        slices = (kk + (SLICE - 1)) // SLICE
        loop = k.loop(0, slices, 1, init=[k.zeros("vector<4x8x2x2xf32>")], pipeline_stages=3)
        with loop as (t, acc):
            k0 = t * SLICE
            k.copy(a, [m0, k0], sa, [], threads="(32,4):(4,1)", values="(1,8)", bounds=[m, kk])
            k.copy(b, [k0, n0], sb, [], threads="(8,16):(16,1)", values="(1,8)", bounds=[kk, n])
            k.commit_group()
            k.wait_group(0)
            k.barrier()
            next_acc = k.mma(sa, sb, acc, warps=(2, 2), transpose_b=True)
            k.barrier()
            loop.yield_(next_acc)
        k.mma_store(loop.results[0], sc, [0, 0], warps=(2, 2))
        k.barrier()
        k.copy(sc, [], c, [m0, n0], threads="(16,8):(8,1)", values="(1,8)", bounds=[m, n])
    return module


def main():
    m, n, k = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (1024, 1024, 1024)
    module = build()
    torch, _ = cuda_torch()
    if torch is None:
        print(module.text())
        return
    kernel = module.compile(chip="sm_80").kernel("hgemm")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)

    def run():
        kernel(a, b, c, grid=(-(-n // TILE), -(-m // TILE), 1), block=(128, 1, 1),
               shared=TILE * TILE * 2, synchronize=False)

    run()
    error = relative_error(c, a @ b)
    print(f"hgemm built in Python, {m}x{n}x{k}: relative error against torch.matmul {error:.2e}")
    flops = 2 * m * n * k
    ours, theirs = median_ms(run), median_ms(lambda: a @ b)
    print(f"tile {flops / ours / 1e9:.1f} TFLOP/s, torch.matmul {flops / theirs / 1e9:.1f} "
          f"TFLOP/s (median of 20 launches each, CUDA events)")


if __name__ == "__main__":
    main()
