#!/usr/bin/env python3
"""tile.grouped_matmul against torch._grouped_mm and a loop of cuBLAS calls.

    PYTHONPATH=python python3 bench/grouped.py [--cases 8x4096x4096x7168 ...]
                                               [--dtypes bf16 fp8] [--rounds 3]
                                               [--csv FILE] [--plot FILE.png]

A case GxMxNxK is G groups of about M rows each (exactly M with `even`, a
random split of G M rows with `uneven`), N and K, bf16, contiguous layout
(x: G M x K, w: G x N x K given as w.transpose(-2, -1), int32 running-end
offsets); `masked` (bf16 and fp8 only): the masked layout, x G x M x K with
a random count of 0..M valid rows a group (`valid=`), against torch's
products of the valid rows stacked (the gather not timed). Checks tile against torch._grouped_mm (relative error < 1e-2), then
times tile, torch._grouped_mm and a Python loop of torch.mm over the groups
(cuBLAS, one launch per group). fp8: the same matrices quantized to e4m3
with row-wise scales (one per row of x and of each w[g]), bf16 out, against
torch._scaled_grouped_mm and a loop of torch._scaled_mm. fp8-block: x quantized
per 1 x 128 block and each w[g] per 128 x 128 block (DeepSeek-V3's scales;
tile's block-scaled kernel, checked against the float32 product of the
dequantized groups) against torch._scaled_grouped_mm on the row-wise
quantization of the same matrices (PyTorch has no block-scaled grouped
product), no loop. All timed the same two ways (bench/harness.py): kernel
time from CUPTI (every kernel of a call; medians of --rounds rounds in
rotated order) and the user path (CUDA events around back-to-back calls).
Prints µs, TFLOP/s and the others' time / tile time; --csv writes the rows
(card named), --plot a bar chart.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from tile.testing import dequantize_fp8, quantize_fp8, relative_error  # noqa: E402

CASES = ["8x4096x4096x7168", "8x2048x4096x7168", "16x1024x2048x4096", "64x512x2048x1024"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", nargs="+", default=CASES)
    parser.add_argument("--splits", nargs="+", default=["even", "uneven"])
    parser.add_argument("--dtypes", nargs="+", default=["bf16", "fp8", "fp8-block"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    args = parser.parse_args()
    torch = harness.torch_or_exit("grouped.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    print(f"{'case':30} | {'kernel µs tile / grouped_mm / loop':>36} | TFLOP/s tile | "
          f"{'user µs tile / grouped_mm / loop':>34} | grouped_mm/tile loop/tile (kernel)")
    rows = []
    for case in args.cases:
        groups, per, n, k = (int(v) for v in case.split("x"))
        for split in args.splits:
            generator = torch.Generator(device="cuda").manual_seed(groups * per)
            total = groups * per
            if split == "even":
                counts = [per] * groups
            else:
                # A random split of the same rows (some groups small, some large).
                weights = torch.rand(groups, generator=generator, device="cuda") + 0.1
                counts = (weights / weights.sum() * total).floor().long().tolist()
                counts[-1] += total - sum(counts)
            x = torch.randn(total, k, device="cuda", dtype=torch.bfloat16,
                            generator=generator) / k ** 0.25
            w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16,
                            generator=generator) / k ** 0.25
            out = torch.empty(total, n, device="cuda", dtype=torch.bfloat16)
            masked = None
            if split == "masked":
                valid = torch.randint(0, per + 1, (groups,), device="cuda",
                                      generator=generator).to(torch.int32)
                held = (torch.arange(per, device="cuda")[None, :] < valid[:, None]).reshape(-1)
                masked = (valid, held)
                counts = valid.tolist()
            ends = torch.tensor(counts, device="cuda").cumsum(0).to(torch.int32)
            starts = [0] + ends.tolist()[:-1]
            sides = {}
            if "bf16" in args.dtypes:
                sides["bf16"] = bf16_sides(torch, x, w, ends, out, starts, counts, masked)
            scaled = {"fp8", "fp8-block"} & set(args.dtypes)
            if masked is not None:
                scaled.discard("fp8-block")
            if scaled and not hasattr(torch, "_scaled_grouped_mm"):
                print(f"{' and '.join(sorted(scaled))}: this PyTorch has no "
                      "torch._scaled_grouped_mm; skipped")
            elif scaled:
                if "fp8" in scaled:
                    sides["fp8"] = fp8_sides(torch, x, w, ends, out, starts, counts, masked)
                if "fp8-block" in scaled:
                    sides["fp8-block"] = fp8_block_sides(torch, x, w, ends, out, starts, counts)
            for dtype, (ours, theirs, loop, *expected) in sides.items():
                measure(args, card, rows, f"{dtype} {split} {groups}x{per}x{n}x{k}",
                        ours, theirs, loop, out, 2 * sum(counts) * n * k, *expected,
                        held=None if masked is None else masked[1])
    if args.csv:
        harness.write_csv(rows, args.csv)
    if args.plot and rows:
        harness.ratio_plot(rows, args.plot,
                           f"tile.grouped_matmul vs torch._grouped_mm / _scaled_grouped_mm, {card}",
                           {"torch grouped": lambda r: r["grouped_mm_us"] / r["tile_us"],
                            "loop of cuBLAS": lambda r: r["loop_us"] / r["tile_us"]})


def bf16_sides(torch, x, w, ends, out, starts, counts, masked=None):
    """tile, torch._grouped_mm and a loop of torch.mm on bf16 groups (masked:
    tile on the G x M x K layout, torch on the valid rows stacked)."""
    wt = w.transpose(-2, -1)
    groups = w.shape[0]
    stacked = x if masked is None else x[masked[1]]
    result = out if masked is None else torch.empty(stacked.shape[0], w.shape[1],
                                                    device="cuda", dtype=out.dtype)
    views = [(stacked[s:s + c], wt[g], result[s:s + c])
             for g, (s, c) in enumerate(zip(starts, counts))]

    def loop():
        for xa, wb, c in views:
            torch.mm(xa, wb, out=c)
    if masked is None:
        ours = lambda: tile.grouped_matmul(x, wt, ends, out=out)  # noqa: E731
    else:
        x3, out3 = x.reshape(groups, -1, x.shape[1]), out.reshape(groups, -1, out.shape[1])
        ours = lambda: tile.grouped_matmul(x3, wt, valid=masked[0], out=out3)  # noqa: E731
    return ours, lambda: torch._grouped_mm(stacked, wt, offs=ends), loop


def fp8_sides(torch, x, w, ends, out, starts, counts, masked=None):
    """tile, torch._scaled_grouped_mm and a loop of torch._scaled_mm on the
    groups quantized to e4m3 with row-wise scales (masked: tile on the G x M
    x K layout, torch on the valid rows stacked)."""
    groups, n, k = w.shape
    xq, sx = quantize_fp8(x, (1, k))
    wq, sw = quantize_fp8(w.reshape(groups * n, k), (1, k))
    wq, sw = wq.reshape(groups, n, k), sw.reshape(groups, n)
    wt = wq.transpose(-2, -1)
    if masked is not None:
        x3, sx3 = xq.reshape(groups, -1, k), sx.reshape(groups, -1)
        out3 = out.reshape(groups, -1, n)
        ours = lambda: tile.grouped_matmul(x3, wt, valid=masked[0], scale_a=sx3,  # noqa: E731
                                           scale_b=sw, out=out3)
        xq, sx = xq[masked[1]], sx[masked[1]]
        out = torch.empty(xq.shape[0], n, device="cuda", dtype=out.dtype)
    else:
        ours = lambda: tile.grouped_matmul(xq, wt, ends, scale_a=sx.reshape(-1),  # noqa: E731
                                           scale_b=sw, out=out)
    sx1 = sx.reshape(-1)
    views = [(xq[s:s + c], wt[g], sx[s:s + c], sw[g].reshape(1, n), out[s:s + c])
             for g, (s, c) in enumerate(zip(starts, counts)) if c]

    def loop():
        for xa, wb, sa, sb, c in views:
            torch._scaled_mm(xa, wb, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, out=c)
    def theirs():
        return torch._scaled_grouped_mm(xq, wt, sx1, sw, offs=ends, out_dtype=torch.bfloat16)
    # cuBLAS's row-wise FP8 takes no group of rows that is not a multiple
    # of 16 (CUBLAS_STATUS_NOT_SUPPORTED): no loop then.
    return ours, theirs, None if any(c % 16 for c in counts) else loop


def fp8_block_sides(torch, x, w, ends, out, starts, counts):
    """tile on the groups quantized with block scales (1 x 128 of x, 128 x
    128 of each w[g]), torch._scaled_grouped_mm on their row-wise
    quantization, no loop; and the float32 product of the dequantized
    block-scaled groups that tile's is checked against."""
    groups, n, k = w.shape
    xq, sx = quantize_fp8(x, (1, 128))
    blocks = [quantize_fp8(w[g], (128, 128)) for g in range(groups)]
    wq = torch.stack([q for q, _ in blocks])
    sw = torch.stack([s for _, s in blocks])
    wt = wq.transpose(-2, -1)
    xr, sxr = quantize_fp8(x, (1, k))
    wr, swr = quantize_fp8(w.reshape(groups * n, k), (1, k))
    wrt = wr.reshape(groups, n, k).transpose(-2, -1)
    swr = swr.reshape(groups, n)
    sxr = sxr.reshape(-1)
    xd = dequantize_fp8(xq, sx, (1, 128))
    expected = torch.cat([xd[s:s + c] @ dequantize_fp8(wq[g], sw[g], (128, 128)).t()
                          for g, (s, c) in enumerate(zip(starts, counts))])
    return (lambda: tile.grouped_matmul(xq, wt, ends, scale_a=sx, scale_b=sw, out=out),
            lambda: torch._scaled_grouped_mm(xr, wrt, sxr, swr, offs=ends,
                                             out_dtype=torch.bfloat16), None, expected)


def measure(args, card, rows, name, ours, theirs, loop, out, flops, expected=None, held=None):
    """Checks tile against the torch side (or against `expected`; masked: on
    the `held` rows of out), then times the three sides."""
    out.fill_(float("nan"))
    ours()
    error = relative_error(out if held is None else out[held],
                           theirs().float() if expected is None else expected)
    if not error < 1e-2:
        print(f"{name:30} | WRONG: relative error {error:.2e}")
        return
    repeats = max(10, min(100, int(2e13 / flops)))
    sides = [side for side in (ours, theirs, loop) if side is not None]
    times = harness.rotated_kernel_us(sides, args.rounds, repeats)
    users = [harness.user_us(run, repeats)[0] for run in sides]
    if loop is None:
        times, users = times + [float("nan")], users + [float("nan")]
    tile_us, grouped_us, loop_us = times
    row = dict(card=card, case=name, tile_us=tile_us, grouped_mm_us=grouped_us,
               loop_us=loop_us, tile_tflops=flops / tile_us / 1e6,
               tile_user_us=users[0], grouped_mm_user_us=users[1], loop_user_us=users[2],
               error=error)
    rows.append(row)
    print(f"{name:30} | {tile_us:10.1f} {grouped_us:11.1f} {loop_us:11.1f} | "
          f"{row['tile_tflops']:12.0f} | {users[0]:10.1f} {users[1]:10.1f} "
          f"{users[2]:10.1f} | {grouped_us / tile_us:10.2f} {loop_us / tile_us:9.2f}",
          flush=True)


if __name__ == "__main__":
    main()
