#!/usr/bin/env python3
"""A K-stage pipeline, built in Python: a K loop that loads a
32x32 f32 tile of A and of B with TMA (one barrier, 128B swizzle), waits,
and accumulates a dot product per thread. `stages` on the loop makes
tile-pipeline-async-copies turn it into a full/empty mbarrier ring of that
many stages (the protocol checker verifies the result); every stage count
must give the same sums as torch.

    python3 python/examples/pipeline.py      # prints the IR without a GPU
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tile.builder import Module, memref, tma_desc  # noqa: E402
from tile.testing import cuda_torch, relative_error  # noqa: E402

TILES, ROWS = 16, 32
DESC = tma_desc(memref(f"{TILES * ROWS}x32", "f32"), [32, 32], swizzle="b128")


def build(stages: int) -> Module:
    module = Module()
    with module.kernel("dot", a=DESC, b=DESC, out=memref("128", "f32"), block=(128, 1, 1)) as k:
        tid = k.thread_id()
        row, col = tid // 4, (tid % 4) * 8
        bars = k.mbarriers()
        with k.if_(tid.eq(0)):
            k.mbarrier_init(bars, 0, 2)  # the two copies arrive on it
        k.barrier()
        sa = k.shared([32, 32], "f32", swizzle="b128")
        sb = k.shared([32, 32], "f32", swizzle="b128")
        loop = k.loop(0, TILES, 1, init=[k.const(0.0, "f32")], pipeline_stages=stages)
        with loop as (t, total):
            base = t * ROWS
            k.tma_copy(k.arg("a"), [base, 0], sa, [], bars, 0)
            k.tma_copy(k.arg("b"), [base, 0], sb, [], bars, 0)
            k.wait_parity(bars, 0, k.index_cast(t % 2, "i1"))
            inner = k.loop(0, 8, 1, init=[total])
            with inner as (j, partial):
                c = col + j
                inner.yield_(partial + k.load(sa, [row, c]) * k.load(sb, [row, c]))
            k.barrier()
            loop.yield_(inner.results[0])
        k.store(loop.results[0], k.arg("out"), [tid])
    return module


def main():
    torch, _ = cuda_torch()
    if torch is None:
        print(build(3).text())
        return
    a = torch.randn(TILES * ROWS, 32, device="cuda")
    b = torch.randn(TILES * ROWS, 32, device="cuda")
    want = (a * b).view(TILES, ROWS, 4, 8).sum(dim=(0, 3)).reshape(128)
    for stages in (2, 3, 4):
        out = torch.full((128,), float("nan"), device="cuda")
        build(stages).compile(chip="sm_90a").kernel("dot")(a, b, out, block=(128, 1, 1))
        print(f"{stages} stages: relative error against torch {relative_error(out, want):.1e}")


if __name__ == "__main__":
    main()
