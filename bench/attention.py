#!/usr/bin/env python3
"""tile.attention against PyTorch's SDPA on its cuDNN and flash backends.

    PYTHONPATH=python python3 bench/attention.py [--dtypes bf16 f16] [--head-dims 64 128]
                                                 [--seqlens 1k 2k 4k 8k 16k]
                                                 [--causal both|yes|no] [--batch-heads BxH]
                                                 [--rounds 3] [--csv FILE] [--plot FILE.png]

FlashAttention-3's setup: for each head dim D and sequence length S, 16k
tokens (B = 16384 / S) and 2048 / D heads (--batch-heads overrides both),
q, k and v (B, H, S, D) contiguous, torch.randn. The sides:
tile.attention(q, k, v, causal), and
torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
inside sdpa_kernel(SDPBackend.CUDNN_ATTENTION) and
sdpa_kernel(SDPBackend.FLASH_ATTENTION). First each side's max abs error
against SDPA's math in float32 on the upcast inputs, on two heads (the first
of the first batch, the last of the last); tile's must be at most twice that
of SDPA's default backend (or 2e-3 bf16 / 1e-3 f16), else the config prints
WRONG and is not timed. Then kernel time from CUPTI (medians of --rounds
rounds in rotated order) and the user path (CUDA events around back-to-back
calls), as bench/harness.py measures them. Prints µs, TFLOP/s (4 B H S^2 D
FLOP a call, half of it causal) and their time / tile time; a side that
cannot run (a backend this PyTorch or GPU lacks) prints n/a. --csv writes
the rows (card named), --plot a bar chart of the ratios.
"""
import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402

SIDES = ("tile", "cudnn", "flash")
DTYPES = {"bf16": "bfloat16", "f16": "float16"}
TOKENS = 16384
HEAD_ELEMENTS = 2048  # heads x head dim


length = harness.length


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dtypes", nargs="+", default=["bf16"], choices=list(DTYPES))
    parser.add_argument("--head-dims", nargs="+", type=int, default=[64, 128])
    parser.add_argument("--seqlens", nargs="+", type=length,
                        default=[length(s) for s in ("1k", "2k", "4k", "8k", "16k")])
    parser.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    parser.add_argument("--batch-heads", metavar="BxH",
                        help="batch and heads for every config (default: 16k tokens, "
                             "2048 / D heads)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: about 2e13 FLOP, 10 to 100)")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    args = parser.parse_args()
    torch = harness.torch_or_exit("attention.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    print(f"{'case':30} | {'kernel µs tile / cuDNN / flash':>30} | "
          f"{'TFLOP/s tile / cuDNN / flash':>28} | {'user µs tile / cuDNN / flash':>28} | "
          f"cuDNN/tile flash/tile | max abs error tile / cuDNN / flash")
    rows = []
    for dtype in args.dtypes:
        for d in args.head_dims:
            for s in args.seqlens:
                if args.batch_heads:
                    b, h = (int(v) for v in args.batch_heads.lower().split("x"))
                else:
                    b, h = max(1, TOKENS // s), HEAD_ELEMENTS // d
                for causal in {"both": (False, True), "yes": (True,),
                               "no": (False,)}[args.causal]:
                    row = measure(torch, args, dtype, b, h, s, d, causal)
                    if row is not None:
                        rows.append(dict(card=card, **row))
    if args.csv:
        harness.write_csv(rows, args.csv)
    if args.plot and rows:
        harness.ratio_plot(rows, args.plot, f"tile.attention vs SDPA (cuDNN, flash), {card}",
                           {"cuDNN": lambda r: r["cudnn_us"] / r["tile_us"],
                            "flash": lambda r: r["flash_us"] / r["tile_us"]})


def sides(torch, q, k, v, causal):
    """The calls a user makes: tile, and SDPA on each backend."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def on(backend):
        def run():
            with sdpa_kernel(backend):
                return sdpa(q, k, v, is_causal=causal)
        return run
    return {"tile": lambda: tile.attention(q, k, v, causal=causal),
            "cudnn": on(SDPBackend.CUDNN_ATTENTION), "flash": on(SDPBackend.FLASH_ATTENTION)}


def reference(torch, q, k, v, causal):
    """SDPA's math in float32 on the upcast (B', H', S, D) inputs."""
    q, k, v = (t.float() for t in (q, k, v))
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
    if causal:
        visible = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device="cuda").tril()
        scores = scores.masked_fill(~visible, float("-inf"))
    return scores.softmax(-1) @ v


def max_error(torch, out, q, k, v, causal) -> float:
    """out's max abs error on the first head of the first batch and the last
    of the last, against `reference`."""
    error = 0.0
    for i, j in ((0, 0), (q.shape[0] - 1, q.shape[1] - 1)):
        head = (slice(i, i + 1), slice(j, j + 1))
        want = reference(torch, q[head], k[head], v[head], causal)
        error = max(error, (out[head].float() - want).abs().max().item())
    return error


def measure(torch, args, dtype, b, h, s, d, causal):
    """Checks each side, then times those that ran; the row, or None."""
    name = f"{dtype} d{d} s{s} {b}x{h}{' causal' if causal else ''}"
    generator = torch.Generator(device="cuda").manual_seed(s * d)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=getattr(torch, DTYPES[dtype]),
                           generator=generator) for _ in range(3))
    runs = sides(torch, q, k, v, causal)
    errors = {}
    for side, run in list(runs.items()):
        try:
            out = run()
        except Exception as error:  # a backend this PyTorch or GPU lacks, say
            print(f"{name:30} | {side}: n/a ({type(error).__name__}: "
                  f"{str(error).splitlines()[0] if str(error) else ''})")
            del runs[side]
            continue
        errors[side] = max_error(torch, out, q, k, v, causal)
    default = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    bound = max(2 * max_error(torch, default, q, k, v, causal),
                2e-3 if dtype == "bf16" else 1e-3)
    if errors.get("tile", 0.0) > bound:
        print(f"{name:30} | WRONG: tile's max abs error {errors['tile']:.2e} > {bound:.2e} "
              "(twice SDPA's default backend's, or the floor)")
        return None
    flops = 4 * b * h * s * s * d // (2 if causal else 1)
    repeats = args.repeats or max(10, min(100, int(2e13 / flops)))
    times = dict(zip(runs, harness.rotated_kernel_us(list(runs.values()), args.rounds,
                                                     repeats)))
    users = {side: harness.user_us(run, repeats)[0] for side, run in runs.items()}
    nan = float("nan")
    row = dict(case=name, dtype=dtype, head_dim=d, seqlen=s, batch=b, heads=h, causal=causal)
    row.update({f"{side}_us": times.get(side, nan) for side in SIDES})
    row.update({f"{side}_tflops": flops / times.get(side, nan) / 1e6 for side in SIDES})
    row.update({f"{side}_user_us": users.get(side, nan) for side in SIDES})
    row.update({f"{side}_error": errors.get(side, nan) for side in SIDES})
    ratios = [row[f"{side}_us"] / row["tile_us"] for side in ("cudnn", "flash")]
    print(f"{name:30} | {cells(row, '_us', '10.1f')} | {cells(row, '_tflops', '8.0f')} | "
          f"{cells(row, '_user_us', '8.1f')} | {fmt(ratios[0], '10.2f')} {fmt(ratios[1], '10.2f')}"
          f" | {cells(row, '_error', '.1e')}", flush=True)
    return row


def fmt(value: float, spec: str) -> str:
    """`value` formatted, or n/a (right-aligned alike) for NaN."""
    text = format(value, spec)
    return text.replace("nan", "n/a") if math.isnan(value) else text


def cells(row, suffix: str, spec: str) -> str:
    return " ".join(fmt(row[side + suffix], spec) for side in SIDES)


if __name__ == "__main__":
    main()
