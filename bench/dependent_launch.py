#!/usr/bin/env python3
"""Programmatic dependent launches against plain stream order: Llama-3-8B's
gated MLP with its residual (tile.gated_mlp: two GEMMs, the decode kernels
at a few tokens, the persistent ones past them), bf16.

    PYTHONPATH=python python3 bench/dependent_launch.py [--tokens 1 16]
        [--rounds 2] [--csv out.csv]

Each round runs this script's measurement in two fresh processes, one with
TILE_DEPENDENT_LAUNCH=0 (every kernel in plain stream order) and one with
it on (kernels that wait with tile.grid_dependency_wait are launched as
programmatic dependents: prepared while the kernel before them runs and
started as it completes), in turn: the setting is read at import. Per side and token count: the user path (CUDA events around 50
back-to-back calls), a CUDA graph of 20 chained MLPs (each output the next
input, as layers are) replayed and divided by 20, the CUPTI kernel sum of
one call (a dependent kernel's record starts before the kernel it waits
for ends, so this sum grows with overlap: it is not the time a user
waits), and a checksum of the output, which must be the same both ways.
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

HIDDEN, INTERMEDIATE = 4096, 14336
CHAIN = 20


def measure(tokens):
    """One process's rows: (tokens, user µs, graph µs per MLP, kernel µs,
    checksum) per token count."""
    import harness  # (also puts python/ on sys.path)
    import torch
    import tile
    from tile.testing import kernel_us
    torch.manual_seed(0)
    dt = dict(device="cuda", dtype=torch.bfloat16)
    gate = torch.randn(INTERMEDIATE, HIDDEN, **dt) * 0.02
    up = torch.randn(INTERMEDIATE, HIDDEN, **dt) * 0.02
    gate_up = tile.interleave_gate_up(gate, up)
    down = torch.randn(HIDDEN, INTERMEDIATE, **dt) * 0.02
    rows = []
    for m in tokens:
        x = torch.randn(m, HIDDEN, **dt)

        def call():
            return tile.gated_mlp(x, gate_up, down, residual=x)

        def chain():
            y = x
            for _ in range(CHAIN):
                y = tile.gated_mlp(y, gate_up, down, residual=y)
            return y
        checksum = call().double().sum().item()
        graph = harness.capture_graph(torch, chain)
        samples = {"user": [], "graph": [], "kernel": []}
        for _ in range(5):
            samples["user"].append(harness.user_us(call, 50)[0])
            samples["graph"].append(harness.user_us(graph.replay, 20)[0] / CHAIN)
            samples["kernel"].append(kernel_us(call, 20)[0])
        rows.append((m, *(statistics.median(samples[key]) for key in ("user", "graph", "kernel")),
                     checksum))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", nargs="+", type=int, default=[1, 16])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--csv")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        for row in measure(args.tokens):
            print("ROW", *row)
        return
    import harness
    harness.torch_or_exit("dependent_launch.py")
    harness.describe_device()
    results = []
    for round_ in range(args.rounds):
        for dependent in ((0, 1) if round_ % 2 == 0 else (1, 0)):
            environment = dict(os.environ, TILE_DEPENDENT_LAUNCH=str(dependent))
            run = subprocess.run([sys.executable, __file__, "--child", "--tokens",
                                  *map(str, args.tokens)], env=environment,
                                 capture_output=True, text=True, check=True)
            for line in run.stdout.splitlines():
                if line.startswith("ROW "):
                    m, user, graph, kernel, checksum = line.split()[1:]
                    results.append(dict(round=round_, dependent=dependent, tokens=int(m),
                                        user_us=float(user), graph_us=float(graph),
                                        kernel_us=float(kernel), checksum=float(checksum)))
    print(f"{'tokens':>6} {'launch':>9} | {'user µs':>8} {'graph µs/MLP':>13} "
          f"{'kernel sum µs':>14} | checksum")
    for row in results:
        print(f"{row['tokens']:6d} {'dependent' if row['dependent'] else 'plain':>9} | "
              f"{row['user_us']:8.2f} {row['graph_us']:13.2f} {row['kernel_us']:14.2f} | "
              f"{row['checksum']:.6f}")
    for m in args.tokens:
        sums = {(d, key): statistics.median(r[key] for r in results
                                            if r["tokens"] == m and r["dependent"] == d)
                for d in (0, 1) for key in ("user_us", "graph_us")}
        checks = {r["checksum"] for r in results if r["tokens"] == m}
        print(f"{m} tokens: plain / dependent, user path {sums[0, 'user_us'] / sums[1, 'user_us']:.3f}, "
              f"graph {sums[0, 'graph_us'] / sums[1, 'graph_us']:.3f}; outputs "
              f"{'the same' if len(checks) == 1 else 'DIFFER'}")
    if args.csv:
        harness.write_csv(results, args.csv)

if __name__ == "__main__":
    main()
