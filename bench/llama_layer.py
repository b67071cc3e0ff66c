#!/usr/bin/env python3
"""A Llama-3 decoder layer: tile's GEMMs and attention against PyTorch's.

tile.matmul, tile.attention and tile.attention_with_kvcache against the same
layer on cuBLAS and SDPA, prefill and decode, eager and in CUDA graphs.

    PYTHONPATH=python python3 bench/llama_layer.py [--configs 8b 70b] [--modes prefill decode]
                                                   [--batches 1 16 64] [--caches 4k 32k]
                                                   [--prefill-tokens 4096 ...] [--rounds 3]
                                                   [--repeats R] [--no-graphs]
                                                   [--fused] [--torch-compile]
                                                   [--csv FILE] [--plot FILE.png]

The layer (pre-norm, bf16): h = x + Wo attn(rope(Wq n(x)), rope(Wk n(x)),
Wv n(x)); out = h + Wdown (silu(Wgate n'(h)) * Wup n'(h)), n and n' RMSNorm
(eps 1e-5), RoPE rotate-half with theta 500000, grouped-query attention.
Configs: 8b (hidden 4096, 32 query heads, 8 KV heads, head dim 128, MLP
14336) and 70b (8192, 64, 8, 128, 28672; one layer's weights are 1.7 GB).
Both sides share the weights (torch.randn-like, std 0.02; the norms' weights
1 + small noise), the inputs (x ~ randn) and the layer's structure: one
fused QKV weight ((H + 2 Hkv) D x hidden) and one fused gate/up weight
(2 MLP x hidden), each row-major (N, K) as nn.Linear keeps them. The sides
differ only in the projections and the attention:
  - torch: torch.matmul(x, W.t()) (cuBLAS), and
    F.scaled_dot_product_attention(..., enable_gqa=True) on the fastest of
    PyTorch's own choice and sdpa_kernel(CUDNN_ATTENTION / FLASH_ATTENTION /
    EFFICIENT_ATTENTION) that runs, picked once per point by a quick timing
    of the attention call alone (printed; a PyTorch without enable_gqa runs
    SDPA on k and v repeated to H heads);
  - tile: tile.matmul(x, W.t()) (@gemm_nt, or a decode kernel for M <= 96 and,
    where it is estimated faster, up to 128),
    tile.attention(..., causal=True, enable_gqa=True) for prefill and
    tile.attention_with_kvcache for decode.
The elementwise parts (RMSNorm: F.rms_norm where PyTorch has it; RoPE,
SiLU * up, the residual adds) are the same torch ops on both sides; with
--fused, tile's side is fused_layer instead: tile.rms_norm, tile.rope, the
residual adds in the o and down GEMMs' epilogues and SiLU * up in the
gate/up GEMM's (gated, on an interleaved copy of the gate/up weight); with --torch-compile,
torch's prefill layer runs through torch.compile (its own fusion).

Modes:
  - prefill: B = 1, S = --prefill-tokens tokens, causal, keys and values of
    this chunk only. q, k, v are (B, S, heads, D) (views of the QKV product,
    q and k through RoPE) and both sides read their (B, heads, S, D)
    transposes in place. tile.attention writes a (B, S, H, D) out through
    its transpose (out=), so Wo reads it as (S, H D) without a copy; SDPA's
    output usually is already (B, S, H, D) in memory.
  - decode: B sequences of one new token each against a KV cache of L keys
    (random, filled once), capacity L + 1. Memory plan: ONE cache pair per
    (config, B, L), K and V each (B, Hkv, L + 1, D) contiguous (at B = 64,
    L = 32k: 4.3 GB each), shared by both sides. torch writes the new key
    and value into position L (`k_cache[:, :, L] = k_new`, one copy kernel
    each) and runs SDPA over all L + 1 keys with q (B, H, 1, D).
    tile.attention_with_kvcache gets the (B, L + 1, Hkv, D) view
    k_cache.transpose(1, 2) (its checks take any TMA-aligned strides: the
    kernels read the cache as (B, Hkv, S, D), which that view is
    contiguously), cache_seqlens = L (int32) and k=, v= to append in place
    (a few small torch kernels: counted in "other", as torch's copies are).
    Every call (re)writes position L before reading it, so each side attends
    over the same L random keys plus its own new one, and repeated calls
    and graph replays just overwrite that slot. The cache is freed
    (torch.cuda.empty_cache) before the next point; a point whose
    allocations fail prints "skipped: out of memory".

Per point, first correctness: tile's layer output and its attention output
against torch's (max abs error, ‖tile − torch‖ / ‖torch‖); a relative error
above 2e-2 prints WRONG and the point is not timed. Then, for each side,
--rounds rounds (each starting with the other side, as
harness.rotated_kernel_us does; medians over the rounds) of
  - the user path (harness.user_us: CUDA events around --repeats
    back-to-back calls), per layer, eager and, unless --no-graphs, as the
    replay of a CUDA graph of one layer call (torch.cuda.CUDAGraph, captured
    after a warm-up on a side stream; tile launches on PyTorch's current
    stream, so its kernels are captured too; a side whose capture fails
    prints the error and shows n/a);
  - kernel time of the eager calls from CUPTI (torch.profiler, as
    tile.testing.kernel_us; memcpy and memset records count too) by
    category: attention (tile's attention_d128, decode_attention_*; SDPA's
    flash / fmha / cuDNN kernels), GEMM (tile's gemm_*; cuBLAS's gemm,
    sm90_xmma, cutlass, nvjet, gemv kernels) and elementwise/other (every
    other record: its names are printed the first time they are seen, so a
    misclassified kernel shows). The graph replays the same kernels: graph
    rows carry the user path only.
Printed: µs both sides and torch / tile for the attention share, the GEMM
share and the whole layer (kernel time), and for the user path. --repeats
defaults to about 40 ms of layers per measurement (10 to 50 calls); the
default run (2 configs, prefill 4k and 6 decode points each) takes a few
minutes on an H100. --csv writes one row per point and eager/graph (card
named), --plot a bar chart of torch / tile for the attention share (kernel
time) and the whole layer (user path, eager and graph).
"""
import argparse
import gc
import math
import statistics
import sys
import warnings
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402
from tile.testing import median_ms, relative_error  # noqa: E402


class Model(NamedTuple):
    """The shapes of one Llama-3 layer."""
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    mlp: int


CONFIGS = {"8b": Model(4096, 32, 8, 128, 14336), "70b": Model(8192, 64, 8, 128, 28672)}
SIDES = ("torch", "tile")
CATEGORIES = ("attention", "gemm", "other")
ROPE_THETA = 500000.0
EPS = 1e-5  # Llama 3's RMSNorm epsilon
WEIGHT_STD = 0.02
# Two correct bf16 layers differ by the rounding of every bf16 intermediate
# (QKV, attention, Wo, gate/up, SiLU * up, Wdown: each rounded to 8 bits of
# mantissa, relative 2^-9 ~ 2e-3, in whichever elements the two f32
# accumulation orders over K up to 28672 land on different sides of a
# rounding boundary) and the softmax's sensitivity to the scores' rounding:
# a few 1e-3 in norm, compounding over the chain to ~1e-2 at worst. A real
# bug (a wrong mask, head mapping or key range, a missing block) moves the
# attention output by O(10%) or more. The residual x dominates the layer's
# output, so the attention output is checked on its own too.
TOLERANCE = 2e-2
TARGET_US = 40000.0  # layers per measurement: about 40 ms of them
REPEATS = (10, 50)  # ... but at least 10 and at most 50 calls
# Kernel name markers (lower case), tested in this order: attention first
# (the memory-efficient kernels are CUTLASS templates, "fmha_cutlassF_...",
# and attention kernels may name their GEMM stages), then GEMMs; the rest is
# elementwise/other.
ATTENTION_MARKERS = ("attention", "flash", "fmha", "cudnn", "sdpa")
GEMM_MARKERS = ("gemm", "sm90_xmma", "cutlass", "nvjet", "gemv", "cublas", "splitkreduce")
RECORDS = ("kernel", "gpu_memcpy", "gpu_memset")  # CUPTI record kinds counted


length = harness.length


def short(n: int) -> str:
    """4096 as 4k (a multiple of 1024), else the number."""
    return f"{n // 1024}k" if n % 1024 == 0 else str(n)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--modes", nargs="+", default=["prefill", "decode"],
                        choices=["prefill", "decode"])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 16, 64],
                        help="decode batch sizes")
    parser.add_argument("--caches", nargs="+", type=length, default=[length("4k"), length("32k")],
                        help="decode KV cache lengths L (4k = 4096)")
    parser.add_argument("--prefill-tokens", nargs="+", type=length, default=[4096],
                        help="prefill lengths S (batch 1)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: about 40 ms of layers, 10 to 50)")
    parser.add_argument("--no-graphs", action="store_true", help="skip the CUDA graph timings")
    parser.add_argument("--fused", action="store_true",
                        help="tile's side with its fused ops (fused_layer)")
    parser.add_argument("--torch-compile", action="store_true",
                        help="prefill: torch's side through torch.compile (its own fusion)")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    args = parser.parse_args()
    torch = harness.torch_or_exit("llama_layer.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    print(HEADER)
    rows: List[Dict[str, object]] = []
    seen: set = set()
    for name in args.configs:
        rows += config_rows(torch, args, name, seen)
    rows = [dict(card=card, **row) for row in rows]
    if args.csv:
        harness.write_csv(rows, args.csv)
    if args.plot and rows:
        plot(rows, args.plot, card)


# --- the layer ---------------------------------------------------------------

def make_weights(torch, model: Model, seed: int, device: str = "cuda") -> Dict[str, object]:
    """The layer's bf16 weights: matrices row-major (N, K) with std 0.02, the
    norms' weights 1 + 0.02 noise."""
    generator = torch.Generator(device=device).manual_seed(seed)

    def normal(*shape):
        return torch.empty(*shape, device=device, dtype=torch.bfloat16).normal_(
            0.0, WEIGHT_STD, generator=generator)
    hd = model.head_dim
    return {"attn_norm": normal(model.hidden) + 1,
            "qkv": normal((model.heads + 2 * model.kv_heads) * hd, model.hidden),
            "o": normal(model.hidden, model.heads * hd),
            "mlp_norm": normal(model.hidden) + 1,
            "gate_up": normal(2 * model.mlp, model.hidden),
            "down": normal(model.hidden, model.mlp)}


def with_interleaved(weights: Dict[str, object]) -> Dict[str, object]:
    """The weights plus the gate/up weight interleaved for tile's gated
    epilogue (fused_layer)."""
    gate, up = weights["gate_up"].chunk(2)
    return dict(weights, gate_up_interleaved=tile.interleave_gate_up(gate, up))


def rms_norm(torch, x, weight):
    """RMSNorm over the last dimension: F.rms_norm where PyTorch has it,
    else its formula in f32."""
    functional = torch.nn.functional
    if hasattr(functional, "rms_norm"):
        return functional.rms_norm(x, (x.shape[-1],), weight, EPS)
    scale = torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + EPS)
    return (x.float() * scale).to(x.dtype) * weight


def rope_tables(torch, start: int, count: int, head_dim: int, device: str = "cuda"):
    """cos and sin (1, count, 1, D) bf16 of rotate-half RoPE (theta 500000)
    at positions start .. start + count - 1 (computed in f64 once)."""
    exponents = torch.arange(0, head_dim, 2, dtype=torch.float64, device=device) / head_dim
    positions = torch.arange(start, start + count, dtype=torch.float64, device=device)
    angles = positions[:, None] * ROPE_THETA ** -exponents[None, :]
    angles = torch.cat((angles, angles), dim=-1)
    return tuple(t.to(torch.bfloat16)[None, :, None, :] for t in (angles.cos(), angles.sin()))


def rope(torch, x, cos, sin):
    """Rotate-half RoPE of x (B, S, heads, D) with tables (1, S, 1, D)."""
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


def attention_inputs(torch, x, weights, model: Model, batch: int, tables, linear):
    """q (B, S, H, D) and k (B, S, Hkv, D) after RoPE, and v (B, S, Hkv, D)
    (a view of the QKV product) of the tokens x (B S, hidden)."""
    qkv = linear(rms_norm(torch, x, weights["attn_norm"]), weights["qkv"])
    hd, tokens = model.head_dim, x.shape[0] // batch
    q, k, v = qkv.split([model.heads * hd, model.kv_heads * hd, model.kv_heads * hd], dim=-1)
    q = q.view(batch, tokens, model.heads, hd)
    k = k.view(batch, tokens, model.kv_heads, hd)
    v = v.view(batch, tokens, model.kv_heads, hd)
    cos, sin = tables
    return rope(torch, q, cos, sin), rope(torch, k, cos, sin), v


def layer(torch, x, weights, model: Model, batch: int, tables, linear, attend, keep=None):
    """One decoder layer on the tokens x (B S, hidden): `linear(a, w)` is
    a W^T, `attend(q, k, v)` the attention output (B S, H D). With `keep`
    (a dict), keep["attention"] is that output."""
    functional = torch.nn.functional
    q, k, v = attention_inputs(torch, x, weights, model, batch, tables, linear)
    attended = attend(q, k, v)
    h = x + linear(attended, weights["o"])
    gate, up = linear(rms_norm(torch, h, weights["mlp_norm"]), weights["gate_up"]).chunk(2, -1)
    out = h + linear(functional.silu(gate) * up, weights["down"])
    if keep is not None:
        keep["attention"] = attended
    return out


def fused_layer(torch, x, weights, model: Model, batch: int, tables, attend, keep=None):
    """`layer` on tile's fused ops: tile.rms_norm for both norms, tile.rope
    in place on the QKV product's q and k, the o and down projections with
    their residual adds in the GEMM's epilogue, and the gated MLP's SiLU *
    up in the gate/up GEMM's epilogue (an interleaved copy of the gate/up
    weight, weights["gate_up_interleaved"])."""
    qkv = tile.matmul(tile.rms_norm(x, weights["attn_norm"], EPS), weights["qkv"],
                      transpose_b=True)
    hd, tokens = model.head_dim, x.shape[0] // batch
    q, k, v = qkv.split([model.heads * hd, model.kv_heads * hd, model.kv_heads * hd], dim=-1)
    q = q.view(batch, tokens, model.heads, hd)
    k = k.view(batch, tokens, model.kv_heads, hd)
    v = v.view(batch, tokens, model.kv_heads, hd)
    tile.rope(q, k, *tables)  # in place, on the QKV product's views
    attended = attend(q, k, v)
    h = tile.matmul(attended, weights["o"], transpose_b=True, residual=x)
    hidden = tile.matmul(tile.rms_norm(h, weights["mlp_norm"], EPS),
                         weights["gate_up_interleaved"], transpose_b=True, gated=True,
                         activation="silu")
    out = tile.matmul(hidden, weights["down"], transpose_b=True, residual=h)
    if keep is not None:
        keep["attention"] = attended
    return out


def linears(torch) -> Dict[str, Callable]:
    """a W^T for a row-major (N, K) W, by side: cuBLAS and tile.matmul (both
    take W.t(), the transposed view: @gemm_nt or a decode kernel for tile)."""
    return {"torch": lambda a, w: torch.matmul(a, w.t()),
            "tile": lambda a, w: tile.matmul(a, w.t())}


# --- attention, by side and mode ---------------------------------------------

def sdpa_variants(torch) -> Dict[str, Callable]:
    """SDPA with GQA as functions (q, k, v, causal) of (B, heads, S, D)
    tensors: PyTorch's own backend choice ("default") and, where
    torch.nn.attention has them, cuDNN, flash and memory-efficient forced
    with sdpa_kernel."""
    sdpa = torch.nn.functional.scaled_dot_product_attention
    variants = {"default": lambda q, k, v, causal: sdpa(q, k, v, is_causal=causal,
                                                        enable_gqa=True)}
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return variants

    def forced(backend):
        def run(q, k, v, causal):
            with sdpa_kernel(backend):
                return sdpa(q, k, v, is_causal=causal, enable_gqa=True)
        return run
    for name, attribute in (("cudnn", "CUDNN_ATTENTION"), ("flash", "FLASH_ATTENTION"),
                            ("efficient", "EFFICIENT_ATTENTION")):
        if hasattr(SDPBackend, attribute):
            variants[name] = forced(getattr(SDPBackend, attribute))
    return variants


def repeated_kv(torch):
    """SDPA without enable_gqa (a PyTorch before 2.5): k and v repeated to H
    heads first (copies, counted in "other")."""
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def run(q, k, v, causal):
        group = q.shape[1] // k.shape[1]
        return sdpa(q, k.repeat_interleave(group, 1), v.repeat_interleave(group, 1),
                    is_causal=causal)
    return run


def torch_prefill(sdpa):
    """torch's prefill attention: causal SDPA on the (B, heads, S, D)
    transposes of q, k, v; (B S, H D) out."""
    def attend(q, k, v):
        out = sdpa(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), True)
        return out.transpose(1, 2).reshape(q.shape[0] * q.shape[1], -1)
    return attend


def tile_prefill():
    """tile's prefill attention: tile.attention (causal, GQA) on the same
    transposes, into a (B, S, H, D) out through its (B, H, S, D) transpose
    (out= takes TMA strides), which is (B S, H D) as it is."""
    import torch

    def attend(q, k, v):
        out = torch.empty(q.shape, device=q.device, dtype=q.dtype)
        tile.attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                       causal=True, enable_gqa=True, out=out.transpose(1, 2))
        return out.view(q.shape[0] * q.shape[1], -1)
    return attend


def torch_decode(sdpa, k_cache, v_cache, cached: int):
    """torch's decode attention: the new k, v (B, 1, Hkv, D) written at
    position `cached` of the (B, Hkv, L + 1, D) caches (one copy each), then
    SDPA of q (B, H, 1, D) over all L + 1 keys (no mask: the one query
    sees them all); (B, H D) out."""
    def attend(q, k, v):
        k_cache[:, :, cached] = k[:, 0]
        v_cache[:, :, cached] = v[:, 0]
        out = sdpa(q.transpose(1, 2), k_cache, v_cache, False)
        return out.transpose(1, 2).reshape(q.shape[0], -1)
    return attend


def tile_decode(torch, k_cache, v_cache, cached: int):
    """tile's decode attention on the same caches, as (B, L + 1, Hkv, D)
    views: tile.attention_with_kvcache appends k, v at cache_seqlens = L
    (in place) and attends over L + 1 keys (causal, bottom-right: the new
    query sees every key); its (B, 1, H, D) out is (B, H D) as it is."""
    lengths = torch.full((k_cache.shape[0],), cached, device=k_cache.device, dtype=torch.int32)
    k_view, v_view = k_cache.transpose(1, 2), v_cache.transpose(1, 2)

    def attend(q, k, v):
        out = tile.attention_with_kvcache(q, k_view, v_view, k=k, v=v, cache_seqlens=lengths,
                                          causal=True)
        return out.reshape(q.shape[0], -1)
    return attend


def choose_sdpa(torch, case: str, attend_for: Callable, q, k, v):
    """The fastest SDPA variant (sdpa_variants; repeated_kv only if none of
    them runs) of `attend_for(sdpa)(q, k, v)`, by CUDA events around 10
    back-to-back calls: (name, sdpa), or None when none runs. Prints every
    variant's time (n/a: it does not run this shape here)."""
    out_of_memory = getattr(torch.cuda, "OutOfMemoryError", ())
    candidates = list(sdpa_variants(torch).items()) + [("repeated k/v", repeated_kv(torch))]
    times: Dict[str, float] = {}
    chosen = {}
    for name, sdpa in candidates:
        if name == "repeated k/v" and chosen:
            break
        run = attend_for(sdpa)
        try:
            with warnings.catch_warnings():  # "... kernel not used because ..."
                warnings.simplefilter("ignore")
                times[name] = median_ms(lambda: run(q, k, v), runs=10, warmup=2,
                                        batched=True) * 1e3
            chosen[name] = sdpa
        except out_of_memory:
            raise
        except (RuntimeError, TypeError, ValueError, NotImplementedError):
            times[name] = math.nan
    listed = ", ".join(f"{name} {'n/a' if math.isnan(us) else f'{us:.1f} µs'}"
                       for name, us in times.items())
    if not chosen:
        print(f"{case}: skipped: no SDPA backend runs this attention ({listed})", flush=True)
        return None
    best = min(chosen, key=times.get)
    print(f"{case}: SDPA {best} ({listed})", flush=True)
    return best, chosen[best]


# --- measurements ------------------------------------------------------------

def category(name: str) -> str:
    """attention, gemm or other for a kernel name (ATTENTION_MARKERS first)."""
    lower = name.lower()
    if any(marker in lower for marker in ATTENTION_MARKERS):
        return "attention"
    if any(marker in lower for marker in GEMM_MARKERS):
        return "gemm"
    return "other"


def kernel_categories(torch, run: Callable, repeats: int, seen: set,
                      warmup: int = 3) -> Dict[str, float]:
    """µs per call of `run` by category (CATEGORIES) and their "total":
    CUPTI's kernel, memcpy and memset records of `repeats` back-to-back calls
    after `warmup` calls that finish first (tile.testing.device_records,
    grouped by `category` of their names); NaN when CUPTI
    recorded nothing. Names counted as "other" that `seen` lacks are printed
    once (and added)."""
    times = dict.fromkeys(CATEGORIES, 0.0)
    records = 0
    for event in harness.device_records(run, repeats, warmup, RECORDS)[0]:
        name = event.get("name", "")
        kind = category(name) if event["cat"] == "kernel" else "other"
        times[kind] += float(event["dur"]) / repeats
        records += 1
        if kind == "other" and name not in seen:
            seen.add(name)
            print(f"    elementwise/other: {name[:150]}")
    if not records:
        times = dict.fromkeys(CATEGORIES, math.nan)
    times["total"] = sum(times[c] for c in CATEGORIES)
    return times


def check(torch, runs: Dict[str, Callable]) -> Dict[str, float]:
    """tile's layer output and attention output against torch's (torch runs
    first; in decode each call writes its own new key and value before
    reading them): max abs error of the output, relative errors of both."""
    want, got = {}, {}
    want_out, got_out = runs["torch"](want), runs["tile"](got)
    return {"out_max_error": (got_out.float() - want_out.float()).abs().max().item(),
            "out_rel_error": relative_error(got_out, want_out),
            "attention_rel_error": relative_error(got["attention"], want["attention"])}


def measure(torch, args, case: str, fields: Dict[str, object], runs: Dict[str, Callable],
            seen: set) -> List[Dict[str, object]]:
    """Checks tile's layer against torch's, then times both (eager: user path
    and kernel time by category; graph: user path): the eager and graph
    rows, or none when tile's layer is WRONG."""
    errors = check(torch, runs)
    if not all(errors[key] <= TOLERANCE for key in ("out_rel_error", "attention_rel_error")):
        print(f"{case:26} | WRONG: relative error attention {errors['attention_rel_error']:.2e}, "
              f"output {errors['out_rel_error']:.2e} (max abs {errors['out_max_error']:.2e}) "
              f"> {TOLERANCE:g}: not timed", flush=True)
        return []
    repeats = args.repeats or int(min(REPEATS[1], max(
        REPEATS[0], TARGET_US / (median_ms(runs["torch"], runs=3, warmup=1) * 1e3))))
    graphs = {}
    for side in ([] if args.no_graphs else SIDES):
        try:
            graphs[side] = harness.capture_graph(torch, runs[side])
        except Exception as error:  # any capture failure: n/a, not a crash
            message = str(error).splitlines()[0] if str(error) else ""
            print(f"{case}: {side} CUDA graph: n/a ({type(error).__name__}: {message})")
            torch.cuda.synchronize()
    samples = {side: {key: [] for key in ("user", "graph") + CATEGORIES + ("total",)}
               for side in SIDES}
    for round_ in range(max(1, args.rounds)):
        for i in range(len(SIDES)):
            side = SIDES[(round_ + i) % len(SIDES)]
            taken = samples[side]
            taken["user"].append(harness.user_us(runs[side], repeats)[0])
            if side in graphs:
                taken["graph"].append(harness.user_us(graphs[side].replay, repeats)[0])
            for key, us in kernel_categories(torch, runs[side], repeats, seen).items():
                taken[key].append(us)
    del graphs
    nan = math.nan
    times = {side: {key: statistics.median(values) if values else nan
                    for key, values in taken.items()} for side, taken in samples.items()}
    rows = []
    for graph in (False, True):
        if graph and args.no_graphs:
            continue
        row = dict(case=case, **fields, graph="yes" if graph else "no", repeats=repeats)
        for side in SIDES:
            row[f"{side}_user_us"] = times[side]["graph" if graph else "user"]
        row["user_ratio"] = ratio(row["torch_user_us"], row["tile_user_us"])
        for key in CATEGORIES + ("total",):
            for side in SIDES:
                row[f"{side}_{key}_us"] = nan if graph else times[side][key]
            row[f"{key}_ratio"] = ratio(row[f"torch_{key}_us"], row[f"tile_{key}_us"])
        row.update(errors)
        rows.append(row)
        print_row(row, errors)
    return rows


HEADER = (f"{'case':26} {'':5} | {'rel error attn / out':>20} | {'user µs torch / tile':>21} "
          f"{'t/t':>5} | {'attention µs torch / tile':>25} {'t/t':>5} | "
          f"{'GEMM µs torch / tile':>21} {'t/t':>5} | {'other µs torch / tile':>21} | "
          f"{'total µs torch / tile':>21} {'t/t':>5}")


def fmt(value: float, spec: str) -> str:
    """`value` formatted, or n/a (right-aligned alike) for NaN."""
    text = format(value, spec)
    return text.replace("nan", "n/a") if math.isnan(value) else text


def ratio(torch_us: float, tile_us: float) -> float:
    """torch / tile, NaN where tile's time is 0 or NaN."""
    return torch_us / tile_us if tile_us else math.nan


def pair(row, key: str) -> str:
    """torch's and tile's `key` µs of a row."""
    return f"{fmt(row[f'torch_{key}_us'], '10.1f')} {fmt(row[f'tile_{key}_us'], '10.1f')}"


def print_row(row, errors) -> None:
    """One table line: the eager line with everything, the graph line with
    the user path."""
    mode = "graph" if row["graph"] == "yes" else "eager"
    check_text = (f"{errors['attention_rel_error']:9.2e} {errors['out_rel_error']:9.2e}"
                  if mode == "eager" else "")
    line = (f"{row['case']:26} {mode:5} | {check_text:>20} | {pair(row, 'user')} "
            f"{fmt(row['user_ratio'], '5.2f')}")
    if mode == "eager":
        line += (f" | {pair(row, 'attention'):>25} {fmt(row['attention_ratio'], '5.2f')} | "
                 f"{pair(row, 'gemm')} {fmt(row['gemm_ratio'], '5.2f')} | {pair(row, 'other')} | "
                 f"{pair(row, 'total')} {fmt(row['total_ratio'], '5.2f')}")
    print(line, flush=True)


# --- points ------------------------------------------------------------------

def guarded(torch, case: str, measure_point: Callable[[], List[Dict[str, object]]]):
    """measure_point()'s rows, or none after printing "skipped: out of
    memory" when the GPU runs out of memory; the point's memory (its cache,
    activations and graphs: locals of measure_point) is freed either way."""
    out_of_memory = getattr(torch.cuda, "OutOfMemoryError", RuntimeError)
    rows: List[Dict[str, object]] = []
    try:
        rows = measure_point()
    except out_of_memory as error:
        if "out of memory" not in str(error).lower():
            raise
        print(f"{case}: skipped: out of memory", flush=True)
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return rows


def config_rows(torch, args, name: str, seen: set) -> List[Dict[str, object]]:
    """Every point of one config (its weights allocated once, freed at the
    end)."""
    model = CONFIGS[name]
    weights = make_weights(torch, model, seed=model.hidden)
    if args.fused:
        weights = with_interleaved(weights)
    rows = []
    if "prefill" in args.modes:
        for tokens in args.prefill_tokens:
            case = f"{name} prefill S{short(tokens)}"
            rows += guarded(torch, case, lambda: prefill_point(torch, args, case, name, model,
                                                               weights, tokens, seen))
    if "decode" in args.modes:
        for batch in args.batches:
            for cached in args.caches:
                case = f"{name} decode B{batch} L{short(cached)}"
                rows += guarded(torch, case, lambda: decode_point(torch, args, case, name, model,
                                                                  weights, batch, cached, seen))
    weights = None  # dropped (the lambdas above name it)
    gc.collect()
    torch.cuda.empty_cache()
    return rows


def prefill_point(torch, args, case, name, model: Model, weights, tokens: int, seen: set):
    """Prefill of `tokens` tokens (B = 1, causal): the point's rows."""
    generator = torch.Generator(device="cuda").manual_seed(tokens)
    x = torch.randn(tokens, model.hidden, device="cuda", dtype=torch.bfloat16,
                    generator=generator)
    tables = rope_tables(torch, 0, tokens, model.head_dim)
    linear = linears(torch)
    q, k, v = attention_inputs(torch, x, weights, model, 1, tables, linear["torch"])
    choice = choose_sdpa(torch, case, torch_prefill, q, k, v)
    del q, k, v
    if choice is None:
        return []
    backend, sdpa = choice
    attends = {"torch": torch_prefill(sdpa), "tile": tile_prefill()}
    runs = {side: (lambda keep=None, side=side: layer(torch, x, weights, model, 1, tables,
                                                      linear[side], attends[side], keep))
            for side in SIDES}
    if args.fused:
        runs["tile"] = lambda keep=None: fused_layer(torch, x, weights, model, 1, tables,
                                                     attends["tile"], keep)
    if args.torch_compile:
        # Timed calls (no `keep`) run the compiled layer; the check keeps the
        # eager one's attention output.
        eager = runs["torch"]
        compiled = torch.compile(lambda: layer(torch, x, weights, model, 1, tables,
                                               linear["torch"], attends["torch"]))
        runs["torch"] = lambda keep=None: eager(keep) if keep is not None else compiled()
        backend += "+compile"
    fields = dict(config=name, mode="prefill", batch=1, tokens=tokens, cache=0,
                  sdpa_backend=backend)
    return measure(torch, args, case, fields, runs, seen)


def decode_point(torch, args, case, name, model: Model, weights, batch: int, cached: int,
                 seen: set):
    """One decode step of `batch` sequences over `cached` cached keys: the
    point's rows. One (B, Hkv, L + 1, D) cache pair serves both sides."""
    shape = (batch, model.kv_heads, cached + 1, model.head_dim)
    gib = 2 * math.prod(shape) * 2 / 2**30
    generator = torch.Generator(device="cuda").manual_seed(batch * 100003 + cached)
    k_cache = torch.empty(shape, device="cuda", dtype=torch.bfloat16).normal_(
        generator=generator)
    v_cache = torch.empty(shape, device="cuda", dtype=torch.bfloat16).normal_(
        generator=generator)
    print(f"{case}: KV cache 2 x {tuple(shape)} bf16 = {gib:.2f} GiB, shared (tile reads its "
          f"(B, L + 1, Hkv, D) transposed view)", flush=True)
    x = torch.randn(batch, model.hidden, device="cuda", dtype=torch.bfloat16,
                    generator=generator)
    tables = rope_tables(torch, cached, 1, model.head_dim)
    linear = linears(torch)
    q, k, v = attention_inputs(torch, x, weights, model, batch, tables, linear["torch"])
    choice = choose_sdpa(torch, case, lambda s: torch_decode(s, k_cache, v_cache, cached),
                         q, k, v)
    del q, k, v
    if choice is None:
        return []
    backend, sdpa = choice
    attends = {"torch": torch_decode(sdpa, k_cache, v_cache, cached),
               "tile": tile_decode(torch, k_cache, v_cache, cached)}
    runs = {side: (lambda keep=None, side=side: layer(torch, x, weights, model, batch, tables,
                                                      linear[side], attends[side], keep))
            for side in SIDES}
    if args.fused:
        runs["tile"] = lambda keep=None: fused_layer(torch, x, weights, model, batch, tables,
                                                     attends["tile"], keep)
    fields = dict(config=name, mode="decode", batch=batch, tokens=1, cache=cached,
                  sdpa_backend=backend)
    return measure(torch, args, case, fields, runs, seen)


def plot(rows, path: str, card: str) -> None:
    """torch / tile per point: the attention share (kernel time) and the
    layer's user path, eager and graph; skipped without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("no matplotlib: no plot")
        return
    points: Dict[str, Dict[str, object]] = {}
    for row in rows:
        point = points.setdefault(row["case"], {"case": row["case"]})
        if row["graph"] == "yes":
            point["graph"] = row["user_ratio"]
        else:
            point.update(attention=row["attention_ratio"], eager=row["user_ratio"])
    nan = math.nan
    harness.ratio_plot(list(points.values()), path,
                       f"Llama-3 layer, torch (cuBLAS, SDPA) / tile, {card}",
                       {"attention share (kernel time)": lambda p: p.get("attention", nan),
                        "layer, user path (eager)": lambda p: p.get("eager", nan),
                        "layer, user path (CUDA graph)": lambda p: p.get("graph", nan)},
                       ylabel="torch time / tile time")
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
