#!/usr/bin/env python3
"""Attention for inference: tile against PyTorch's SDPA (its backends) and a
device-to-device copy of the KV bytes.

    PYTHONPATH=python python3 bench/attention_inference.py [--parts gqa chunked decode varlen]
                                                           [--decode-batches 1 16 64]
                                                           [--rounds 3] [--csv FILE] [--plot FILE.png]

Parts (bf16, head dim 128):
- gqa: prefill with grouped-query heads, B = 1, 32/8 and 64/8 heads, 4k and
  16k tokens, causal and not: tile.attention(q, k, v, causal,
  enable_gqa=True) against SDPA(enable_gqa=True) on cuDNN and flash (a
  backend that refuses GQA runs on k and v repeated to H heads beforehand,
  outside the timing: named "(repeated)").
- chunked: a prefill chunk against the cache, 32/8 heads, 512 and 2048
  queries against 4k and 32k keys: tile bottom-right causal and tile
  without a mask against SDPA cuDNN without a mask (SDPA's is_causal is the
  top-left diagonal; without a mask it does the most work of the three);
  and tile.attention_with_kvcache on the same keys in shuffled pages of 16,
  32 and 128 tokens, and contiguous with cache_seqlens a tensor,
  bottom-right causal (the prefill kernel's KV-cache variant).
- decode: one query per sequence, 32/8 heads, B = 1, 16, 64 (--decode-batches:
  others, e.g. 17 30 50 100, where the KV heads outnumber the SMs by a
  fraction of a wave), caches of 4k
  and 32k keys: tile.attention_with_kvcache on a contiguous cache and on
  pages of 16 and 128 tokens against SDPA (enable_gqa, every backend that
  runs; the fastest is reported) on (B, Hkv, L, D) k and v, and a
  device-to-device copy of the K and V bytes (torch's copy_); caches under
  256 MB come in copies that the calls (every side's) take in turn, so
  that they are read from memory, not the L2. Bandwidth:
  bytes moved / time, 2 x the KV bytes for the copy (read and write), the
  KV bytes for attention (q and out are < 0.1%).
- varlen: 16 sequences of mixed lengths (64 .. 4096, seeded), 32/8 heads,
  causal: tile.attention_varlen on the packed tokens against SDPA cuDNN on
  the batch padded to the longest sequence (is_causal; padding is the
  price of a padded batch).

Each side is first checked against a float32 reference on two heads (max
abs error at most twice SDPA's on the same problem, else WRONG and not
timed); the CSV has tile's and SDPA's max and mean abs errors (chunked: on
the unmasked problem that SDPA runs; the bottom-right sides' max apart). Kernel time from CUPTI
(medians of --rounds rounds in rotated order), user path from CUDA events
around back-to-back calls, as bench/harness.py measures them.
"""
import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402

D = 128
#: Bytes of KV (in copies taken in turn) that keep decode's cache out of
#: the L2 (50 MB on an H100, 60 MB on an H200).
L2_FLUSH = 256 << 20
#: Page sizes of the chunked part's paged caches.
CHUNK_PAGES = (16, 32, 128)


def rotation(count: int):
    """A function returning 0, 1, ..., count - 1, 0, ... on its calls."""
    state = [count - 1]

    def turn():
        state[0] = (state[0] + 1) % count
        return state[0]
    return turn


def rotating_sdpa(torch, backend, q, ks, vs):
    """SDPA (enable_gqa) on one backend over the caches in turn."""
    runs = [sdpa_on(torch, backend, q, k, v, enable_gqa=True) for k, v in zip(ks, vs)]
    turn = rotation(len(runs))
    return lambda: runs[turn()]()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--parts", nargs="+", default=["gqa", "chunked", "decode", "varlen"],
                        choices=["gqa", "chunked", "decode", "varlen"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer shapes")
    parser.add_argument("--decode-batches", nargs="+", type=int, default=[1, 16, 64],
                        help="the decode part's batches")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    args = parser.parse_args()
    torch = harness.torch_or_exit("attention_inference.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    rows = []
    for part in args.parts:
        rows += globals()[f"bench_{part}"](torch, args)
    for row in rows:
        row["card"] = card
    if args.csv:
        harness.write_csv(normalize(rows), args.csv)
    if args.plot and rows:
        harness.ratio_plot(rows, args.plot, f"tile attention for inference vs SDPA, {card}",
                           {"best SDPA / tile (kernel)": lambda r: r["ratio"]})


def normalize(rows):
    """Rows with the union of the keys (NaN where absent), for one CSV."""
    keys = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    return [{k: row.get(k, float("nan")) for k in keys} for row in rows]


def time_sides(torch, sides, rounds, repeats):
    """{side: (kernel µs, user µs)} of callables."""
    names = list(sides)
    kernel = harness.rotated_kernel_us([sides[n] for n in names], rounds, repeats)
    return {n: (k, harness.user_us(sides[n], repeats)[0]) for n, k in zip(names, kernel)}


def sdpa_on(torch, backend, q, k, v, **kw):
    """A call of SDPA on one backend (None: PyTorch's choice)."""
    from torch.nn.attention import sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    if backend is None:
        return lambda: sdpa(q, k, v, **kw)

    def run():
        with sdpa_kernel(backend):
            return sdpa(q, k, v, **kw)
    return run


def working(torch, runs):
    """The runs that do not raise (a backend that refuses the shape)."""
    ok = {}
    for name, run in runs.items():
        try:
            run()
            torch.cuda.synchronize()
            ok[name] = run
        except Exception as error:  # noqa: BLE001 (a backend's refusal)
            print(f"    {name}: n/a ({type(error).__name__}: {str(error).splitlines()[0][:80]})")
    return ok


def reference_errors(torch, out, q, k, v, hi=None, heads=(0, -1)):
    """(max, mean) abs error of `out` (B, H, Sq, D) on two heads against
    float32 attention where key j is seen by query i if j <= i + hi."""
    group = q.shape[1] // k.shape[1]
    worst, mean = 0.0, 0.0
    for h in heads:
        h = h % q.shape[1]
        qh, kh, vh = q[:1, h].float(), k[:1, h // group].float(), v[:1, h // group].float()
        scores = qh @ kh.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if hi is not None:
            i = torch.arange(q.shape[2], device="cuda")[:, None]
            j = torch.arange(k.shape[2], device="cuda")[None]
            scores = scores.masked_fill(j > i + hi, float("-inf"))
        want = scores.softmax(-1) @ vh
        error = (out[:1, h].float() - want).abs()
        worst = max(worst, error.max().item())
        mean += error.mean().item() / len(heads)
    return worst, mean


def errors(tile_errors, sdpa_errors=None):
    """The CSV's error columns: tile's max and mean abs errors and SDPA's on
    the same problem."""
    out = {"tile_error": tile_errors[0], "tile_mean_error": tile_errors[1]}
    if sdpa_errors is not None:
        out.update(sdpa_error=sdpa_errors[0], sdpa_mean_error=sdpa_errors[1])
    return out


def check_errors(name, tile_errors, sdpa_errors) -> bool:
    """Prints the errors; False (and WRONG) where tile's max error passes
    twice SDPA's (and 2e-3)."""
    print(f"    abs error max / mean: tile {tile_errors[0]:.2e} / {tile_errors[1]:.2e}, "
          f"SDPA {sdpa_errors[0]:.2e} / {sdpa_errors[1]:.2e}")
    if not harness.within_sdpa_error(tile_errors[0], sdpa_errors[0]):
        print(f"{name}: WRONG tile error {tile_errors[0]:.2e} > 2 x SDPA's {sdpa_errors[0]:.2e}")
        return False
    return True


def report(name, times, base, extra=""):
    """Prints a row: each side's kernel and user µs, best SDPA / tile."""
    cells = " ".join(f"{s} {k:9.1f}/{u:9.1f}" for s, (k, u) in times.items())
    theirs = min(k for s, (k, u) in times.items() if s != base and not s.startswith("copy")
                 and not s.startswith("tile"))
    ratio = theirs / times[base][0]
    print(f"{name:34} | {cells} | best SDPA/tile {ratio:5.2f} {extra}", flush=True)
    return ratio


def bench_gqa(torch, args):
    from torch.nn.attention import SDPBackend
    rows = []
    shapes = [(32, 8), (64, 8)]
    lengths = [4096] if args.quick else [4096, 16384]
    print("== GQA prefill, B = 1, kernel/user µs")
    for heads, kv in shapes:
        for s in lengths:
            for causal in (False, True):
                g = torch.Generator(device="cuda").manual_seed(s)
                q = torch.randn(1, heads, s, D, device="cuda", dtype=torch.bfloat16, generator=g)
                k, v = (torch.randn(1, kv, s, D, device="cuda", dtype=torch.bfloat16, generator=g)
                        for _ in range(2))
                kr, vr = k.repeat_interleave(heads // kv, 1), v.repeat_interleave(heads // kv, 1)
                runs = {"tile": lambda: tile.attention(q, k, v, causal=causal, enable_gqa=True)}
                for label, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                       ("flash", SDPBackend.FLASH_ATTENTION)):
                    run = sdpa_on(torch, backend, q, k, v, is_causal=causal, enable_gqa=True)
                    try:
                        run()
                        runs[label] = run
                    except Exception:  # noqa: BLE001
                        runs[label + "(repeated)"] = sdpa_on(torch, backend, q, kr, vr,
                                                             is_causal=causal)
                runs = working(torch, runs)
                error = reference_errors(torch, runs["tile"](), q, k, v, 0 if causal else None)
                theirs = reference_errors(torch, torch.nn.functional.scaled_dot_product_attention(
                    q, kr, vr, is_causal=causal), q, k, v, 0 if causal else None)
                name = f"gqa {heads}/{kv} s{s}{' causal' if causal else ''}"
                if not check_errors(name, error, theirs):
                    continue
                flops = 4 * heads * s * s * D / (2 if causal else 1)
                repeats = max(5, min(50, int(2e13 / flops)))
                times = time_sides(torch, runs, args.rounds, repeats)
                ratio = report(name, times, "tile",
                               f"| tile {flops / times['tile'][0] / 1e6:4.0f} TFLOP/s")
                rows.append(dict(part="gqa", case=name, heads=heads, kv_heads=kv, sq=s, sk=s,
                                 causal=causal, ratio=ratio, **errors(error, theirs),
                                 **flat(times)))
    return rows


def flat(times):
    out = {}
    for side, (k, u) in times.items():
        out[f"{side}_us"] = k
        out[f"{side}_user_us"] = u
    return out


def bench_chunked(torch, args):
    from torch.nn.attention import SDPBackend
    rows = []
    print("== chunked prefill, 32/8 heads, kernel/user µs")
    for sq, sk in ([(512, 4096)] if args.quick else
                   [(512, 4096), (2048, 4096), (512, 32768), (2048, 32768)]):
        g = torch.Generator(device="cuda").manual_seed(sq + sk)
        q = torch.randn(1, 32, sq, D, device="cuda", dtype=torch.bfloat16, generator=g)
        k, v = (torch.randn(1, 8, sk, D, device="cuda", dtype=torch.bfloat16, generator=g)
                for _ in range(2))
        kr, vr = k.repeat_interleave(4, 1), v.repeat_interleave(4, 1)
        # The same keys in shuffled pages of CHUNK_PAGES tokens, and the
        # queries as attention_with_kvcache takes them (B, Sq, H, D).
        paged = {}
        for page in CHUNK_PAGES:
            pages = sk // page
            order = torch.randperm(pages, device="cuda", generator=g)
            kp, vp = (torch.empty(pages, page, 8, D, device="cuda", dtype=torch.bfloat16)
                      for _ in range(2))
            kp[order], vp[order] = (t.transpose(1, 2).reshape(pages, page, 8, D) for t in (k, v))
            paged[page] = (kp, vp, order.view(1, pages).to(torch.int32))
        kc, vc = (t.transpose(1, 2) for t in (k, v))
        lengths = torch.full((1,), sk, device="cuda", dtype=torch.int32)
        qc = q.transpose(1, 2)
        runs = {"tile_bottom_right": lambda: tile.attention(q, k, v, causal="bottom_right",
                                                            enable_gqa=True),
                **{f"tile_paged{page}_bottom_right": (
                    lambda kp=kp, vp=vp, table=table: tile.attention_with_kvcache(
                        qc, kp, vp, cache_seqlens=sk, block_table=table, causal=True))
                   for page, (kp, vp, table) in paged.items()},
                "tile_seqlens_bottom_right": lambda: tile.attention_with_kvcache(
                    qc, kc, vc, cache_seqlens=lengths, causal=True),
                "tile_no_mask": lambda: tile.attention(q, k, v, enable_gqa=True),
                "cudnn_no_mask": sdpa_on(torch, SDPBackend.CUDNN_ATTENTION, q, kr, vr),
                "flash_no_mask": sdpa_on(torch, SDPBackend.FLASH_ATTENTION, q, k, v,
                                         enable_gqa=True)}
        runs = working(torch, runs)
        # Errors on the problem SDPA runs (no mask); the bottom-right sides'
        # against the float32 reference alone.
        error = reference_errors(torch, runs["tile_no_mask"](), q, k, v)
        theirs = reference_errors(torch, torch.nn.functional.scaled_dot_product_attention(
            q, kr, vr), q, k, v)
        bottom_right = max(reference_errors(torch, runs["tile_bottom_right"](), q, k, v,
                                            sk - sq)[0],
                           *(reference_errors(torch, runs[side]().transpose(1, 2), q, k, v,
                                              sk - sq)[0]
                             for side in [f"tile_paged{page}_bottom_right" for page in paged]
                             + ["tile_seqlens_bottom_right"]))
        name = f"chunk q{sq} k{sk}"
        if (not check_errors(name, error, theirs)
                or not harness.within_sdpa_error(bottom_right, theirs[0])):
            print(f"{name}: bottom-right max error {bottom_right:.2e}")
            continue
        times = time_sides(torch, runs, args.rounds, 20)
        ratio = report(name, times, "tile_no_mask")
        over = {side: times[f"tile_{side}_bottom_right"][0] / times["tile_bottom_right"][0]
                for side in [f"paged{page}" for page in paged] + ["seqlens"]}
        print("    / contiguous (bottom-right causal): "
              + ", ".join(f"{side} {value:4.2f}" for side, value in over.items()))
        rows.append(dict(part="chunked", case=name, heads=32, kv_heads=8, sq=sq, sk=sk,
                         causal="bottom_right", ratio=ratio, **errors(error, theirs),
                         bottom_right_error=bottom_right, **{f"{side}_over_contiguous": value
                                               for side, value in over.items()},
                         **flat(times)))
    return rows


def bench_decode(torch, args):
    from torch.nn.attention import SDPBackend
    rows = []
    heads, kv = 32, 8
    print("== decode, 32/8 heads, kernel/user µs; bandwidth = bytes moved / kernel time")
    points = [(1, 4096), (64, 4096)] if args.quick else [
        (b, l) for l in (4096, 32768) for b in args.decode_batches]
    for batch, length in points:
        torch.cuda.empty_cache()
        g = torch.Generator(device="cuda").manual_seed(batch * length)
        # SDPA's (B, Hkv, L, D) k and v; tile reads the same memory as a
        # (B, L, Hkv, D) cache through .transpose(1, 2). Caches smaller than
        # the L2 come in several copies that the calls take in turn (a
        # decode step's cache is not in L2: the other layers evicted it).
        one = batch * kv * length * D * 2 * 2
        copies = max(1, min(16, math.ceil(L2_FLUSH / one)))
        ks = [torch.randn(batch, kv, length, D, device="cuda", dtype=torch.bfloat16,
                          generator=g) for _ in range(copies)]
        vs = [torch.randn(batch, kv, length, D, device="cuda", dtype=torch.bfloat16,
                          generator=g) for _ in range(copies)]
        k, v = ks[0], vs[0]
        q = torch.randn(batch, heads, 1, D, device="cuda", dtype=torch.bfloat16, generator=g)
        qc = q.transpose(1, 2)
        turn = rotation(copies)
        runs = {"tile": lambda: (lambda i: tile.attention_with_kvcache(
            qc, ks[i].transpose(1, 2), vs[i].transpose(1, 2)))(turn())}
        paged = {}
        for page in (16, 128):
            if copies > 1 or one * 2 > 0.7 * torch.cuda.mem_get_info()[0]:
                print(f"    paged {page}: {'skipped (memory)' if copies == 1 else 'one copy'}")
            if one * 2 > 0.7 * torch.cuda.mem_get_info()[0]:
                continue
            pages = length // page
            tables, kps, vps = [], [], []
            for i in range(copies):
                order = torch.randperm(batch * pages, device="cuda").int()
                tables.append(order.view(batch, pages))
                kp = torch.empty(batch * pages, page, kv, D, device="cuda", dtype=torch.bfloat16)
                vp = torch.empty_like(kp)
                kp[tables[-1].long().flatten()] = ks[i].transpose(1, 2).reshape(
                    batch * pages, page, kv, D)
                vp[tables[-1].long().flatten()] = vs[i].transpose(1, 2).reshape(
                    batch * pages, page, kv, D)
                kps.append(kp)
                vps.append(vp)
            paged[page] = (kps, vps, tables)
            turn_p = rotation(copies)
            runs[f"tile_paged{page}"] = (lambda kps=kps, vps=vps, tables=tables, t=turn_p:
                                         (lambda i: tile.attention_with_kvcache(
                                             qc, kps[i], vps[i], block_table=tables[i]))(t()))
        for label, backend in (("flash", SDPBackend.FLASH_ATTENTION),
                               ("cudnn", SDPBackend.CUDNN_ATTENTION),
                               ("efficient", SDPBackend.EFFICIENT_ATTENTION),
                               ("default", None)):
            runs[label] = rotating_sdpa(torch, backend, q, ks, vs)
        kv_bytes = k.numel() * 2 * 2
        srcs = [torch.empty(kv_bytes // 2, device="cuda", dtype=torch.bfloat16)
                for _ in range(copies)]
        dst = torch.empty_like(srcs[0])
        turn_c = rotation(copies)
        runs = working(torch, runs)
        for run in runs.values():  # working() took copy 0: the next call takes it again
            for _ in range(copies - 1):
                run()
        outs = {n: r() for n, r in runs.items() if n.startswith("tile")}
        # Every head (one query each).
        every = range(heads)
        error = reference_errors(torch, outs["tile"].transpose(1, 2), q, k, v, heads=every)
        paged_error = max((reference_errors(torch, o.transpose(1, 2), q, k, v, heads=every)[0]
                           for n, o in outs.items() if n != "tile"), default=0.0)
        theirs = reference_errors(torch, torch.nn.functional.scaled_dot_product_attention(
            q, k, v, enable_gqa=True), q, k, v, heads=every)
        name = f"decode b{batch} L{length}"
        if (not check_errors(name, error, theirs)
                or not harness.within_sdpa_error(paged_error, theirs[0])):
            print(f"{name}: paged max error {paged_error:.2e}")
            continue
        repeats = max(5, min(200, int(2e10 / kv_bytes)))
        times = time_sides(torch, runs, args.rounds, repeats)
        copy_us = harness.rotated_kernel_us([lambda: dst.copy_(srcs[turn_c()])], args.rounds,
                                            repeats, copies=True)[0]
        copy_bw = 2 * kv_bytes / copy_us / 1e3
        tile_bw = kv_bytes / times["tile"][0] / 1e3
        extra = (f"| copy {copy_us:8.1f} µs {copy_bw:6.0f} GB/s; tile {tile_bw:6.0f} GB/s = "
                 f"{tile_bw / copy_bw:4.2f} of the copy's; paged/contiguous "
                 + " ".join(f"{times[n][0] / times['tile'][0]:4.2f}" for n in times
                            if n.startswith("tile_paged")))
        ratio = report(name, times, "tile", extra + f" ({copies} copies in turn)")
        rows.append(dict(part="decode", case=name, heads=heads, kv_heads=kv, batch=batch,
                         sk=length, copies=copies, ratio=ratio, copy_us=copy_us, copy_gbs=copy_bw,
                         tile_gbs=tile_bw, of_copy=tile_bw / copy_bw, **errors(error, theirs),
                         paged_error=paged_error, **flat(times)))
        # Dropped (rebound, not deleted: the lambdas above name them).
        k = v = ks = vs = paged = srcs = dst = runs = outs = None
    return rows


def bench_varlen(torch, args):
    from torch.nn.attention import SDPBackend
    heads, kv, count = 32, 8, 16
    lengths = harness.mixed_lengths(torch, count)
    total, longest = sum(lengths), max(lengths)
    cu = harness.packed_offsets(torch, lengths)
    gd = torch.Generator(device="cuda").manual_seed(7)
    q = torch.randn(total, heads, D, device="cuda", dtype=torch.bfloat16, generator=gd)
    k, v = (torch.randn(total, kv, D, device="cuda", dtype=torch.bfloat16, generator=gd)
            for _ in range(2))

    def padded(t):
        out = torch.zeros(count, t.shape[1], longest, D, device="cuda", dtype=t.dtype)
        for i, n in enumerate(lengths):
            out[i, :, :n] = t[int(cu[i]):int(cu[i]) + n].transpose(0, 1)
        return out
    qp, kp, vp = padded(q), padded(k).repeat_interleave(heads // kv, 1), padded(v) \
        .repeat_interleave(heads // kv, 1)
    runs = working(torch, {
        "tile": lambda: tile.attention_varlen(q, k, v, cu, cu, longest, causal=True),
        "cudnn_padded": sdpa_on(torch, SDPBackend.CUDNN_ATTENTION, qp, kp, vp, is_causal=True),
        "flash_padded": sdpa_on(torch, SDPBackend.FLASH_ATTENTION, qp, kp, vp, is_causal=True)})
    # Errors of the first and last sequences: tile's packed rows and the
    # padded SDPA's rows of that sequence (its keys past the sequence are
    # after every row's diagonal).
    out = runs["tile"]()
    padded_out = next(runs[n] for n in ("cudnn_padded", "flash_padded") if n in runs)()
    error, theirs = (0.0, 0.0), (0.0, 0.0)
    for i in (0, count - 1):
        n = lengths[i]
        seq = slice(int(cu[i]), int(cu[i]) + n)
        qs, ks, vs = (t[seq].transpose(0, 1)[None] for t in (q, k, v))
        mine = reference_errors(torch, out[seq].transpose(0, 1)[None], qs, ks, vs, 0)
        sdpa = reference_errors(torch, padded_out[i:i + 1, :, :n], qs, ks, vs, 0)
        error = (max(error[0], mine[0]), error[1] + mine[1] / 2)
        theirs = (max(theirs[0], sdpa[0]), theirs[1] + sdpa[1] / 2)
    name = f"varlen {count} seqs {total} tokens"
    print(f"== varlen: lengths {lengths}")
    check_errors(name, error, theirs)
    times = time_sides(torch, runs, args.rounds, 10)
    ratio = report(name, times, "tile")
    return [dict(part="varlen", case=name, heads=heads, kv_heads=kv, sq=total, sk=longest,
                 causal=True, ratio=ratio, **errors(error, theirs), **flat(times))]


if __name__ == "__main__":
    main()
