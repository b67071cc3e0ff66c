#!/usr/bin/env python3
"""Decode attention against caches larger than their sequences: a serving
engine sizes its caches (or block tables) for the longest sequence it
admits and passes `cache_seqlens`, the keys each sequence holds.

    PYTHONPATH=python python3 bench/decode_capacity.py [--batches 1 4 16 64]
        [--lengths 4096 32768] [--capacities 1 4 32] [--pages 0 64]
        [--in-order] [--rounds 3] [--csv FILE]

Per point (B sequences of L keys, 32/8 heads, D = 128, bf16, one query):
tile.attention_with_kvcache on a contiguous (B, C, Hkv, D) cache (page 0)
or pages (a block table of C / page columns; shuffled over the pool, or
with --in-order each sequence's pages consecutive) of capacity C = L x
each of --capacities (where memory allows), cache_seqlens = L. Kernel time
from CUPTI: the median over --rounds of the summed time of tile's kernels
in back-to-back calls, each call after a 256 MB write that evicts the L2
(its kernel is not counted), so the keys come from memory as in a model's
decode step. Each side is first checked against a float32 reference of
its L keys (max abs error at most twice SDPA's on the same problem, else
WRONG and not timed). Printed: µs per capacity and the ratio to the
capacity-L time of the same layout (NaN where capacity L is not among
--capacities). Kernels wait for the grid before them as tile launches them
(programmatic dependent launch unless TILE_DEPENDENT_LAUNCH=0).
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402

import tile  # noqa: E402

HEADS, KV_HEADS, D = 32, 8, 128
#: Bytes written between calls: past the L2 (50 MB on an H100, 60 MB on an
#: H200).
L2_FLUSH = 256 << 20


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 4, 16, 64])
    parser.add_argument("--lengths", nargs="+", type=int, default=[4096, 32768])
    parser.add_argument("--capacities", nargs="+", type=int, default=[1, 4, 32],
                        help="capacities as multiples of the length")
    parser.add_argument("--pages", nargs="+", type=int, default=[0, 64],
                        help="page sizes (0: a contiguous cache)")
    parser.add_argument("--in-order", action="store_true",
                        help="pages in the pool in sequence order (else shuffled)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--csv")
    args = parser.parse_args()
    for page in args.pages:
        if page and any(length % page for length in args.lengths):
            parser.error(f"every length must be a multiple of the page ({page} tokens)")
    torch = harness.torch_or_exit("decode_capacity.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    flush = torch.empty(L2_FLUSH // 4, device="cuda", dtype=torch.float32)
    rows = []
    for length in args.lengths:
        for batch in args.batches:
            for page in args.pages:
                base = float("nan")  # capacity L's time (NaN: not run)
                for times in args.capacities:
                    row = point(torch, flush, batch, length, length * times, page, args.rounds,
                                args.in_order)
                    if row is None:
                        continue
                    base = row["tile_us"] if times == 1 else base
                    row.update(card=card, of_capacity_l=row["tile_us"] / base)
                    rows.append(row)
                    layout = f"page {page}" if page else "contiguous"
                    print(f"b{batch:<3d} L{length:<6d} {layout:>10s} capacity "
                          f"{row['capacity']:>7d}: {row['tile_us']:8.1f} µs "
                          f"({row['of_capacity_l']:4.2f} of capacity L), max error "
                          f"{row['max_error']:.1e} (SDPA {row['sdpa_error']:.1e})", flush=True)
    if args.csv:
        harness.write_csv(rows, args.csv)


def point(torch, flush, batch, length, capacity, page, rounds, in_order=False):
    """The row of one (B, L, C, page), or None (memory, or WRONG)."""
    cache_bytes = 2 * batch * capacity * KV_HEADS * D * 2
    if cache_bytes > 0.6 * torch.cuda.mem_get_info()[0]:
        print(f"b{batch} L{length} capacity {capacity}: skipped (memory)")
        return None
    torch.cuda.empty_cache()
    g = torch.Generator(device="cuda").manual_seed(batch + length)
    q = torch.randn(batch, 1, HEADS, D, device="cuda", dtype=torch.bfloat16, generator=g)
    # The sequences' keys, then the cache (its slots past them NaN: a
    # kernel that read them would show).
    k = torch.randn(batch, length, KV_HEADS, D, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(batch, length, KV_HEADS, D, device="cuda", dtype=torch.bfloat16, generator=g)
    lengths = torch.full((batch,), length, device="cuda", dtype=torch.int32)
    table = None
    if page:
        pages = capacity // page
        order = (torch.arange(batch * pages, device="cuda", dtype=torch.int32) if in_order
                 else torch.randperm(batch * pages, device="cuda", generator=g).int())
        table = order.view(batch, pages)
        k_cache = torch.full((batch * pages, page, KV_HEADS, D), float("nan"), device="cuda",
                             dtype=torch.bfloat16)
        v_cache = torch.full_like(k_cache, float("nan"))
        used = table[:, :length // page].long().flatten()
        k_cache[used] = k.reshape(-1, page, KV_HEADS, D)
        v_cache[used] = v.reshape(-1, page, KV_HEADS, D)
    else:
        k_cache = torch.full((batch, capacity, KV_HEADS, D), float("nan"), device="cuda",
                             dtype=torch.bfloat16)
        v_cache = torch.full_like(k_cache, float("nan"))
        k_cache[:, :length] = k
        v_cache[:, :length] = v

    def call():
        return tile.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=lengths,
                                           block_table=table)

    out = call().transpose(1, 2).float()
    qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
    want = torch.nn.functional.scaled_dot_product_attention(qt.float(), kt.float(), vt.float(),
                                                            enable_gqa=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)
    error = (out - want).abs().max().item()
    sdpa_error = (theirs.float() - want).abs().max().item()
    if not harness.within_sdpa_error(error, sdpa_error):
        print(f"b{batch} L{length} capacity {capacity} page {page}: WRONG, max error "
              f"{error:.2e} (SDPA {sdpa_error:.2e})")
        return None

    def flushed():
        flush.zero_()
        call()

    repeats = max(5, min(100, int(4e9 / (2 * batch * length * KV_HEADS * D * 2))))
    samples = []
    for _ in range(rounds):
        times = harness.kernel_breakdown(flushed, repeats)
        samples.append(sum(us for name, us in times.items() if "decode_attention" in name))
    return dict(batch=batch, length=length, capacity=capacity, page=page,
                pages="in order" if in_order and page else "shuffled" if page else "",
                tile_us=statistics.median(samples), max_error=error, sdpa_error=sdpa_error)


if __name__ == "__main__":
    main()
