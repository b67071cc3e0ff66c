#!/usr/bin/env python3
"""The persistent Hopper GEMM's work schedule: stream-K against data-parallel.

    PYTHONPATH=python python3 bench/schedule.py [--types f16 bf16] [--layouts nt nn]
                                                [--shapes 8192x8192x8192 ...] [--rounds 3]
                                                [--csv FILE]

@gemm_nt and @gemm_nn of examples/gemm_sm90.mlir as shipped (tile.work_unit
stream_k: where the last wave of tiles would leave at least half the CTAs
idle, it and the full wave before it are shared by all CTAs, and
tile.split_k_reduce fixes up the shared tiles) and the same source with
`data_parallel` (each CTA takes whole tiles), against torch.matmul
(cuBLAS), on tile.matmul's grid (one CTA per SM). Each case is checked
against an f32 product first; then the three are timed by CUPTI kernel time
(tile.testing.kernel_us) in --rounds rounds, the order of the three rotated
from round to round (the power-limited clock drifts within a round), and
the median of the rounds is printed with the ratios cuBLAS / tile for both
schedules. The tile count, the waves it fills on this GPU and whether
stream-K engages ("SK") are printed too; where it does not, both columns
run the same units and their difference is the noise.
"""
import argparse
import csv
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from tile.testing import kernel_us, relative_error  # noqa: E402

# Stream-K engages on 132 SMs at 140 tiles (1.06 waves), 198 (1.5) and
# 1080 (8.2); not at 512 (3.88 waves), 2048 (15.5) or 128 (0.97).
SHAPES = ["1792x2560x8192", "1792x2560x4096", "2304x2816x8192", "3840x9216x4096",
          "4096x4096x4096", "8192x8192x8192", "256x16384x8192"]


def stream_k_engages(tiles: int, ctas: int) -> bool:
    """T-TILE-7's rule (tile.work_unit stream_k), to label the rows."""
    return tiles > ctas and 0 < 2 * (tiles % ctas) <= ctas


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
    source = (harness.ROOT / "examples" / "gemm_sm90.mlir").read_text()
    assert "stream_k" in source, "examples/gemm_sm90.mlir no longer uses stream_k"
    rows = []
    print(f"{card}, {sms} SMs; kernel time (CUPTI), median of {args.rounds} rounds")
    print(f"{'case':26s} {'tiles':>6s} {'waves':>6s} {'SK':>3s} {'cuBLAS':>9s} {'stream-K':>9s} "
          f"{'data-par':>9s} {'cuBLAS/SK':>9s} {'cuBLAS/DP':>9s}")
    for type_ in args.types:
        dtype = torch.float16 if type_ == "f16" else torch.bfloat16
        text = source if type_ == "f16" else source.replace("f16", "bf16")
        modules = {"stream_k": tile.compile(text, chip="sm_90a"),
                   "data_parallel": tile.compile(text.replace("stream_k", "data_parallel"),
                                                 chip="sm_90a")}
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
                grid = harness.sm90_launch(m, n)["grid"]
                tiles = harness.cdiv(m, 128) * harness.cdiv(n, 256)
                runs = {"cublas": lambda: torch.matmul(a, b_logical, out=c)}
                for schedule, module in modules.items():
                    kernel = module.kernel("gemm_nt" if layout == "nt" else "gemm_nn")
                    runs[schedule] = (lambda kernel=kernel: kernel(
                        a, b, c, m, n, k, workspace, counters, grid=grid))
                    c.fill_(float("nan"))
                    runs[schedule]()
                    error = relative_error(c, want)
                    if not error < 1e-2:
                        sys.exit(f"{type_} {layout} {shape} {schedule}: relative error {error:.2e}")
                times = {name: [] for name in runs}
                order = list(runs)
                for round_ in range(args.rounds):
                    for name in order[round_ % 3:] + order[:round_ % 3]:
                        times[name].append(kernel_us(runs[name], args.repeats)[0])
                us = {name: statistics.median(t) for name, t in times.items()}
                case = f"{type_} {layout} {shape}"
                engages = stream_k_engages(tiles, grid[0])
                row = dict(card=card, case=case, tiles=tiles, waves=round(tiles / grid[0], 2),
                           stream_k_engages=engages,
                           cublas_us=us["cublas"], stream_k_us=us["stream_k"],
                           data_parallel_us=us["data_parallel"],
                           cublas_over_stream_k=us["cublas"] / us["stream_k"],
                           cublas_over_data_parallel=us["cublas"] / us["data_parallel"])
                rows.append(row)
                print(f"{case:26s} {tiles:6d} {row['waves']:6.2f} {'yes' if engages else 'no':>3s} "
                      f"{us['cublas']:9.1f} "
                      f"{us['stream_k']:9.1f} {us['data_parallel']:9.1f} "
                      f"{row['cublas_over_stream_k']:9.3f} {row['cublas_over_data_parallel']:9.3f}",
                      flush=True)
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
