#!/usr/bin/env python3
"""FP8 attention forward (tile.attention on float8_e4m3fn q, k, v with
descale factors) against tile's and SDPA's 16-bit attention.

    PYTHONPATH=python python3 bench/attention_fp8.py [--seqlens 1k 2k 4k 8k 16k]
                                                     [--causal both|yes|no]
                                                     [--gqa] [--rounds 3] [--csv FILE]

FlashAttention-3's setup (bench/attention.py's): D = 128, 16k tokens (B =
16384 / S) and 16 heads; --gqa adds Llama-3-8B's 32 query and 8 KV heads
at S = 4k and 16k (B = 1). q, k, v random bf16, quantized to e4m3 with
one factor per (batch, KV head) (amax / 448, flash_attn's descale
layout). The sides, each the call a user makes:
- fp8: tile.attention(q8, k8, v8, causal, q_descale=, k_descale=,
  v_descale=): V's layout copy (fp8_v_layout) and the kernel;
- fp8 kernel: the kernel alone (its CUPTI time within the fp8 side's);
- bf16: tile.attention on the bf16 q, k, v;
- cudnn: SDPA on its cuDNN backend, bf16 (PyTorch has no FP8 SDPA).
Errors first: each side's max abs error against float32 attention of the
dequantized e4m3 inputs (so every side sees the same problem), and the
bf16 sides' against the same; then kernel time from CUPTI (medians of
--rounds rotated rounds) and the user path (CUDA events around
back-to-back calls). Prints µs, TFLOP/s (4 B H S^2 D FLOP a call, half
causal) and each side's time over the fp8 side's; --csv writes the rows
(card named).
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402

SIDES = ("fp8", "bf16", "cudnn")
TOKENS = 16384
HEADS = 16
HEAD_DIM = 128


length = harness.length


def quantize(torch, x, kv_heads_of):
    """x as e4m3 with its (B, Hkv) descale factors: each factor covers the
    query heads of one KV head (`kv_heads_of` heads a factor)."""
    b, h = x.shape[:2]
    groups = x.float().reshape(b, h // kv_heads_of, kv_heads_of, -1)
    factor = (groups.abs().amax(dim=(2, 3)) / 448.0).clamp(min=1e-12)
    scaled = x.float() / factor.repeat_interleave(kv_heads_of, dim=1)[:, :, None, None]
    return scaled.to(torch.float8_e4m3fn), factor.contiguous()


def reference_head(torch, q, k, v, causal):
    """float32 attention of one (1, 1, S, D) head."""
    scores = q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5
    if causal:
        visible = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device="cuda").tril()
        scores = scores.masked_fill(~visible, float("-inf"))
    return scores.softmax(-1) @ v


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seqlens", nargs="+", type=length,
                        default=[length(s) for s in ("1k", "2k", "4k", "8k", "16k")])
    parser.add_argument("--causal", default="both", choices=["both", "yes", "no"])
    parser.add_argument("--gqa", action="store_true", help="add 32/8 heads at 4k and 16k")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = harness.torch_or_exit("attention_fp8.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    causals = {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]
    configs = [(max(1, TOKENS // s), HEADS, HEADS, s) for s in args.seqlens]
    if args.gqa:
        configs += [(1, 32, 8, s) for s in (4096, 16384)]
    print(f"{'case':28} | {'kernel µs fp8 / fp8 kernel / bf16 / cuDNN':>42} | "
          f"{'TFLOP/s fp8 / kernel / bf16 / cuDNN':>36} | {'user µs fp8 / bf16 / cuDNN':>27} | "
          f"bf16/fp8 cuDNN/fp8 | max abs error fp8 / bf16 / cuDNN")
    rows = []
    for b, h, hkv, s in configs:
        for causal in causals:
            rows.append(dict(card=card, **measure(torch, args, b, h, hkv, s, causal)))
    if args.csv:
        harness.write_csv(rows, args.csv)


def measure(torch, args, b, h, hkv, s, causal):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    name = f"{b}x{h}/{hkv} s{s}{' causal' if causal else ''}"
    d = HEAD_DIM
    generator = torch.Generator(device="cuda").manual_seed(s + h)
    q, k, v = (torch.randn(b, heads, s, d, device="cuda", dtype=torch.bfloat16,
                           generator=generator) for heads in (h, hkv, hkv))
    group = h // hkv
    (q8, qs), (k8, ks), (v8, vs) = quantize(torch, q, group), quantize(torch, k, 1), \
        quantize(torch, v, 1)
    # Every side computes the same problem: the dequantized e4m3 inputs.
    qd, kd, vd = (x.float() * f.repeat_interleave(x.shape[1] // f.shape[1], dim=1)[:, :, None,
                                                                                    None]
                  for x, f in ((q8, qs), (k8, ks), (v8, vs)))
    q16, k16, v16 = (x.to(torch.bfloat16) for x in (qd, kd, vd))
    gqa = h != hkv

    def fp8():
        return tile.attention(q8, k8, v8, causal=causal, enable_gqa=gqa, q_descale=qs,
                              k_descale=ks, v_descale=vs)

    def bf16():
        return tile.attention(q16, k16, v16, causal=causal, enable_gqa=gqa)

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(
                q16, k16, v16, is_causal=causal, enable_gqa=gqa)
    runs = {"fp8": fp8, "bf16": bf16, "cudnn": cudnn}
    errors = {}
    for side, run in runs.items():
        out = run()
        error = 0.0
        for i, j in ((0, 0), (b - 1, h - 1)):
            want = reference_head(torch, qd[i:i + 1, j:j + 1], kd[i:i + 1, j // group:j // group + 1],
                                  vd[i:i + 1, j // group:j // group + 1], causal)
            error = max(error, (out[i:i + 1, j:j + 1].float() - want).abs().max().item())
        errors[side] = error
    flops = 4 * b * h * s * s * d // (2 if causal else 1)
    repeats = max(10, min(100, int(2e13 / flops)))
    times = dict(zip(runs, harness.rotated_kernel_us(list(runs.values()), args.rounds, repeats)))
    kernels = harness.kernel_breakdown(fp8, repeats)
    kernel = next((us for name_, us in kernels.items() if "attention" in name_), float("nan"))
    layout = sum(us for name_, us in kernels.items() if "attention" not in name_)
    users = {side: harness.user_us(run, repeats)[0] for side, run in runs.items()}
    row = dict(case=name, batch=b, heads=h, kv_heads=hkv, seqlen=s, head_dim=d, causal=causal,
               fp8_kernel_us=kernel, fp8_v_layout_us=layout)
    row.update({f"{side}_us": times[side] for side in SIDES})
    row.update({f"{side}_tflops": flops / times[side] / 1e6 for side in SIDES})
    row["fp8_kernel_tflops"] = flops / kernel / 1e6
    row.update({f"{side}_user_us": users[side] for side in SIDES})
    row.update({f"{side}_error": errors[side] for side in SIDES})
    print(f"{name:28} | {times['fp8']:9.1f} {kernel:9.1f} {times['bf16']:9.1f} "
          f"{times['cudnn']:9.1f} | {row['fp8_tflops']:7.0f} {row['fp8_kernel_tflops']:7.0f} "
          f"{row['bf16_tflops']:7.0f} {row['cudnn_tflops']:7.0f} | {users['fp8']:8.1f} "
          f"{users['bf16']:8.1f} {users['cudnn']:8.1f} | {times['bf16'] / times['fp8']:8.2f} "
          f"{times['cudnn'] / times['fp8']:9.2f} | {errors['fp8']:.1e} {errors['bf16']:.1e} "
          f"{errors['cudnn']:.1e}", flush=True)
    return row


if __name__ == "__main__":
    main()
