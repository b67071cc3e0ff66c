"""Attention against a KV cache from PyTorch, as flash_attn_with_kvcache:

    out = tile.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=lens)
    out = tile.attention_with_kvcache(q, k_cache, v_cache, k=k_new, v=v_new,
                                      cache_seqlens=lens, block_table=table, causal=True)

q is (B, Sq, H, D); the cache is contiguous, (B, S_max, Hkv, D) per
sequence, or paged (vLLM / FlashInfer layout): (num_blocks, page, Hkv, D)
with a `block_table` (B, pages per sequence) of int32 block indices, page
16, 32, 64 or a multiple of 128 tokens. `cache_seqlens` (int32 (B,), or an
int for all) are the keys each sequence holds (default: all of S_max or
its pages; 0 when `k` and `v` are given: they start the sequences). With `k` and `v` (B, Sq_new, Hkv, D) the new keys and values
are first written into the cache at positions cache_seqlens[b] .. + Sq_new
(in place) and attention runs over cache_seqlens + Sq_new keys. `causal`
aligns the diagonal at the bottom right (query t of Sq sees keys
j <= seqlen - Sq + t), FlashAttention's convention for caches. H must be a
multiple of Hkv (GQA, MQA). float16/bfloat16, D 64 or 128, scale 1/sqrt(D)
by default, `softcap` as tile.attention's. Returns a contiguous
(B, Sq, H, D) `out`.

The kernels (tile.ops.decode_attention) split each sequence's keys over
CTAs so that the SMs are filled (`num_splits` 0: chosen from the shape,
the capacity and the SM count, each split taking an equal share of its
sequence's own blocks, so a cache sized past its sequences costs the
splits nothing; or, where the KV heads outnumber the SMs, equal ranges of
all the sequences' capacity blocks, one a CTA, which a cache sized past
its sequences leaves uneven; `num_splits` n > 0: n splits a sequence,
taken by the CTAs in turn). A chunk of queries whose 128-row tiles fill the SMs
(`prefers_decode` false: chunked prefill) runs tile.attention's prefill
kernel instead (bottom-right causal): against a contiguous cache with one
length for all (at least Sq keys), tile.attention itself; against a paged
cache or with per-sequence lengths, its KV-cache variant (the block table
in its producer, each sequence's length from seqlens; no softcap: such
chunks stay on the split-KV kernels).

The kernels read whole 128-key blocks; the slots past a sequence's length
get zero weight and their V rows are zeroed in shared memory before P V,
so they may hold anything (torch.empty's NaNs included).

Nothing is read past a block table's width or a cache's capacity:
seqlens are clamped to the capacity, no byte outside the cache is read
(a block index past it reads zeros: TMA's boxes, or cp.async of no bytes
for gathered pages), appends past the capacity or into blocks outside the
cache are not written. Checking seqlens and block
indices against the cache needs their values on the host (a
synchronization, which a decode loop or a CUDA graph cannot afford):
`validate=True` does, and raises MatmulError instead.
"""
import math
from dataclasses import dataclass
from typing import Optional

from ..core import devices, streams
from ..core.caches import LruCache, PreparedCalls
from ..core.elements import BY_TORCH, dtype_name
from ..core.errors import MatmulError
from ..core.operands import operand_of, require_cuda_tensors, signature
from ..core.routing import no_backward
from .attention import (ELEMENTS, HEAD_DIMS, LENGTHS_ONLY, attention, attention_kernel,
                        cache_box_rows, check_heads, check_scale, check_tma_operands,
                        new_output, no_cache, trailing_arguments,
                        paired_units, placeholders, softcap_factors, tma_layout_problem,
                        window_edges)
from .cache_append import CACHE_APPEND, CacheAppendConfig, append_grid
from .decode_attention import KEY_BLOCK, PAGE_ROWS, DecodePlan, plan_decode, prefers_decode

WHAT = "tile.attention_with_kvcache"


def check_page(page: int) -> None:
    """Page sizes the kernels take: below a 128-key block one of PAGE_ROWS
    (several row-range copies per block), else multiples of 128."""
    if page < KEY_BLOCK and page not in PAGE_ROWS:
        raise MatmulError(f"{WHAT}: page size {page}; the kernels take 16, 32, 64 or a "
                          "multiple of 128 tokens")
    if page >= KEY_BLOCK and page % KEY_BLOCK:
        raise MatmulError(f"{WHAT}: page size {page}; pages of 128 tokens or more must be "
                          "multiples of 128")


#: Plans by the call's shapes, strides, dtypes, alignments, device and options.
PLANS = LruCache(256)
#: The launches prepared for calls on the decode kernels (the append's and
#: DecodePlan.prepare's, in one step function) by PLANS' key and stream.
READY = PreparedCalls()


@dataclass(frozen=True)
class CachePrefill:
    """A chunk of prefill against a paged cache or with per-sequence lengths
    on the prefill kernel's KV-cache variant: the kernel, its box rows (a
    contiguous cache's K and V go through the dense maps) and the launch's
    scalars around Sk (shape: B, H, group, Sq; mask: the window's edges,
    the scale, no softcap, the diagonal, paired tiles, not packed) and
    grid."""
    kernel: object
    box_rows: int
    shape: tuple
    mask: tuple
    grid: tuple


@dataclass(frozen=True)
class CachePlan:
    """A checked call: the decode plan and what the launch needs besides."""
    decode: DecodePlan
    out_shape: tuple
    paged: bool
    page: int
    capacity: int
    blocks: int
    #: The append kernel and its grid (None without k and v).
    append: object = None
    append_grid: tuple = ()
    #: A contiguous cache whose queries fill the prefill kernel's tiles
    #: (not prefers_decode): with one length for all, tile.attention runs it.
    prefill: bool = False
    #: A paged cache, or per-sequence lengths, and queries that fill the
    #: prefill kernel's tiles.
    cache_prefill: Optional[CachePrefill] = None


def attention_with_kvcache(q, k_cache, v_cache, k=None, v=None, cache_seqlens=None,
                           block_table=None, causal: bool = False,
                           scale: Optional[float] = None, *, softcap: float = 0.0,
                           num_splits: int = 0, out=None, stream=None,
                           validate: bool = False):
    """softmax(q K^T scale) V over each sequence's cached keys (and the new
    `k`, `v`, appended in place first). See the module's documentation.
    Forward only (tile.library): where autograd would record the call, an
    error."""
    import torch
    no_backward(torch, "tile.attention_with_kvcache", q, k, v)
    lengths = cache_seqlens
    lengths_is_tensor = isinstance(lengths, torch.Tensor)
    try:
        key = (signature(q), signature(k_cache), signature(v_cache), signature(k), signature(v),
               signature(block_table),
               signature(lengths) if lengths_is_tensor else type(lengths),
               signature(out), causal, scale, float(softcap), int(num_splits))
    except (AttributeError, TypeError, ValueError):  # plan_call says what is wrong
        key = None
    # The steady state of a decode step: the launches prepared for a call
    # like this one on this stream (the append's, if any, and the decode's).
    ready = None if validate else READY.find(key, stream)
    if ready is not None:
        step, index, out_shape = ready
        out = new_output(torch, out_shape, q, stream, index) if out is None else out
        step(q, k_cache, v_cache, k, v, lengths, block_table, out)
        return out
    plan = PLANS.get(key, lambda: plan_call(torch, q, k_cache, v_cache, k, v, lengths,
                                            block_table, causal, scale, softcap, num_splits,
                                            out))
    index = q.get_device()
    appended = 0 if k is None else k.shape[1]
    length = one_length(lengths, lengths_is_tensor, k, plan.capacity)
    # Calls of this plan always run the decode kernels (whatever the
    # lengths): their launches are prepared and kept for the next such call.
    steady = not plan.prefill and plan.cache_prefill is None and not validate
    if out is None:
        out = new_output(torch, plan.out_shape, q, stream, index)
    # The appends, the lengths after them and the workspace on the launch's
    # stream: ordered before the kernels, freed after them.
    launch_stream = None if stream is None else streams.torch_stream(torch, stream, index)
    with streams.running_on(torch, launch_stream):
        per_sequence = lengths if lengths_is_tensor else None
        if validate:
            starts = per_sequence if lengths_is_tensor else torch.full(
                (q.shape[0],), length, device=q.device, dtype=torch.int32)
            validate_cache(torch, starts, block_table, plan.blocks, plan.capacity, appended)
        pads = lambda dtype: placeholders(torch, q.device, dtype)
        table = block_table if plan.paged else pads(torch.int32)[0]
        append = None
        if appended:
            # seqlens stay the caller's: the kernels add the new keys.
            pad_lengths = pads(torch.int32)[1]

            def append_lengths(lengths, length: int) -> tuple:
                """The append's seqlens and length arguments."""
                if lengths_is_tensor:
                    return lengths, 0
                return pad_lengths, max(-2**62, min(length, 2**62))
            seqlens, start = append_lengths(per_sequence, length)
            arguments = (k, v, k_cache, v_cache, table, seqlens, appended, start,
                         lengths_is_tensor, plan.page, plan.paged)
            if steady:
                launch = plan.append.prepare(index, arguments, plan.append_grid, stream,
                                             varying=(0, 1, 2, 3, 4, 5, 7))
                launch()

                def append(k, v, k_cache, v_cache, table, lengths, length):
                    launch(k, v, k_cache, v_cache, table, *append_lengths(lengths, length))
            else:
                plan.append.launch_on(index, arguments, plan.append_grid, stream)
            length += appended
        if out.numel() == 0:
            return out
        keys = min(length, plan.capacity)
        if plan.prefill and not lengths_is_tensor and keys >= q.shape[1]:
            # A chunk of queries against a contiguous cache: the prefill
            # kernel, its tiles over the heads and query rows.
            attention(q.transpose(1, 2), k_cache[:q.shape[0], :keys].transpose(1, 2),
                      v_cache[:q.shape[0], :keys].transpose(1, 2),
                      causal="bottom_right" if causal else False, scale=scale,
                      enable_gqa=True, softcap=softcap, out=out.transpose(1, 2), stream=stream)
            return out
        prefill = plan.cache_prefill
        if prefill is not None:
            # Q, O as (B, H, Sq, D); K and V as (B, Hkv, S, D) through the
            # dense tensor maps (a contiguous cache; Q's stand for them with
            # pages) or as page_view's row groups in boxes of box_rows rows
            # through the table (the box maps on a placeholder without).
            pad, pad_lengths = pads(q.dtype)[0], pads(torch.int32)[1]
            qh = q.transpose(1, 2)
            kh, vh = k_cache.permute(0, 2, 1, 3), v_cache.permute(0, 2, 1, 3)
            boxes = no_cache(torch, q.device, q.dtype)[0]
            dense = (qh, qh) if plan.paged else (kh, vh)
            paged = ((page_view(torch, k_cache), page_view(torch, v_cache)) if plan.paged
                     else (boxes, boxes))
            block_heads = block_heads_of(k_cache) if plan.paged else 1
            sk = plan.capacity if lengths_is_tensor else keys
            prefill.kernel.launch_on(
                index, (qh,) + dense + (out.transpose(1, 2), pad, pad_lengths, pad_lengths)
                + prefill.shape + (sk,) + prefill.mask + paged
                + (table, lengths if lengths_is_tensor else pad_lengths, plan.page, block_heads,
                   appended if lengths_is_tensor else 0, plan.paged, lengths_is_tensor)
                + trailing_arguments(torch, q.device),
                prefill.grid, stream)
            return out
        if not steady:
            plan.decode.launch(torch, index, q, k_cache.permute(0, 2, 1, 3),
                               v_cache.permute(0, 2, 1, 3), table, per_sequence, length, out,
                               pads, stream, added=appended)
            return out
        # Prepared for this call shape and stream; the next such call packs
        # its tensors and lengths only (the cache by address: its view).
        run = plan.decode.prepare(torch, index, q, k_cache.permute(0, 2, 1, 3),
                                  v_cache.permute(0, 2, 1, 3), table, per_sequence, out, pads,
                                  stream)
        run(q, k_cache, v_cache, table, per_sequence, out, length, appended)

        def step(q, k_cache, v_cache, k, v, lengths, block_table, out):
            length = one_length(lengths, lengths_is_tensor, k, plan.capacity)
            pages = block_table if plan.paged else table
            if append is not None:
                append(k, v, k_cache, v_cache, pages, lengths, length)
            run(q, k_cache, v_cache, pages, lengths, out, length + appended, appended)
        READY.keep(key, index, plan.out_shape, stream, step)
    return out


def block_heads_of(cache) -> Optional[int]:
    """H_b of a paged cache (blocks, page, Hkv, D): its block stride in head
    strides (page_view), None where that is not a whole number. The prefill
    kernel's first TMA coordinate is block x H_b + head, a signed 32-bit
    integer."""
    block_stride, head_stride = cache.stride(0), cache.stride(2)
    if head_stride <= 0 or block_stride % head_stride:
        return None
    return block_stride // head_stride


def page_view(torch, cache):
    """A paged cache (blocks, page, Hkv, D) as the prefill kernel's page
    maps take it: ((blocks - 1) H_b + Hkv, page / 8, D / 64, 8, 64) with
    strides (head, 8 rows, 64, row, 1) (H_b = block_heads_of), whose entry
    block x H_b + head of the first dimension is that block's rows of that
    head in 8-row groups of every 64-column chunk, so that one box of a page
    fills a ring's row groups."""
    blocks, page, kv_heads, d = cache.shape
    row_stride, head_stride = cache.stride(1), cache.stride(2)
    return torch.as_strided(cache, ((blocks - 1) * block_heads_of(cache) + kv_heads, page // 8,
                                    d // 64, 8, 64), (head_stride, 8 * row_stride, 64, row_stride, 1),
                            cache.storage_offset())


def one_length(lengths, lengths_is_tensor: bool, k, capacity: int) -> int:
    """The keys of every sequence before an append, unless a tensor gives
    each its own (0 then): `lengths`, or the capacity for None (0 before an
    append)."""
    if lengths_is_tensor:
        return 0
    return capacity if lengths is None and k is None else int(lengths or 0)


def plan_call(torch, q, k_cache, v_cache, k, v, lengths, block_table, causal, scale, softcap,
              num_splits, out) -> CachePlan:
    """Checks a call's operands (MatmulError for what the kernels cannot
    take) and plans it."""
    index = require_cuda_tensors(torch, WHAT, q=q, k_cache=k_cache, v_cache=v_cache, k=k, v=v,
                                 cache_seqlens=lengths
                                 if isinstance(lengths, torch.Tensor) else None,
                                 block_table=block_table, out=out)
    device = devices.device(index)
    devices.require_hopper(WHAT, device)
    if q.dtype != k_cache.dtype or q.dtype != v_cache.dtype or dtype_name(q.dtype) not in ELEMENTS:
        raise MatmulError(f"{WHAT} takes float16 or bfloat16 q, k_cache and v_cache (all the "
                          f"same), got {q.dtype}, {k_cache.dtype} and {v_cache.dtype}")
    if q.dim() != 4 or k_cache.dim() != 4 or tuple(k_cache.shape) != tuple(v_cache.shape):
        raise MatmulError(f"{WHAT}: q must be (B, Sq, H, D) and k_cache, v_cache the same "
                          f"(blocks, page, Hkv, D), got q {tuple(q.shape)}, k_cache "
                          f"{tuple(k_cache.shape)} and v_cache {tuple(v_cache.shape)}")
    batch, sq, heads, d = q.shape
    blocks, page, kv_heads, d_cache = k_cache.shape
    if d not in HEAD_DIMS or d_cache != d:
        raise MatmulError(f"{WHAT}: head dim D = {d} (cache {d_cache}); the kernels take "
                          "D = 64 or 128, the same for q and the cache")
    check_heads(WHAT, heads, kv_heads, True)
    if causal not in (False, True, "bottom_right"):
        raise MatmulError(f"{WHAT}: causal must be False, True or 'bottom_right' (a cache's "
                          f"queries end its keys), got {causal!r}")
    scale = check_scale(scale, d)
    cap = softcap_factors(softcap, scale)
    paged = block_table is not None
    if paged:
        check_page(page)
        if (block_table.dtype != torch.int32 or block_table.dim() != 2
                or block_table.shape[0] != batch or block_table.shape[1] == 0
                or block_table.stride(1) != 1):
            raise MatmulError(f"{WHAT}: block_table must be an int32 (B = {batch}, pages per "
                              f"sequence) tensor with contiguous rows, got {block_table.dtype} "
                              f"of shape {tuple(block_table.shape)}")
        capacity = block_table.shape[1] * page
    else:
        if blocks < batch:
            raise MatmulError(f"{WHAT}: a contiguous k_cache holds {blocks} sequences, q has "
                              f"{batch}")
        capacity = page
    if isinstance(lengths, torch.Tensor):
        if lengths.dtype != torch.int32 or tuple(lengths.shape) != (batch,):
            raise MatmulError(f"{WHAT}: cache_seqlens must be an int32 tensor of shape "
                              f"({batch},) or an int, got {lengths.dtype} of shape "
                              f"{tuple(lengths.shape)}")
    elif lengths is not None and not isinstance(lengths, int):
        raise MatmulError(f"{WHAT}: cache_seqlens must be an int32 tensor of shape ({batch},) "
                          f"or an int, got {type(lengths).__name__}")
    # The caches as (pages, Hkv, page rows, D) for the kernels' tensor maps.
    check_tma_operands(WHAT, (("k_cache", operand_of(k_cache.permute(0, 2, 1, 3))),
                              ("v_cache", operand_of(v_cache.permute(0, 2, 1, 3)))))
    if tma_layout_problem("q", operand_of(q)) is not None:
        raise MatmulError(f"{WHAT}: q needs a unit innermost stride, the others multiples of 8 "
                          f"elements and a 16-byte aligned address (the kernel loads 16 bytes "
                          f"at a time), got strides {tuple(q.stride())}")
    if (k is None) != (v is None):
        raise MatmulError(f"{WHAT}: pass both k and v to append, or neither")
    if k is not None:
        new = (batch, k.shape[1] if k.dim() == 4 else -1, kv_heads, d)
        if (k.dim() != 4 or tuple(k.shape) != new or tuple(v.shape) != new
                or k.dtype != q.dtype or v.dtype != q.dtype):
            raise MatmulError(f"{WHAT}: k and v must be {q.dtype} (B, Sq_new, Hkv, D) = "
                              f"{new}, got {tuple(k.shape)} and {tuple(v.shape)}")
        for name, rows in (("k", k), ("v", v)):
            if tma_layout_problem(name, operand_of(rows)) is not None:
                raise MatmulError(f"{WHAT}: {name} needs a unit innermost stride, the others "
                                  f"multiples of 8 elements and a 16-byte aligned address (the "
                                  f"append moves 16 bytes at a time), got strides "
                                  f"{tuple(rows.stride())}")
    shape = (batch, sq, heads, d)
    if out is not None and (tuple(out.shape) != shape or out.dtype != q.dtype
                            or out.stride(3) != 1 or any(s % 4 for s in out.stride()[:3])
                            or out.data_ptr() % 8):
        raise MatmulError(f"{WHAT}: out must be a {q.dtype} (B, Sq, H, D) = {shape} tensor "
                          "with a unit innermost stride (the others multiples of 4)")
    decode = plan_decode(BY_TORCH[dtype_name(q.dtype)].name, device.sms, batch, sq, heads,
                         kv_heads, d, page=page, capacity=capacity, paged=paged,
                         scale_log2=scale * math.log2(math.e), causal=bool(causal),
                         splits=int(num_splits), softcap=cap,
                         pool_elements=max(span_elements(k_cache), span_elements(v_cache)))
    append, grid = None, ()
    if k is not None and k.shape[1]:
        append = CACHE_APPEND.kernel(CacheAppendConfig(BY_TORCH[dtype_name(q.dtype)].name, d),
                                   "cache_append")
        grid = append_grid(batch, k.shape[1], kv_heads, d)
    # The prefill kernel's output goes by TMA (16-byte strides and address):
    # an `out` the decode kernels take but it does not stays with them, as
    # does a forced split count.
    tma_out = out is None or tma_layout_problem("out", operand_of(out)) is None
    chunk = (not num_splits and tma_out
             and not prefers_decode(batch, sq, heads, kv_heads, capacity, device.sms))
    cache_prefill = None
    # The prefill kernel takes a paged cache through page_view, one H_b for
    # both caches.
    block_heads = block_heads_of(k_cache)
    viewed = not paged or (block_heads is not None and block_heads == block_heads_of(v_cache)
                           and (blocks - 1) * block_heads + kv_heads < 2 ** 31)
    if chunk and viewed and (paged or isinstance(lengths, torch.Tensor)) and not cap[0]:
        box_rows = cache_box_rows(page) if paged else LENGTHS_ONLY
        kind = "bottom_right" if causal else None
        left, right = window_edges(kind, (-1, -1))
        cache_prefill = CachePrefill(
            attention_kernel(BY_TORCH[dtype_name(q.dtype)].name, d, False, box_rows), box_rows,
            (batch, heads, heads // kv_heads, sq),
            (left, right, scale * math.log2(math.e), 0.0, 1.0, False, kind is not None,
             paired_units(kind, batch * heads, sq, device.sms), False),
            (device.sms, 1, 1))
    return CachePlan(decode, shape, paged, page, capacity, blocks, append, grid,
                     chunk and not paged, cache_prefill)


def span_elements(tensor) -> int:
    """Elements from a tensor's first to its last, by its strides."""
    return 1 + sum((size - 1) * abs(stride) for size, stride in zip(tensor.shape, tensor.stride())
                   if size > 0)


def validate_cache(torch, lengths, block_table, blocks: int, capacity: int, appended: int) -> None:
    """MatmulError for seqlens past the capacity or block indices past the
    cache (synchronizes with the GPU)."""
    low, high = (int(x) for x in torch.aminmax(lengths))
    if low < 0 or high + appended > capacity:
        raise MatmulError(f"{WHAT}: cache_seqlens in [{low}, {high}] (+ {appended} new) past "
                          f"the cache's capacity of {capacity} keys per sequence")
    if block_table is not None:
        pages = torch.div(lengths + appended + (capacity // block_table.shape[1]) - 1,
                          capacity // block_table.shape[1], rounding_mode="floor")
        used = torch.arange(block_table.shape[1], device=block_table.device)[None] < pages[:, None]
        entries = block_table[used]
        if entries.numel():
            low, high = (int(x) for x in torch.aminmax(entries))
            if low < 0 or high >= blocks:
                raise MatmulError(f"{WHAT}: block_table entries in [{low}, {high}] past the "
                                  f"cache's {blocks} blocks")
