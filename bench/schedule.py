#!/usr/bin/env python3
"""The persistent Hopper GEMM's work schedule: data-parallel, stream-K, split-K.

    PYTHONPATH=python python3 bench/schedule.py [--types f16 bf16] [--layouts nt nn]
                                                [--shapes 8192x8192x8192 ...] [--rounds 3]
                                                [--csv FILE]

@gemm_nt and @gemm_nn of python/tile/kernels/gemm_sm90.mlir with each schedule of
tile.work_unit put in place of the shipped one: data_parallel (each CTA
takes whole tiles), stream_k (where the last wave of tiles would leave at
least half the CTAs idle, it and the full wave before it are shared by all
CTAs in equal ranges of K iterations) and split_k (that last wave's tiles
split along K into equal ranges, one per idle CTA, at most 8 a tile);
tile.split_k_reduce sums the shared tiles. Against torch.matmul (cuBLAS),
on tile.matmul's grid (one CTA per SM). Each case is checked against an f32
product first; then all are timed by CUPTI kernel time
(tile.testing.kernel_us) in --rounds rounds, the order rotated from round
to round (the power-limited clock drifts within a round), and the median of
the rounds is printed with the ratios cuBLAS / tile. The tile count, the
waves it fills on this GPU and which schedules share tiles are printed too;
where none does, all three run the same units and their differences are the
noise.
"""
import argparse
import csv
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from tile.testing import kernel_us, relative_error  # noqa: E402

# On 132 SMs tiles are shared at 140 tiles (1.06 waves), 198 (1.5), 1080
# (8.2), and by split_k alone at 64 and 16 (half a wave or less); not at
# 512 (3.88 waves), 2048 (15.5) or 128 (0.97).
SHAPES = ["1792x2560x8192", "1792x2560x4096", "2304x2816x8192", "3840x9216x4096",
          "1024x2048x8192", "512x1024x16384", "4096x4096x4096", "8192x8192x8192",
          "256x16384x8192"]


SCHEDULES = ("data_parallel", "stream_k", "split_k")


def shares(tiles: int, ctas: int) -> str:
    """T-TILE-7's rules, to label the rows: the schedules that share tiles
    (split_k also needs 2 or more K slices a tile; every shape here has)."""
    idle = 0 < 2 * (tiles % ctas) <= ctas
    return ("SK " if idle and tiles > ctas else "") + ("split" if idle else "") or "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--types", nargs="+", default=["f16"], choices=["f16", "bf16"])
    parser.add_argument("--layouts", nargs="+", default=["nt", "nn"], choices=["nt", "nn"])
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = harness.torch_or_exit("schedule.py")
    card = torch.cuda.get_device_name()
    sms = harness.sms()
    source = harness.example_source("gemm_sm90")
    shipped = re.search(r"tile\.work_count (\w+)", source).group(1)
    rows = []
    print(f"{card}, {sms} SMs; kernel time (CUPTI), median of {args.rounds} rounds")
    print(f"{'case':26s} {'tiles':>6s} {'waves':>6s} {'shares':>9s} {'cuBLAS':>8s} "
          + " ".join(f"{s[:8]:>8s}" for s in SCHEDULES) + " "
          + " ".join(f"{'c/' + s[:5]:>7s}" for s in SCHEDULES))
    for type_ in args.types:
        dtype = torch.float16 if type_ == "f16" else torch.bfloat16
        text = harness.example_source("gemm_sm90", type_)
        modules = {
            schedule: tile.compile(
                text.replace(f"work_count {shipped}", f"work_count {schedule}")
                    .replace(f"of {shipped}", f"of {schedule}"), chip="sm_90a")
            for schedule in SCHEDULES}
        workspace, counters = harness.sm90_buffers()
        for shape in args.shapes:
            m, n, k = (int(x) for x in shape.split("x"))
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            for layout in args.layouts:
                b = (torch.randn(n, k, device="cuda", dtype=dtype) if layout == "nt"
                     else torch.randn(k, n, device="cuda", dtype=dtype))
                b_logical = b.t() if layout == "nt" else b
                c = torch.empty(m, n, device="cuda", dtype=dtype)
                want = a.float() @ b_logical.float()
                grid = (harness.sms(), 1, 1)  # the schedules on one CTA per SM
                tiles = harness.cdiv(m, 128) * harness.cdiv(n, 256)
                runs = {"cublas": lambda: torch.matmul(a, b_logical, out=c)}
                for schedule, module in modules.items():
                    kernel = module.kernel("gemm_nt" if layout == "nt" else "gemm_nn")
                    runs[schedule] = (lambda kernel=kernel: kernel(
                        a, b, c, m, n, k, *harness.sm90_extras(c), grid=grid))
                    c.fill_(float("nan"))
                    runs[schedule]()
                    error = relative_error(c, want)
                    if not error < 1e-2:
                        sys.exit(f"{type_} {layout} {shape} {schedule}: relative error {error:.2e}")
                times = {name: [] for name in runs}
                order = list(runs)
                for round_ in range(args.rounds):
                    turn = round_ % len(order)
                    for name in order[turn:] + order[:turn]:
                        times[name].append(kernel_us(runs[name], args.repeats)[0])
                us = {name: statistics.median(t) for name, t in times.items()}
                case = f"{type_} {layout} {shape}"
                row = dict(card=card, case=case, tiles=tiles, waves=round(tiles / grid[0], 2),
                           shared=shares(tiles, grid[0]), cublas_us=us["cublas"])
                for schedule in SCHEDULES:
                    row[f"{schedule}_us"] = us[schedule]
                    row[f"cublas_over_{schedule}"] = us["cublas"] / us[schedule]
                rows.append(row)
                print(f"{case:26s} {tiles:6d} {row['waves']:6.2f} {row['shared']:>9s} "
                      f"{us['cublas']:8.1f} " + " ".join(f"{us[s]:8.1f}" for s in SCHEDULES)
                      + " " + " ".join(f"{row['cublas_over_' + s]:7.3f}" for s in SCHEDULES),
                      flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
