#!/usr/bin/env python3
"""TMA's swizzle patterns from Python: a 1024x1024 f32 matrix whose rows
all hold 0..1023 is TMA-loaded with a 16-row box one swizzle span wide (32B:
8 columns, 64B: 16, 128B: 32) into a buffer with that swizzle; the tile's
physical bytes are copied out with a bulk copy (which does not swizzle) and
printed row by row; generic loads of the same buffer
(which follow the swizzle) give back the logical box, element (r, c) = c.

    python3 python/examples/swizzle.py      # prints the IR without a GPU
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tile.builder import Module, memref, tma_desc  # noqa: E402
from tile.testing import cuda_torch  # noqa: E402

SPANS = {"b32": 8, "b64": 16, "b128": 32}  # f32 columns per swizzle span
ROWS = 16


def build(swizzle: str) -> Module:
    columns = SPANS[swizzle]
    elements = ROWS * columns
    module = Module()
    desc = tma_desc(memref("1024x1024", "f32"), [ROWS, columns], swizzle=swizzle)
    with module.kernel("table", d=desc, physical=memref(str(elements), "f32"),
                       logical=memref(str(elements), "f32"), block=(128, 1, 1)) as k:
        tid = k.thread_id()
        tile_ = k.shared([ROWS, columns], "f32", swizzle=swizzle)
        bars = k.mbarriers()
        leader = tid.eq(0)
        with k.if_(leader):
            k.mbarrier_init(bars, 0, 1)
        k.barrier()
        with k.if_(leader):
            k.arrive_expect_tx(bars, 0, elements * 4)
            k.tma_load(k.arg("d"), [0, 0], tile_, bars, 0)
        k.wait_parity(bars, 0, False)
        with k.if_(leader):
            k.bulk_copy_to_global(tile_, k.arg("physical"), elements * 4)
            k.bulk_commit()
            k.bulk_wait(0)
        with k.loop(tid, elements, 128) as (e,):
            k.store(k.load(tile_, [e // columns, e % columns]), k.arg("logical"), [e])
    return module


def main():
    torch, _ = cuda_torch()
    if torch is None:
        print(build("b128").text())
        return
    matrix = torch.arange(1024, device="cuda", dtype=torch.float32).repeat(1024, 1).contiguous()
    for swizzle, columns in SPANS.items():
        physical = torch.zeros(ROWS * columns, device="cuda")
        logical = torch.zeros(ROWS * columns, device="cuda")
        build(swizzle).compile(chip="sm_90a").kernel("table")(
            matrix, physical, logical, block=(128, 1, 1))
        print(f"{swizzle} physical {ROWS}x{columns}:")
        for row in physical.view(ROWS, columns).int().tolist():
            print(" ".join(map(str, row)))
        same = torch.equal(logical.view(ROWS, columns),
                           torch.arange(columns, device="cuda", dtype=torch.float32).repeat(ROWS, 1))
        print(f"{swizzle} logical box through the swizzle: {'(r, c) = c' if same else 'WRONG'}")


if __name__ == "__main__":
    main()
