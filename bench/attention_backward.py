#!/usr/bin/env python3
"""tile.attention's backward against SDPA's on its cuDNN and flash backends.

    PYTHONPATH=python python3 bench/attention_backward.py [--head-dims 64 128]
        [--seqlens 4k 16k] [--causal both|yes|no] [--gqa 32/8] [--rounds 3] [--csv FILE]

FlashAttention-3's setup (bench/attention.py): 16k tokens (B = 16384 / S),
2048 / D query heads, bf16 (B, H, S, D) contiguous; with --gqa H/Hkv, also
H query heads on Hkv KV heads at D = 128 (SDPA's enable_gqa). Each side is
torch.autograd.grad of its output for the same dO (the forward outside the
timing): tile's -rowsum(dO O) reduction and fused kernel (and, as
tile_det, its deterministic mode's two kernels: torch.use_deterministic_
algorithms), SDPA's backward kernels inside sdpa_kernel(...). First the gradients' max abs error against
float32 SDPA math on one head (the first of the first batch; GQA: its KV
head); then kernel time from CUPTI (medians of rotated rounds,
bench/harness.py) and TFLOP/s (10 B H S^2 D a backward: five products,
half of it causal). Prints time / tile time per side; a side this PyTorch or
GPU cannot run prints n/a.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402

TOKENS = 16384
HEAD_ELEMENTS = 2048


def length(text: str) -> int:
    return int(text[:-1]) * 1024 if text.lower().endswith("k") else int(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dims", nargs="+", type=int, default=[64, 128])
    parser.add_argument("--seqlens", nargs="+", type=length, default=[4096, 16384])
    parser.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    parser.add_argument("--gqa", default="32/8", help="H/Hkv of the GQA configs ('' for none)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = harness.torch_or_exit("attention_backward.py")
    harness.describe_device()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    configs = [(d, s, HEAD_ELEMENTS // d, HEAD_ELEMENTS // d) for d in args.head_dims
               for s in args.seqlens]
    if args.gqa:
        heads, kv_heads = (int(x) for x in args.gqa.split("/"))
        configs += [(128, s, heads, kv_heads) for s in args.seqlens]
    rows = []
    print(f"{'D':>4s} {'S':>6s} {'H/Hkv':>6s} {'causal':>6s} {'tile us':>9s} {'TFLOP/s':>8s} "
          f"{'cudnn/tile':>10s} {'flash/tile':>10s} {'det/tile':>9s} {'err tile':>9s} "
          f"{'err det':>9s} {'err cudnn':>9s}")
    for d, s, heads, kv_heads in configs:
        batch = max(1, TOKENS // s)
        for causal in causals:
            torch.manual_seed(0)
            q = torch.randn(batch, heads, s, d, device="cuda", dtype=torch.bfloat16,
                            requires_grad=True)
            k, v = (torch.randn(batch, kv_heads, s, d, device="cuda", dtype=torch.bfloat16,
                                requires_grad=True) for _ in range(2))
            grad = torch.randn(batch, heads, s, d, device="cuda", dtype=torch.bfloat16)
            gqa = heads != kv_heads
            tile_out = tile.attention(q, k, v, causal=causal, enable_gqa=gqa)

            def tile_side():
                return torch.autograd.grad(tile_out, (q, k, v), grad, retain_graph=True)

            def deterministic_side():
                was = torch.are_deterministic_algorithms_enabled()
                torch.use_deterministic_algorithms(True)
                try:
                    return tile_side()
                finally:
                    torch.use_deterministic_algorithms(was)

            sides, names = [tile_side, deterministic_side], ["tile", "tile_det"]
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("flash", SDPBackend.FLASH_ATTENTION)):
                try:
                    with sdpa_kernel(backend):
                        out = F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                             enable_gqa=gqa)
                        torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
                except RuntimeError:
                    continue

                def side(out=out, backend=backend):
                    with sdpa_kernel(backend):
                        return torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
                sides.append(side)
                names.append(name)
            # Errors on one head against float32 math.
            group = heads // kv_heads
            qf, kf, vf = (t[:1, :h].detach().float().requires_grad_()
                          for t, h in ((q, group), (k, 1), (v, 1)))
            exact = torch.autograd.grad(
                F.scaled_dot_product_attention(qf, kf, vf, is_causal=causal, enable_gqa=gqa),
                (qf, kf, vf), grad[:1, :group].float())
            errors = {}
            for name, run in zip(names, sides):
                got = run()
                parts = (got[0][:1, :group], got[1][:1, :1], got[2][:1, :1])
                errors[name] = max((g.float() - e).abs().max().item()
                                   for g, e in zip(parts, exact))
            times = dict(zip(names, harness.rotated_kernel_us(sides, args.rounds, args.repeats)))
            flops = 10 * batch * heads * s * s * d * (0.5 if causal else 1.0)
            ratio = {n: times[n] / times["tile"] if n in times else None
                     for n in ("cudnn", "flash", "tile_det")}
            row = {"card": torch.cuda.get_device_name(), "d": d, "s": s, "heads": heads,
                   "kv_heads": kv_heads, "causal": causal, "tile_us": times["tile"],
                   "tflops": flops / times["tile"] / 1e6,
                   **{f"{n}_us": times.get(n) for n in ("cudnn", "flash", "tile_det")},
                   **{f"err_{n}": errors.get(n) for n in names}}
            rows.append(row)

            def show(x, spec):
                return format(x, spec) if x is not None else "n/a".rjust(int(spec[:-3] or 0))
            print(f"{d:4d} {s:6d} {heads:3d}/{kv_heads:<2d} {str(causal):>6s} "
                  f"{times['tile']:9.1f} {row['tflops']:8.1f} {show(ratio['cudnn'], '10.3f')} "
                  f"{show(ratio['flash'], '10.3f')} {ratio['tile_det']:9.3f} "
                  f"{errors['tile']:9.2e} {errors['tile_det']:9.2e} "
                  f"{show(errors.get('cudnn'), '9.2e')}")
    if args.csv:
        harness.write_csv(rows, args.csv)


if __name__ == "__main__":
    main()
