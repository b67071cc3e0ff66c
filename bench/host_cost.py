#!/usr/bin/env python3
"""Host time per call of tile's entry points against PyTorch's, as users
call them, in one process:

    PYTHONPATH=python python3 bench/host_cost.py [--calls 2000] [--batches 15]
        [--profile] [--soak 0] [--only NAME]

Each subject is a pair (tile's call, PyTorch's call for the same result) at
a shape small enough that the GPU runs ahead of the host (the loop then
times the host path: checks, plan lookup, allocation, packing, the driver's
launch). Steady state: after warm-up, --batches batches of --calls
back-to-back calls, every subject's batches alternating (a slow spell of a
shared host falls on all alike), the GPU synchronized between batches
outside the timing; the median µs per call. Each call's GPU time (CUPTI)
is printed beside it: a host time not clearly above it means the loop timed
the GPU, not the host. --profile prints cProfile's costliest functions of
each tile call; --soak N makes N calls of each tile subject and prints the
process's resident memory and the device's free memory before and after.
"""
import argparse
import cProfile
import io
import pstats

import harness  # also puts python/ on sys.path
import tile  # noqa: E402
from launch_overhead import host_us  # noqa: E402


def subjects(torch):
    """(name, tile's call, PyTorch's call) on tensors allocated once."""
    F = torch.nn.functional
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    a, w = torch.randn(256, 256, **bf16), torch.randn(256, 256, **bf16)
    c_tile, c_torch = torch.empty(256, 256, **bf16), torch.empty(256, 256, **bf16)
    x16, w16 = torch.randn(16, 1024, **bf16), torch.randn(1024, 1024, **bf16)
    ua, ub = torch.randn(77, 33, **bf16), torch.randn(33, 111, **bf16)
    q, k, v = (torch.randn(1, 8, 128, 64, **bf16) for _ in range(3))
    qg, kg, vg = (torch.randn(1, h, 128, 128, **bf16) for h in (32, 8, 8))
    kc, vc = (torch.randn(1, 512, 8, 128, **bf16) for _ in range(2))
    q1 = torch.randn(1, 1, 32, 128, **bf16)
    lengths = torch.full((1,), 512, device="cuda", dtype=torch.int32)
    kc_sdpa, vc_sdpa = (t.transpose(1, 2) for t in (kc, vc))
    # A decode step as flash_attn_with_kvcache users make it: append one
    # token's K and V at position 512, attend over 513 keys.
    ka, va = (torch.randn(1, 1024, 8, 128, **bf16) for _ in range(2))
    k1, v1 = (torch.randn(1, 1, 8, 128, **bf16) for _ in range(2))

    def torch_step():
        ka_torch[:, 512:513], va_torch[:, 512:513] = k1, v1
        return F.scaled_dot_product_attention(
            q1.transpose(1, 2), ka_torch[:, :513].transpose(1, 2),
            va_torch[:, :513].transpose(1, 2), enable_gqa=True).transpose(1, 2)
    ka_torch, va_torch = ka.clone(), va.clone()
    groups, rows = 4, 64
    ga = torch.randn(groups * rows, 256, **bf16)
    gb = torch.randn(groups, 256, 256, **bf16)
    offsets = torch.arange(1, groups + 1, device="cuda", dtype=torch.int32) * rows
    pairs = [
        ("matmul 256^3, A W^T (new C)", lambda: tile.matmul(a, w.t()),
         lambda: torch.matmul(a, w.t())),
        ("matmul 256^3, out=", lambda: tile.matmul(a, w, out=c_tile, transpose_b=True),
         lambda: torch.matmul(a, w.t(), out=c_torch)),
        ("matmul 16x1024x1024 (decode kernel)", lambda: tile.matmul(x16, w16.t()),
         lambda: torch.matmul(x16, w16.t())),
        ("matmul 77x111x33 (staged rows)", lambda: tile.matmul(ua, ub),
         lambda: torch.matmul(ua, ub)),
        ("attention 1x8x128x64", lambda: tile.attention(q, k, v),
         lambda: F.scaled_dot_product_attention(q, k, v)),
        ("attention GQA 32/8 x128, causal", lambda: tile.attention(qg, kg, vg, causal=True,
                                                                   enable_gqa=True),
         lambda: F.scaled_dot_product_attention(qg, kg, vg, is_causal=True, enable_gqa=True)),
        ("attention_with_kvcache, decode b1 512", lambda: tile.attention_with_kvcache(
            q1, kc, vc, cache_seqlens=lengths),
         lambda: F.scaled_dot_product_attention(q1.transpose(1, 2), kc_sdpa, vc_sdpa,
                                                enable_gqa=True).transpose(1, 2)),
        ("attention_with_kvcache, append + decode", lambda: tile.attention_with_kvcache(
            q1, ka, va, k=k1, v=v1, cache_seqlens=lengths), torch_step),
    ]
    # An FP8 C with its scale and amax (tile.matmul's quantizing epilogue)
    # against PyTorch's matmul, amax, scale, clamp and cast.
    fp8 = torch.float8_e4m3fn
    scale, amax_tile, amax_torch = (torch.ones(1, device="cuda") for _ in range(3))

    def torch_quantized(x, w_t):
        y = torch.matmul(x, w_t)
        torch.maximum(amax_torch, y.abs().amax().reshape(1), out=amax_torch)
        return (y.float() * scale).clamp(-448.0, 448.0).to(fp8)
    pairs += [
        ("matmul 256^3, FP8 C + amax", lambda: tile.matmul(
            a, w.t(), out_dtype=fp8, out_scale=scale, amax=amax_tile),
         lambda: torch_quantized(a, w.t())),
        ("matmul 16x1024x1024, FP8 C + amax (decode kernel)", lambda: tile.matmul(
            x16, w16.t(), out_dtype=fp8, out_scale=scale, amax=amax_tile),
         lambda: torch_quantized(x16, w16.t())),
    ]
    if hasattr(torch, "_grouped_mm"):
        gb_t = gb.transpose(-2, -1).contiguous().transpose(-2, -1)
        pairs.append(("grouped_matmul 4 x 64 x 256 x 256",
                      lambda: tile.grouped_matmul(ga, gb_t, offsets),
                      lambda: torch._grouped_mm(ga, gb_t, offs=offsets)))
    return pairs


def profile(name: str, run, calls: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        run()
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(14)
    print(f"--- cProfile, {calls} calls of tile: {name}")
    print("\n".join(line for line in text.getvalue().splitlines()[6:] if line.strip()))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per batch")
    parser.add_argument("--batches", type=int, default=15)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--soak", type=int, default=0, help="calls of each tile subject")
    parser.add_argument("--only", help="the subjects whose name contains this")
    args = parser.parse_args()
    torch = harness.torch_or_exit("host_cost.py")
    harness.describe_device()
    sync = torch.cuda.synchronize
    # The first subject (torch.matmul's side: the reference) always runs.
    pairs = [p for i, p in enumerate(subjects(torch))
             if i == 0 or args.only is None or args.only in p[0]]
    for name, ours, theirs in pairs:  # same results first
        expected, got = theirs().float(), ours().float()
        error = (got - expected).abs().max().item() / max(expected.abs().max().item(), 1e-6)
        # An FP8 C: one rounding of 8-bit floats (1/16) apart at most.
        if not error < (0.07 if "FP8" in name else 2e-2):
            raise SystemExit(f"{name}: tile and torch differ (relative {error:.3g})")
    runs = [run for _, ours, theirs in pairs for run in (ours, theirs)]
    hosts = host_us(runs, sync, args.calls, args.batches)
    gpu = [harness.kernel_us(run, 200)[0] for run in runs]
    print(f"host µs per call: median of {args.batches} batches of {args.calls} calls (min); "
          "GPU µs per call (CUPTI); tile / torch host time; tile / torch.matmul's (the first "
          "subject's torch side)")
    for i, (name, _, _) in enumerate(pairs):
        (ours, ours_min), (theirs, theirs_min) = hosts[2 * i], hosts[2 * i + 1]
        flags = ["" if h > 1.2 * g else " (GPU-bound)" for (h, _), g in
                 zip(hosts[2 * i:2 * i + 2], gpu[2 * i:2 * i + 2])]
        print(f"  {name:40s} tile {ours:6.2f} ({ours_min:6.2f}) GPU {gpu[2 * i]:6.2f}{flags[0]}"
              f" | torch {theirs:6.2f} ({theirs_min:6.2f}) GPU {gpu[2 * i + 1]:6.2f}{flags[1]}"
              f" | {ours / theirs:5.2f}x | {ours / hosts[1][0]:5.2f}x")
    if args.profile:
        for name, ours, _ in pairs:
            profile(name, ours, args.calls)
    if args.soak:
        runtime = harness.driver_memory
        before = (harness.rss_bytes(), runtime())
        for _, ours, _ in pairs:
            for i in range(args.soak):
                ours()
                if i % 10000 == 0:
                    sync()
        sync()
        after = (harness.rss_bytes(), runtime())
        print(f"soak: {args.soak} calls of each subject; RSS {before[0] / 2**20:.1f} -> "
              f"{after[0] / 2**20:.1f} MiB; device free {before[1][0] / 2**20:.0f} -> "
              f"{after[1][0] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
