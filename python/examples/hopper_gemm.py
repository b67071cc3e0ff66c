#!/usr/bin/env python3
"""A warp-specialized Hopper GEMM built in Python with tile.builder: C = A B^T
(f16 in, f32 accumulation, f16 out), one 128x256 tile per CTA. Warpgroup 0
(one thread of it) streams A and B K-slices with TMA into a 4-stage
full/empty mbarrier ring; warpgroups 1 and 2 each multiply 64 rows with
wgmma m64n256k16 (wait depth 1, releasing the previous stage) and write
their part through shared memory with TMA stores. python/tile/kernels/gemm_sm90.mlir
is the persistent, tuned version of this kernel.

    python3 python/examples/hopper_gemm.py [M N K]   # prints the IR without a GPU
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tile.builder import Module, memref, tma_desc  # noqa: E402
from tile.testing import cuda_torch, relative_error  # noqa: E402

STAGES, BM, BN, BK = 4, 128, 256, 64
MATRIX = memref("?x?", "f16")
DA = tma_desc(MATRIX, [BM, BK], swizzle="b128")
DB = tma_desc(MATRIX, [BN, BK], swizzle="b128")
DC = tma_desc(MATRIX, [64, 64], swizzle="b128")
SHARED_BYTES = STAGES * (BM + BN) * BK * 2 + 2 * 2 * 64 * 64 * 2


def build() -> Module:
    module = Module()
    with module.kernel("gemm", a=DA, b=DB, c=DC, k="index", block=(384, 1, 1)) as k:
        tid = k.thread_id()
        m0, n0 = k.block_id("y") * BM, k.block_id("x") * BN
        slices = (k.arg("k") + (BK - 1)) // BK
        ra = k.shared([STAGES, BM, BK], "f16", swizzle="b128", dynamic=True)
        rb = k.shared([STAGES, BN, BK], "f16", swizzle="b128", dynamic=True)
        staging = k.shared([2, 2, 64, 64], "f16", swizzle="b128", dynamic=True)
        full, empty = k.mbarriers(STAGES), k.mbarriers(STAGES)
        first = tid.eq(0)
        with k.if_(first):
            with k.loop(0, STAGES) as (s,):
                k.mbarrier_init(full, s, 2)   # the A and B copies
                k.mbarrier_init(empty, s, 2)  # one release per consumer warpgroup
        k.barrier()
        with k.producer(registers=40):
            with k.if_(first):
                loop = k.loop(0, slices, 1, init=[k.const(0), k.const(True)])
                with loop as (t, s, phase):
                    k.wait_parity(empty, s, phase)  # fresh barriers pass phase 1
                    k0 = t * BK
                    k.tma_copy(k.arg("a"), [m0, k0], ra, [s], full, s)
                    k.tma_copy(k.arg("b"), [n0, k0], rb, [s], full, s)
                    loop.yield_(*advance(k, s, phase))
        with k.consumers(2, registers=232) as wg:
            row = wg * 64
            signals = (tid % 128).eq(0)
            loop = k.loop(0, slices, 1, init=[k.zeros("vector<128xf32>"), k.const(0),
                                               k.const(False), k.const(0)])
            with loop as (t, acc, s, phase, previous):
                k.wait_parity(full, s, phase)
                acc = k.warpgroup_mma(ra, [s, row, 0], rb, [s, 0, 0], acc,
                                      shape=(64, BN, BK), wait=1)
                # One thread per warpgroup releases the previous stage, from
                # the second slice on (wait depth 1).
                with k.if_(t.gt(0) & signals):
                    k.mbarrier_arrive(empty, previous)
                loop.yield_(acc, *advance(k, s, phase), s)
            k.wgmma_wait(0)
            k.warpgroup_tma_store(loop.results[0], staging, [wg], k.arg("c"), [m0 + row, n0],
                                  shape=(64, BN))
            with k.if_(signals):
                k.bulk_wait(0)
    return module


def advance(k, stage, phase):
    """The next ring stage, and the phase flipped on wrap-around."""
    following = stage + 1
    wrap = following.eq(STAGES)
    return k.select(wrap, 0, following), phase ^ wrap


def main():
    m, n, kk = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (4096, 4096, 4096)
    module = build()
    torch, _ = cuda_torch()
    if torch is None:
        print(module.text())
        return
    gemm = module.compile(chip="sm_90a").kernel("gemm")
    a = torch.randn(m, kk, device="cuda", dtype=torch.float16)
    b = torch.randn(n, kk, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    gemm(a, b, c, kk, grid=(-(-n // BN), -(-m // BM), 1), block=(384, 1, 1),
         shared=SHARED_BYTES)
    print(f"Hopper GEMM built in Python, {m}x{n}x{kk}: relative error against torch.matmul "
          f"{relative_error(c, a @ b.t()):.2e}")


if __name__ == "__main__":
    main()
