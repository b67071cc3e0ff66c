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

--varlen adds packed sequences: 16 sequences of mixed lengths (64 .. 4096,
seeded, as bench/attention_inference.py's), 32/8 heads, causal, at each
--head-dims: tile.attention_varlen's backward on the packed tokens against
SDPA cuDNN's and tile.attention's on the batch padded to the longest.
--varlen-skewed adds a skewed batch, as packed pretraining data has: 255
sequences of 64 .. 512 tokens and one of 8192, tile alone (the padded batch
would take 256 x 8192 rows), to show what the grid's idle blocks cost (its
TFLOP/s beside the same batch without the long sequence).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402

TOKENS = 16384
HEAD_ELEMENTS = 2048


length = harness.length


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--head-dims", nargs="+", type=int, default=[64, 128])
    parser.add_argument("--seqlens", nargs="+", type=length, default=[4096, 16384])
    parser.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    parser.add_argument("--gqa", default="32/8", help="H/Hkv of the GQA configs ('' for none)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--varlen", action="store_true")
    parser.add_argument("--varlen-only", action="store_true", help="only the --varlen rows")
    parser.add_argument("--varlen-skewed", action="store_true")
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
    if args.varlen_only:
        configs, args.varlen = [], True
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
    if args.varlen:
        rows += [bench_varlen(torch, args, d) for d in args.head_dims]
    if args.varlen_skewed:
        g = torch.Generator(device="cpu").manual_seed(7)
        skewed = torch.randint(64, 513, (255,), generator=g).tolist() + [8192]
        # The same without the long sequence: no idle blocks to speak of.
        rows += [bench_varlen(torch, args, d, lengths) for d in args.head_dims
                 for lengths in (skewed, skewed[:-1])]
    if args.csv:
        harness.write_csv(rows, args.csv)


def bench_varlen(torch, args, d: int, lengths=None) -> dict:
    """The packed-sequence row at head dim `d` (see the module's
    documentation; `lengths`: a skewed batch, tile alone); dQ, dK and dV
    errors of the first and last sequences against float32 per-sequence
    SDPA math."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    F = torch.nn.functional
    heads, kv_heads, padded_sides = 32, 8, lengths is None
    if lengths is None:
        lengths = harness.mixed_lengths(torch)
    count, total, longest = len(lengths), sum(lengths), max(lengths)
    starts = [sum(lengths[:i]) for i in range(count)]
    cu = harness.packed_offsets(torch, lengths)
    torch.manual_seed(0)
    q = torch.randn(total, heads, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k, v = (torch.randn(total, kv_heads, d, device="cuda", dtype=torch.bfloat16,
                        requires_grad=True) for _ in range(2))
    grad = torch.randn_like(q)

    def padded(t):
        out = t.new_zeros(count, t.shape[1], longest, d)
        for i, n in enumerate(lengths):
            out[i, :, :n] = t[starts[i]:starts[i] + n].detach().transpose(0, 1)
        return out.requires_grad_()
    tile_out = tile.attention_varlen(q, k, v, cu, cu, longest, longest, causal=True)
    sides = {"tile": lambda: torch.autograd.grad(tile_out, (q, k, v), grad, retain_graph=True)}
    if padded_sides:
        qp, kp, vp, gp = padded(q), padded(k), padded(v), padded(grad).detach()
        padded_out = tile.attention(qp, kp, vp, causal=True, enable_gqa=True)
        sides["tile_padded"] = lambda: torch.autograd.grad(padded_out, (qp, kp, vp), gp,
                                                           retain_graph=True)
    if padded_sides:
        # cuDNN where this PyTorch and GPU run it.
        def cudnn_side():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return torch.autograd.grad(cudnn_out, (qp, kp, vp), gp, retain_graph=True)
        try:
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                cudnn_out = F.scaled_dot_product_attention(qp, kp, vp, is_causal=True,
                                                           enable_gqa=True)
            cudnn_side()
            sides["cudnn_padded"] = cudnn_side
        except RuntimeError:
            pass
    got = sides["tile"]()
    error = 0.0
    for i in (0, count - 1):
        seq = slice(starts[i], starts[i] + lengths[i])
        parts = [t[seq].detach().transpose(0, 1)[None].float().requires_grad_()
                 for t in (q, k, v)]
        exact = torch.autograd.grad(
            F.scaled_dot_product_attention(*parts, is_causal=True, enable_gqa=True), parts,
            grad[seq].transpose(0, 1)[None].float())
        error = max([error] + [(g[seq].float().transpose(0, 1)[None] - e).abs().max().item()
                               for g, e in zip(got, exact)])
    names = list(sides)
    times = dict(zip(names, harness.rotated_kernel_us([sides[n] for n in names], args.rounds,
                                                      args.repeats)))
    flops = sum(10 * heads * n * n * d * 0.5 for n in lengths)
    row = {"card": torch.cuda.get_device_name(), "d": d, "s": f"varlen {count} seqs {total}",
           "heads": heads, "kv_heads": kv_heads, "causal": True, "tile_us": times["tile"],
           "tflops": flops / times["tile"] / 1e6, "err_tile": error,
           **{f"{n}_us": times.get(n) for n in ("tile_padded", "cudnn_padded")}}
    ratios = " ".join(f"{n}/tile {times[n] / times['tile']:.3f}" for n in names[1:])
    print(f"{d:4d} varlen {count} seqs of {min(lengths)}..{longest} ({total} tokens) "
          f"{heads}/{kv_heads} causal: tile {times['tile']:.1f} us, {row['tflops']:.1f} "
          f"TFLOP/s, {ratios}, err {error:.2e}")
    return row


if __name__ == "__main__":
    main()
