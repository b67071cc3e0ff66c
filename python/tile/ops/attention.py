"""Fused attention from PyTorch on kernels/attention_sm90.mlir: one
persistent launch for all batches and heads.

    o = tile.attention(q, k, v)                      # softmax(q k^T / sqrt(D)) v
    o = tile.attention(q, k, v, causal=True)         # query i sees keys j <= i
    o = tile.attention(q, k, v, enable_gqa=True)     # 32 query heads, 8 KV heads
    o = tile.attention(q, k, v, causal="bottom_right")  # queries ending a KV cache
    o = tile.attention(q, k, v, causal=True, window_size=(4096, 0))  # sliding window
    o = tile.attention(x.transpose(1, 2), ...)       # a (B, S, H, D) x, read in place
    o = tile.attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q)

What torch.nn.functional.scaled_dot_product_attention(q, k, v,
is_causal=causal, scale=scale, enable_gqa=enable_gqa) computes (no mask
tensor, no dropout): q (B, H, Sq, D), k and v (B, Hkv, Sk, D); out a
(B, H, Sq, D) of their type, contiguous unless given (`out=` takes any
strides TMA can store to, e.g. a (B, Sq, H, D) tensor's .transpose(1, 2)
for the next projection). float16 or bfloat16 (all three the
same), f32 scores, softmax and accumulation; `scale` (positive, finite)
defaults to 1 / sqrt(D), D is 64 or 128. Query head h reads KV head
h // (H / Hkv): Hkv = H unless `enable_gqa` (GQA, MQA with Hkv = 1), as SDPA.

Causal masks name their diagonal: `causal=True` or "top_left" is SDPA's
is_causal (query i sees keys j <= i, whatever Sq and Sk: with Sq > Sk the
rows from Sk on see every key); "bottom_right" is FlashAttention's and
FlashInfer's convention for queries that end a KV cache (query i sees keys
j <= i + Sk - Sq; it needs Sq <= Sk). `window_size=(left, right)` (as
flash_attn's; -1 is unbounded) keeps keys i + d - left <= j <= i + d + right
of the causal mask's diagonal d (0 without causal), right = 0 with causal:
Mistral's sliding window is `causal=True, window_size=(W - 1, 0)`. A row
that sees no key comes out 0. `softcap` c > 0 (Gemma 2) caps the scaled
scores at c tanh(scale q k / c) before the softmax (one more exp2 and a
division per score, in a kernel variant of its own).

Any sequence lengths (TMA clips a head's last tiles); an empty q gives an
empty out, Sk = 0 is an error. The operands need not be contiguous: the
kernel's 4-D tensor maps take their strides, so a (B, S, H, D) tensor's
.transpose(1, 2) is read as it is. TMA needs a unit innermost stride, the
others multiples of 8 elements (16 bytes, T-TMA-9), and 16-byte aligned
addresses (T-TMA-10). One CTA per SM takes the (batch, head, query tile)
work of the whole call (query tiles in pairs of equal causal cost where
there are enough of them), on the current stream (or `stream`), without
waiting; the GPU must be an sm_90 (H100, H200).

FP8 (FlashAttention-3's FP8 forward): float8_e4m3fn q, k and v run the
kernel's FP8 variant (D = 128), softmax(scale (q_descale q) (k_descale
k)^T) (v_descale v) into a bfloat16 out, the descale factors float32
tensors of shape (B, Hkv) (flash_attn's), any shape that broadcasts to it
(a 0-d per-tensor scale), or None (1); the same masks, windows, softcap and
GQA. Both products are e4m3 wgmmas (m64n128k32): S = Q K^T, and P V with P
converted to e4m3 in registers (P = exp2(c s - c m + 8): in [0, 256], so
small probabilities keep their bits; l carries the same factor). wgmma's
8-bit operands are K-major, so V enters as V^T: each call first runs
tile.ops.fp8_v_layout (one generated kernel moving V's bytes; a prefill's
V is a small part of its work, a KV cache's would be moved every step:
caches stay on the 16-bit kernels). Forward only (an error where autograd
records the call); under torch.compile it is the operator
tile::attention_fp8.

    q8, k8, v8 = (x.to(torch.float8_e4m3fn) for x in (q / qs, k / ks, v / vs))
    o = tile.attention(q8, k8, v8, causal=True, q_descale=qs, k_descale=ks,
                       v_descale=vs)            # bf16 (B, H, Sq, D)

`attention_varlen` takes packed sequences as flash_attn_varlen_func: q
(total_q, H, D), k and v (total_k, Hkv, D), sequence b in rows
cu_seqlens_q[b] .. cu_seqlens_q[b + 1] (int32 on the GPU, B + 1 entries,
non-decreasing: not read on the host) and likewise for k; `max_seqlen_q`
bounds every sequence's queries (the backward's grid and rows take it;
the forward does not). One launch for the batch: a unit per 128-query
tile of a sequence (a skewed batch costs no more than its tiles), each
finding its sequence by a binary search of cu_seqlens_q; sequences of 0
queries cost nothing, sequences of 0 keys give rows of 0. Under autograd
its backward is tile.ops.attention_backward's kernels on the packed
sequences (no window or softcap there).
"""
import math
from typing import Dict, Optional, Tuple, Union

from ..core import devices, streams
from ..core.streams import new_output
from ..core.caches import LruCache, PreparedCalls, placeholders
from ..core.elements import BY_TORCH, FLOAT16_TYPES, dtype_name
from ..core.errors import MatmulError
from ..compiler import redefine_aliases
from ..family import KernelFamily
from ..toolchain import read_kernel
from ..core.operands import (TMA_ALIGNMENT, Operand, cdiv, operand_of, signature,
                             require_cuda_tensors)
from .decode_attention import plan_decode, prefers_decode
from .attention_backward_rows import packed_pitch
from .fp8_v_layout import reads_in_place, v_layout_buffer, v_layout_launch
from ..core.routing import no_backward, operators, recorded, routed

#: The softcap switch of the kernels' source; a variant without softcap
#: folds it to false, so its consumers keep their registers.
SOFTCAP_SWITCH = "%use_cap = arith.andi %softcap, %true : i1"
#: The KV-cache switches: the block table (folded to false but in a paged
#: cache's variants, to true in those: their ring takes no dense boxes) and
#: per-sequence lengths (folded in tile.attention's).
PAGES_SWITCH = "%use_pages = arith.andi %paged, %true : i1"
LENGTHS_SWITCH = "%use_lengths = arith.andi %per_sequence, %true : i1"
#: The switch of the rows' log-sum-exps the backward needs (folded to false
#: but in the variants that save them: tile.ops.attention_backward's).
LSE_SWITCH = "%keep_lse = arith.andi %save_lse, %true : i1"
#: The switch of the FP8 variant's descale factors (folded to false in the
#: 16-bit variants, to true in FP8's).
DESCALE_SWITCH = "%use_descale = arith.andi %descaled, %true : i1"
#: The element of the FP8 variant's Q, K and V (and of `fp8_v_layout`'s V^T).
FP8_ELEMENT = "f8E4M3FN"
#: The switch of the window's left edge (as written, the kernel compares it
#: where left is below UNBOUNDED), folded to false in the variants for calls
#: without one (their masked blocks then compare each score with the right
#: edge and the keys' end only: 64 adds, compares and ands a thread fewer a
#: masked block) and to true in the others (a branch on it spills 56 bytes
#: in the D = 128 consumers, ptxas).
LEFT_SWITCH = "%has_left = arith.cmpi ult, %left, %c_unbounded : index"
#: Packed sequences a call takes at most, 2^PACKED_HALVINGS: each of the
#: prefill kernel's packed units finds its sequence in that many halvings
#: of cu_seqlens_q (its #halvings; an unrolled loop, and more than 16 spill
#: registers at D = 128).
PACKED_HALVINGS = 16
#: The kernels' alias of it (attention_sm90.mlir, attention_bwd_sm90.mlir).
HALVINGS_ALIAS = {"#halvings": f"{PACKED_HALVINGS} : index"}
#: The switch of the packed-sequence path (this kernel's units of the
#: packed row tiles; the backward kernels' offsets and lengths), folded to
#: false in the dense variants and to true in tile.attention_varlen's.
PACKED_SWITCH = "%packed = arith.andi %varlen, %true : i1"
#: The box rows of the variant for a contiguous cache with per-sequence
#: lengths: K and V through the dense maps, no table, the register split
#: as written (no box threads).
LENGTHS_ONLY = 0
#: Rows of a KV cache's TMA boxes (cache_box_rows).
CACHE_BOX_ROWS = (16, 32, 64)
#: The kernel's register split (producer, consumer warpgroups) as written,
#: and the paged KV-cache variants': their producer threads keep a box's page id
#: and the unit's state through the ring's waits (at 24 registers they
#: spill); 128 x (40 + 2 x 232) fits the 384 x 168 of the launch.
REGISTER_SPLIT = ("producer(registers = 24)", "consumers(2, registers = 240)")
CACHE_REGISTER_SPLIT = ("producer(registers = 40)", "consumers(2, registers = 232)")


def cache_box_rows(page: int) -> int:
    """The box rows of the KV-cache variant for pages of `page` tokens: a
    page of 16 or 32 tokens is a box, larger pages take 64-row boxes (a
    128-key block lies within one page of 128 or more)."""
    return page if page < CACHE_BOX_ROWS[-1] else CACHE_BOX_ROWS[-1]


def head_dim_aliases(head_dim: int, paged: bool = False) -> Dict[str, str]:
    """The kernel source's head-dimension aliases for D = `head_dim` (as
    written: 128): O's accumulator fragment, the Q, K/V and O staging tiles
    of D / 64 chunks, K/V rings of 128 KB (256 / D stages; ring_aliases),
    the MMA and row shapes and the constants, and when a warpgroup hands
    the tensor cores' turn on (#pv_wait)."""
    chunks, stages = head_dim // 64, 256 // head_dim
    early = head_dim == 128 and not paged
    return {"!acc": f"vector<{head_dim // 2}xf32>",
            "!qtile": f"memref<2x{chunks}x128x64x!e, 3>",
            **ring_aliases(head_dim, paged),
            "!ostage": f"memref<2x{chunks}x64x64x!eo, 3>",
            "!kvbars": f"!tile.mbarrier<count = {stages}>",
            "#qk": f"array<i64: 64, 128, {head_dim}>",
            "#pv": f"array<i64: 64, {head_dim}, 128>",
            "#orows": f"array<i64: 64, {head_dim}>",
            "#head_dim": f"{head_dim} : index", "#chunks": f"{chunks} : i32",
            "#kv_stages": f"{stages} : index",
            # The tensor cores' turn handed on after issuing (D = 128: two
            # groups in flight) or once S is done (D = 64 and the paged
            # variants, whose producer threads keep page ids: faster so,
            # bench/NOTES.md).
            "#pv_wait": f"{2 if early else 1} : i32"}


def ring_aliases(head_dim: int, paged: bool) -> Dict[str, str]:
    """The K/V ring and the maps that fill it: a paged cache's (16 groups of
    8 rows, each with every chunk: one box of a page fills them, T-WGMMA-6;
    the dense maps placeholders of a group) or tile.attention's (a group of
    128 rows, each chunk's rows together: one dense box a chunk; the page
    boxes placeholders of all the group's chunks)."""
    chunks, stages = head_dim // 64, 256 // head_dim
    groups, rows = (KEY_BLOCK // 8, 8) if paged else (1, KEY_BLOCK)
    desc = "!tile.tma_desc<memref<{}!e>, box = [{}], swizzle = b128>"
    aliases = {"!kvring": f"memref<{stages}x{groups}x{chunks}x{rows}x64x!e, 3>",
               "#ring_rows": f"{rows} : index",
               "!kvd4": desc.format("?x" * 4, f"1, 1, {rows}, 64")}
    if not paged:
        aliases["!kvpage"] = desc.format("?x" * 5, f"1, 1, {chunks}, {rows}, 64")
    return aliases


def cache_aliases(box_rows: int, head_dim: int) -> Dict[str, str]:
    """The KV-cache aliases for boxes of `box_rows` rows (16, 32 or 64:
    CACHE_BOX_ROWS) and all D / 64 chunks filling 128-key blocks."""
    box = f"1, {box_rows // 8}, {head_dim // 64}, 8, 64"
    return {"!kvpage": f"!tile.tma_desc<memref<?x?x?x?x?x!e>, box = [{box}], swizzle = b128>",
            "#box_rows": f"{box_rows} : index", "#kv_boxes": f"{KEY_BLOCK // box_rows} : index"}


def fp8_aliases(head_dim: int) -> Dict[str, str]:
    """The FP8 variant's aliases (D = 128) over head_dim_aliases' (which
    give O's accumulators, its bf16 staging in D / 64 chunks of 64 and the
    MMA and row shapes): e4m3 Q, K and V^T in 128-byte rows, one
    128-element chunk each (wgmma's 8-bit operands are K-major: V comes as
    V^T, fp8_v_layout); K and V^T blocks of 16 KB in a ring of four stages
    (128 KB, as the 16-bit kernels'; two measured the same); a bf16 O; P
    offset by 8 (#p_offset); the turn handed on once S is done (#pv_wait 1:
    4% faster than after issuing both products, H200, bench/NOTES.md)."""
    stages = 4
    desc = "!tile.tma_desc<memref<{}!e>, box = [{}], swizzle = b128>"
    return {"!e": FP8_ELEMENT, "!eo": "bf16",
            "!d4": desc.format("?x" * 4, f"1, 1, 128, {head_dim}"),
            "!qtile": f"memref<2x1x128x{head_dim}x!e, 3>",
            "!kvring": f"memref<{stages}x1x1x{KEY_BLOCK}x{head_dim}x!e, 3>",
            "#ring_rows": f"{KEY_BLOCK} : index",
            "!kvd4": desc.format("?x" * 4, f"1, 1, {KEY_BLOCK}, {head_dim}"),
            "!kvpage": desc.format("?x" * 5, f"1, 1, 1, {KEY_BLOCK}, {head_dim}"),
            "!kvbars": f"!tile.mbarrier<count = {stages}>", "#chunks": "1 : i32",
            "#kv_stages": f"{stages} : index", "#pv_wait": "1 : i32",
            "#p_offset": "8.0 : f32"}


#: The FP8 variant's edits of the source beyond its aliases: P to e4m3
#: with nnan (P lies in [0, 256]: no overflow to fix, T-TARGET-7), P V with
#: V^T K-major (no transpose_b), V^T's blocks at (D row 0, key n0).
FP8_EDITS = (
    ("%p16 = arith.truncf %probs : vector<64xf32> to vector<64x!e>",
     "%p16 = arith.truncf %probs fastmath<nnan> : vector<64xf32> to vector<64x!e>", 1),
    ("wait = #pv_wait, transpose_b, b_row_groups}", "wait = #pv_wait, b_row_groups}", 1),
    ("wait = 0 : i32, transpose_b, b_row_groups}", "wait = 0 : i32, b_row_groups}", 1),
    ("tile.tma_copy %v[%bt, %hk, %kn0, %c0] to %sv_[%s, %c0, %c0]",
     "tile.tma_copy %v[%bt, %hk, %c0, %kn0] to %sv_[%s, %c0, %c0]", 1),
)


def attention_source(variant: Tuple) -> str:
    """The kernel @attention_d{D} for (element, softcap, D, box rows, lse[,
    packed[, left edge]]):
    `!e` and the head-dimension aliases redefined, the softcap branch kept
    or folded away; box rows None: tile.attention's (the KV-cache path
    folded away), LENGTHS_ONLY: a contiguous cache's per-sequence lengths,
    else a paged cache's, in boxes of that many rows (cache_aliases); with
    lse, the rows' negated log2 sum-exps stored for the backward; packed
    (default False): tile.attention_varlen's units of packed row tiles; left
    edge (default False): a window's left edge compared, else folded away.
    Element FP8_ELEMENT: the FP8 variant (fp8_aliases, FP8_EDITS; D = 128,
    no cache, lse or packed sequences), its descale factors kept."""
    element, softcap, head_dim, box_rows, lse, *rest = variant
    packed = bool(rest and rest[0])
    left_edge = len(rest) > 1 and bool(rest[1])
    fp8 = element == FP8_ELEMENT
    if packed and box_rows is not None:
        raise ValueError("the packed-sequence variants of the prefill kernel have no KV cache")
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"attention kernels take D = 64 or 128, got {head_dim}")
    if fp8 and (head_dim not in FP8_HEAD_DIMS or box_rows is not None or lse or packed):
        raise ValueError(f"the FP8 attention kernel takes D = "
                         f"{', '.join(map(str, FP8_HEAD_DIMS))}, no cache, no saved "
                         "log-sum-exps and no packed sequences")
    paged = box_rows not in (None, LENGTHS_ONLY)
    aliases = {"!e": element, "!eo": element, "#unbounded": f"{UNBOUNDED} : index",
               **HALVINGS_ALIAS, **head_dim_aliases(head_dim, paged)}
    if fp8:
        aliases.update(fp8_aliases(head_dim))
    if paged:
        if box_rows not in CACHE_BOX_ROWS:
            raise ValueError(f"KV-cache boxes have {CACHE_BOX_ROWS} rows, got {box_rows}")
        aliases.update(cache_aliases(box_rows, head_dim))
    text = redefine_aliases(read_kernel("attention_sm90.mlir"), aliases)
    text = text.replace("@attention_d128(", f"@attention_d{head_dim}(")
    for written, edited, count in (FP8_EDITS if fp8 else ()):
        assert text.count(written) == count, f"attention_sm90.mlir: '{written}' moved"
        text = text.replace(written, edited)
    if box_rows is not None and softcap:
        # With the table's loads and per-sequence lengths, the D = 128
        # softcap kernel spills a few bytes whatever the register split:
        # such calls stay on the split-KV kernels.
        raise ValueError("the KV-cache variants of the prefill kernel have no softcap")
    if paged:
        for written, cache in zip(REGISTER_SPLIT, CACHE_REGISTER_SPLIT):
            assert written in text, f"attention_sm90.mlir: the register split '{written}' moved"
            text = text.replace(written, cache)
    switches = [(SOFTCAP_SWITCH, not softcap and "false")]
    switches += [(PAGES_SWITCH, "true" if paged else "false"),
                 (LENGTHS_SWITCH, box_rows is None and "false"),
                 (LSE_SWITCH, not lse and "false"), (PACKED_SWITCH, not packed and "false"),
                 (LEFT_SWITCH, "true" if left_edge else "false"),
                 (DESCALE_SWITCH, "true" if fp8 else "false")]
    for switch, fold in switches:
        assert switch in text, f"attention_sm90.mlir: the switch '{switch}' moved"
        if fold:
            text = text.replace(switch, switch.split(" = ")[0] + f" = arith.constant {fold}")
    return text


#: The kernel @attention_d{D}; a variant is attention_source's (element,
#: softcap, D, box rows or None, lse[, packed[, left edge]]). 32-bit index
#: arithmetic: the kernels' loop state takes half the registers (their
#: coordinates are TMA's 32-bit ones anyway).
ATTENTION = KernelFamily("attention_sm90.mlir", attention_source,
                         options={"index-bitwidth": 32})
#: Head dimensions the kernels are built for: @attention_d64, @attention_d128.
HEAD_DIMS = (64, 128)
#: Head dimensions of the FP8 variant: 128-byte e4m3 rows (one 128-byte
#: swizzle span; D = 64 would take 64-byte spans, not built).
FP8_HEAD_DIMS = (128,)
#: Element types (PyTorch dtype names) of the 16-bit kernels.
ELEMENTS = FLOAT16_TYPES
#: Query rows per work unit (a CTA's two consumer warpgroups, 64 each).
QUERY_TILE = 128
#: Keys per block of the K/V rings (a stage), the kernel's 128 as written.
KEY_BLOCK = 128
#: The kernels' unbounded window edge: keys i + d - left <= j <= i + d + right
#: of query i with left, right < 2^30 keep their sums in 32-bit signed range.
UNBOUNDED = 1 << 30
#: Causal masks by their diagonal: False (none), "top_left" (SDPA's
#: is_causal, also True), "bottom_right" (KV caches).
CAUSAL = {False: None, None: None, True: "top_left", "top_left": "top_left",
          "bottom_right": "bottom_right"}


def causal_kind(causal) -> Optional[str]:
    """None, "top_left" or "bottom_right" for `causal`, or MatmulError."""
    try:
        return CAUSAL[causal]
    except (KeyError, TypeError):
        raise MatmulError(f"tile.attention: causal must be False, True, 'top_left' or "
                          f"'bottom_right', got {causal!r}") from None


def window_edges(causal: Optional[str], window_size) -> Tuple[int, int]:
    """(left, right) of the kernels for a causal kind and flash_attn's
    `window_size` (-1: unbounded), or MatmulError."""
    try:
        left, right = (int(edge) for edge in window_size)
    except (TypeError, ValueError):
        raise MatmulError(f"tile.attention: window_size must be (left, right), got "
                          f"{window_size!r}") from None
    for name, edge in (("left", left), ("right", right)):
        if edge < -1 or edge >= UNBOUNDED:
            raise MatmulError(f"tile.attention: window_size {name} edge must be -1 "
                              f"(unbounded) or in [0, {UNBOUNDED}), got {edge}")
    left = UNBOUNDED if left < 0 else left
    right = UNBOUNDED if right < 0 else right
    return left, 0 if causal else right


def check_diagonal(kind: Optional[str], sq: int, sk: int) -> None:
    """MatmulError for a bottom-right diagonal with more queries than keys."""
    if kind == "bottom_right" and sq > sk:
        raise MatmulError(f"tile.attention: causal='bottom_right' needs Sq <= Sk (the "
                          f"queries end the keys), got Sq = {sq} and Sk = {sk}")


def check_heads(what: str, heads: int, kv_heads: int, enable_gqa: bool) -> int:
    """The query heads per KV head, or MatmulError (SDPA's enable_gqa rule)."""
    if kv_heads == heads:
        return 1
    if not enable_gqa:
        raise MatmulError(f"{what}: q has {heads} heads and k, v {kv_heads}; pass "
                          "enable_gqa=True for grouped-query attention")
    if kv_heads == 0 or heads % kv_heads:
        raise MatmulError(f"{what}: the {heads} query heads must be a multiple of the "
                          f"{kv_heads} KV heads")
    return heads // kv_heads


def tma_layout_problem(name: str, operand: Operand) -> Optional[str]:
    """Why TMA cannot address `operand` (its strides, T-TMA-9, or its
    address, T-TMA-10), or None."""
    pitch = TMA_ALIGNMENT // BY_TORCH[operand.dtype].bytes
    strides = tuple(operand.strides)
    if strides[-1] != 1 or any(s % pitch for s in strides[:-1]):
        return (f"{name} has strides {strides}; TMA needs the innermost stride 1 and the "
                f"others multiples of {pitch} elements (16 bytes, T-TMA-9)")
    if operand.address % TMA_ALIGNMENT:
        return (f"{name} starts at {operand.address:#x}; TMA needs 16-byte aligned "
                "addresses (T-TMA-10)")
    return None


def check_tma_operands(what: str, operands) -> None:
    """TMA's strides (T-TMA-9) and addresses (T-TMA-10) of (name, operand)
    pairs (None operands skipped), or MatmulError."""
    for name, operand in operands:
        problem = None if operand is None else tma_layout_problem(name, operand)
        if problem is not None:
            raise MatmulError(f"{what}: {problem}")


def check_elements(what: str, q: Operand, k: Operand, v: Operand, device) -> None:
    """float16/bfloat16 q, k and v of one type on a Hopper GPU."""
    if q.dtype not in ELEMENTS or not q.dtype == k.dtype == v.dtype:
        raise MatmulError(f"{what} takes float16 or bfloat16 q, k and v (all the "
                          f"same), got q {q.dtype}, k {k.dtype} and v {v.dtype}")
    devices.require_hopper(what, device)


def check_attention(q: Operand, k: Operand, v: Operand, out: Optional[Operand],
                    device: devices.Device, enable_gqa: bool = False
                    ) -> Tuple[int, int, int, int, int, int]:
    """(B, H, Hkv, Sq, Sk, D) of the attention of q, k and v into `out`
    (None: a new tensor), or MatmulError for what the kernel cannot take
    (plain shapes, strides and addresses: no PyTorch, no GPU)."""
    check_elements("tile.attention", q, k, v, device)
    for name, operand in (("q", q), ("k", k), ("v", v)):
        if len(operand.shape) != 4:
            raise MatmulError(f"tile.attention: {name} must be 4-D (batch, heads, sequence, "
                              f"head dim), got shape {tuple(operand.shape)}")
    batch, heads, sq, d = q.shape
    if tuple(k.shape) != tuple(v.shape):
        raise MatmulError(f"tile.attention: k and v must have the same shape, got k "
                          f"{tuple(k.shape)} and v {tuple(v.shape)}")
    kv_heads = k.shape[1]
    if (k.shape[0], k.shape[3]) != (batch, d) or (kv_heads != heads and not enable_gqa):
        heads_text = "Hkv" if enable_gqa else str(heads)
        raise MatmulError(f"tile.attention: k and v must be ({batch}, {heads_text}, Sk, {d}) "
                          f"for q of shape {tuple(q.shape)}, got {tuple(k.shape)}"
                          + ("" if enable_gqa or k.shape[0] != batch or k.shape[3] != d else
                             "; pass enable_gqa=True for grouped-query attention"))
    check_heads("tile.attention", heads, kv_heads, enable_gqa)
    if d not in HEAD_DIMS:
        raise MatmulError(f"tile.attention: head dim D = {d}; the kernels take D = 64 or 128")
    shape = (batch, heads, sq, d)
    if out is not None and (tuple(out.shape) != shape or out.dtype != q.dtype
                            or min(out.strides[:3], default=1) <= 0):
        raise MatmulError(f"tile.attention: out must be a {q.dtype} tensor of shape {shape} "
                          f"(any TMA strides), got {out.dtype} {tuple(out.shape)} with strides "
                          f"{tuple(out.strides)}")
    check_tma_operands("tile.attention", (("q", q), ("k", k), ("v", v), ("out", out)))
    sk = k.shape[2]
    if sk == 0 and batch * heads * sq:
        raise MatmulError("tile.attention: Sk = 0: no keys to attend to")
    return batch, heads, kv_heads, sq, sk, d


def attention_kernel(element: str, head_dim: int, softcap: bool = False,
                     box_rows: Optional[int] = None, lse: bool = False, packed: bool = False,
                     left_edge: bool = False):
    """The kernel for "f16" or "bf16" elements and a head dim of HEAD_DIMS,
    with the logit softcap or without; `box_rows` for a KV cache's; `lse`
    saving the rows' log-sum-exps; `packed` for packed sequences;
    `left_edge` for windows with a left edge (attention_source)."""
    variant = (element, bool(softcap), head_dim, box_rows, bool(lse))
    if packed or left_edge:
        variant += (bool(packed), bool(left_edge))
    return ATTENTION.kernel(variant, f"attention_d{head_dim}")


#: The placeholder boxes of no_cache, per (device, dtype).
_BOXES = {}


def no_cache(torch, device, dtype) -> tuple:
    """The KV-cache parameters of a launch without a cache (its variant
    folds their path away): a placeholder 5-D tensor for the two page
    tensor maps (encoded once per device and dtype, not per k and v), a
    placeholder table and lengths, page 1 of one head a block, nothing
    added, no pages, one length."""
    table, lengths = placeholders(torch, device, torch.int32)
    key = (device, dtype)
    boxes = _BOXES.get(key)
    if boxes is None:
        # A 128-byte row of one chunk (the FP8 variant's) or two of 64.
        chunks = 1 if BY_TORCH[dtype_name(dtype)].bytes == 1 else 2
        boxes = _BOXES[key] = torch.zeros((1, 1, chunks, 128, 128 // chunks), device=device,
                                          dtype=dtype)
    return (boxes, boxes, table, lengths, 1, 1, 0, False, False)


def dense_arguments(torch, q, k, v, out, shape: Tuple[int, int, int, int, int],
                    window: Tuple[int, int], scale: float, cap: Tuple[float, float],
                    kind: Optional[str], paired: bool, nlse=None, descales=None) -> tuple:
    """The prefill kernel's arguments for (B, H, S, D) q, k, v and out, not
    packed and without a cache: `shape` (B, H, Hkv, Sq, Sk), the window's
    (left, right) edges (window_edges), the softcap's factors, the causal
    kind, paired units; then trailing_arguments' (`nlse`, `descales`).
    The softmax takes exp2: the scale comes times log2(e)."""
    batch, heads, kv_heads, sq, sk = shape
    rows = placeholders(torch, q.device, out.dtype)[0]
    cu = placeholders(torch, q.device, torch.int32)[1]
    return ((q, k, v, out, rows, cu, cu, batch, heads, heads // kv_heads, sq, sk) + window
            + (scale * math.log2(math.e), cap[0], cap[1], cap[0] > 0, kind == "bottom_right",
               paired, False) + no_cache(torch, q.device, q.dtype)
            + trailing_arguments(torch, q.device, nlse, descales))


def trailing_arguments(torch, device, nlse=None, descales=None) -> tuple:
    """The kernel's last parameters: the backward's log-sum-exps to store
    (`nlse`; None: a placeholder vector, its variant folds the stores away)
    and its flag; the FP8 variant's three (B, Hkv) descale matrices
    (`descales`; None: placeholders, the 16-bit variants fold them away)
    and their flag."""
    lse = (placeholders(torch, device, torch.float32)[1], False) if nlse is None else (nlse, True)
    if descales is None:
        rows = placeholders(torch, device, torch.float32)[0]
        return lse + (rows, rows, rows, False)
    return lse + tuple(descales) + (True,)


def softcap_factors(softcap: float, scale: float) -> Tuple[float, float]:
    """(cap_in, cap_out) of the kernels for a logit softcap (0: none):
    scores s become cap_out tanh(cap_in s), i.e. softcap tanh(scale s /
    softcap) in the units the softmax scales by `scale`."""
    softcap = float(softcap)
    if softcap == 0:
        return 0.0, 1.0
    if not (softcap > 0 and math.isfinite(softcap)):
        raise MatmulError(f"tile.attention: softcap must be positive and finite (0: none), "
                          f"got {softcap}")
    return scale / softcap, softcap / scale


def check_scale(scale: Optional[float], d: int) -> float:
    """The softmax scale (default 1 / sqrt(D)), or MatmulError."""
    scale = 1 / math.sqrt(d) if scale is None else float(scale)
    if not (scale > 0 and math.isfinite(scale)):
        raise MatmulError(f"tile.attention: scale must be positive and finite (the kernel's "
                          f"softmax subtracts the maximum of the unscaled scores), got {scale}")
    return scale


def paired_units(causal: Optional[str], units: int, sq_max: int, sms: int) -> bool:
    """Whether query tiles go in pairs (T - 1 - i, i) of equal causal cost:
    under a causal mask, where the pairs still fill the SMs."""
    return causal is not None and units * cdiv(cdiv(sq_max, QUERY_TILE), 2) >= sms


def decodes(causal: Optional[str], left: int, right: int) -> bool:
    """Whether a mask is one the decode kernels take: no window, no mask or
    the bottom-right one (theirs)."""
    unbounded = left == UNBOUNDED and right == (0 if causal else UNBOUNDED)
    return unbounded and causal in (None, "bottom_right")


def with_route(shape: Tuple[int, ...], device: devices.Device) -> Tuple[int, ...]:
    """check_attention's (B, H, Hkv, Sq, Sk, D) and whether the split-KV
    decode kernels run the shape faster than the prefill kernel
    (prefers_decode: a few queries against many keys)."""
    batch, heads, kv_heads, sq, sk, _ = shape
    return shape + (prefers_decode(batch, sq, heads, kv_heads, sk, device.sms),)


#: with_route(check_attention's answer) by shapes, strides, dtypes, alignment
#: and device.
CHECKS = LruCache(256)
#: The decode kernels' plans of SDPA-shaped calls (CHECKS' key, scale, mask).
DECODE_PLANS = LruCache(256)
#: (device, out's shape, prepared launches by stream) of the calls, by the
#: tensors' signatures and the call's options: a call like an earlier one
#: on the same stream packs its four tensors only.
READY = PreparedCalls()


def attention(q, k, v, causal: Union[bool, str] = False, scale: Optional[float] = None, *,
              enable_gqa: bool = False, window_size=(-1, -1), softcap: float = 0.0, out=None,
              stream=None, q_descale=None, k_descale=None, v_descale=None):
    """softmax(q k^T scale) v, as torch.nn.functional.scaled_dot_product_attention
    (q, k, v, is_causal=causal, scale=scale, enable_gqa=enable_gqa); into
    `out` when given. `causal` is False, True / "top_left" or
    "bottom_right"; `window_size` and `softcap` are flash_attn's (left,
    right) and logit softcap (0: none). Returns at
    once: the kernel runs on `stream` (default: PyTorch's current one on the
    operands' device).
    See the module's documentation.

    Under torch.compile it runs as the operator tile::attention; where
    autograd records it, as tile::attention_lse, whose backward is
    tile.ops.attention_backward's kernels (no window or softcap there;
    tile.library).

    float8_e4m3fn q, k and v run the FP8 kernel (D = 128, bf16 out) with
    flash_attn's `q_descale`, `k_descale`, `v_descale` ((B, Hkv) float32
    tensors, or None): attention_fp8, the module's documentation."""
    import torch
    if getattr(q, "dtype", None) == torch.float8_e4m3fn:
        return attention_fp8(q, k, v, causal, scale, enable_gqa=enable_gqa,
                             window_size=window_size, softcap=softcap, q_descale=q_descale,
                             k_descale=k_descale, v_descale=v_descale, out=out, stream=stream)
    if q_descale is not None or k_descale is not None or v_descale is not None:
        raise MatmulError("tile.attention: q_descale, k_descale and v_descale scale "
                          "float8_e4m3fn operands (the FP8 kernel), got q of "
                          f"{getattr(q, 'dtype', type(q).__name__)}")
    if routed(torch, q, k, v):
        ops = operators(torch, "tile.attention", stream)
        left, right = (int(edge) for edge in window_size)
        kind = causal_kind(causal) or "none"
        if recorded(torch, q, k, v):
            if (left, right) != (-1, -1) or softcap:
                no_backward(torch, "tile.attention with a sliding window or softcap", q, k, v)
            result = ops.attention_lse(q, k, v, kind, scale, bool(enable_gqa))[0]
        else:
            result = ops.attention(q, k, v, kind, scale, bool(enable_gqa), left, right,
                                   float(softcap))
        return result if out is None else out.copy_(result)
    try:
        ready_key = (signature(q), signature(k), signature(v), signature(out), enable_gqa,
                     causal, scale, tuple(window_size), softcap)
    except (AttributeError, TypeError):  # not tensors: the checks say why
        ready_key = None
    ready = READY.find(ready_key, stream)
    if ready is not None:
        launch, index, out_shape = ready
        out = new_output(torch, out_shape, q, stream, index) if out is None else out
        launch(q, k, v, out)
        return out
    index = require_cuda_tensors(torch, "tile.attention", q=q, k=k, v=v, out=out)
    kind = causal_kind(causal)
    left, right = window_edges(kind, window_size)
    tensors = tuple(t for t in (q, k, v, out) if t is not None)
    key = tuple((tuple(t.shape), t.stride(), t.dtype, t.data_ptr() % TMA_ALIGNMENT)
                for t in tensors) + (index, bool(enable_gqa))
    device = devices.device(index)
    batch, heads, kv_heads, sq, sk, d, few_queries = CHECKS.get(key, lambda: with_route(
        check_attention(*(operand_of(t) for t in (q, k, v)),
                        None if out is None else operand_of(out), device, bool(enable_gqa)),
        device))
    scale = check_scale(scale, d)
    cap_in, cap_out = softcap_factors(softcap, scale)
    check_diagonal(kind, sq, sk)
    if out is None:
        out = new_output(torch, (batch, heads, sq, d), q, stream, index)
    if out.numel() == 0:
        return out
    if few_queries and decodes(kind, left, right):
        plan = DECODE_PLANS.get(key + (scale, kind, cap_in), lambda: plan_decode(
            BY_TORCH[dtype_name(q.dtype)].name, device.sms, batch, sq, heads, kv_heads, d,
            page=sk, capacity=sk, paged=False, scale_log2=scale * math.log2(math.e),
            causal=kind is not None, softcap=(cap_in, cap_out)))
        # Prepared for this call shape and stream (the workspace the
        # stream's); the next such call packs q, k, v and out only.
        table = placeholders(torch, q.device, torch.int32)[0]
        run = plan.prepare(torch, index, q.transpose(1, 2), k, v, table, None,
                           out.transpose(1, 2), lambda dtype: placeholders(torch, q.device, dtype),
                           stream)
        READY.keep(ready_key, index, (batch, heads, sq, d), stream,
                   lambda q, k, v, out: run(q, k, v, table, None, out, sk, 0))
        run(q, k, v, table, None, out, sk, 0)
        return out
    kernel = attention_kernel(BY_TORCH[dtype_name(q.dtype)].name, d, cap_in > 0,
                              left_edge=left < UNBOUNDED)
    paired = paired_units(kind, batch * heads, sq, device.sms)
    # The launch prepared for this call shape and stream: the next such
    # call packs q, k, v and out only.
    launch = kernel.prepare(
        index, dense_arguments(torch, q, k, v, out, (batch, heads, kv_heads, sq, sk),
                               (left, right), scale, (cap_in, cap_out), kind, paired),
        (device.sms, 1, 1), stream, varying=(0, 1, 2, 3))
    READY.keep(ready_key, index, (batch, heads, sq, d), stream, launch)
    launch()
    return out


#: What FP8 calls' errors name.
FP8_WHAT = "tile.attention (FP8)"


def descale_matrix(torch, factor, name: str, batch: int, kv_heads: int, device, ones):
    """A descale factor as the kernel's (B, Hkv) float32 view (any strides:
    a broadcast scalar has stride 0), or MatmulError."""
    if factor is None:
        return ones
    if not isinstance(factor, torch.Tensor):
        raise MatmulError(f"{FP8_WHAT}: {name} must be a float32 tensor of shape ({batch}, "
                          f"{kv_heads}) or one that broadcasts to it (flash_attn's "
                          f"descale), got {type(factor).__name__}")
    if factor.dtype != torch.float32 or factor.device != device:
        raise MatmulError(f"{FP8_WHAT}: {name} must be a float32 tensor on {device}, got "
                          f"{factor.dtype} on {factor.device}")
    try:
        return factor.expand(batch, kv_heads)
    except RuntimeError:
        raise MatmulError(f"{FP8_WHAT}: {name} of shape {tuple(factor.shape)} does not broadcast "
                          f"to (B, Hkv) = ({batch}, {kv_heads})") from None


def check_fp8_attention(torch, q, k, v, out, enable_gqa: bool) -> Tuple[int, ...]:
    """(B, H, Hkv, Sq, Sk, D) of FP8 attention, or MatmulError."""
    e4m3 = torch.float8_e4m3fn
    if not (q.dtype == k.dtype == v.dtype == e4m3):
        raise MatmulError(f"{FP8_WHAT} takes float8_e4m3fn q, k and v (all three), got q "
                          f"{q.dtype}, k {k.dtype} and v {v.dtype}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            raise MatmulError(f"{FP8_WHAT}: {name} must be 4-D (batch, heads, sequence, head "
                              f"dim), got shape {tuple(t.shape)}")
    batch, heads, sq, d = q.shape
    if tuple(k.shape) != tuple(v.shape) or (k.shape[0], k.shape[3]) != (batch, d):
        raise MatmulError(f"{FP8_WHAT}: k and v must both be ({batch}, Hkv, Sk, {d}) for q of "
                          f"shape {tuple(q.shape)}, got k {tuple(k.shape)} and v "
                          f"{tuple(v.shape)}")
    kv_heads, sk = k.shape[1], k.shape[2]
    check_heads(FP8_WHAT, heads, kv_heads, enable_gqa)
    if d not in FP8_HEAD_DIMS:
        raise MatmulError(f"{FP8_WHAT}: head dim D = {d}; the FP8 kernel takes D = "
                          f"{', '.join(map(str, FP8_HEAD_DIMS))}")
    if sk == 0 and batch * heads * sq:
        raise MatmulError(f"{FP8_WHAT}: Sk = 0: no keys to attend to")
    shape = (batch, heads, sq, d)
    if out is not None and (tuple(out.shape) != shape or out.dtype != torch.bfloat16
                            or min(out.stride()[:3], default=1) <= 0):
        raise MatmulError(f"{FP8_WHAT}: out must be a bfloat16 tensor of shape {shape} (any "
                          f"TMA strides), got {out.dtype} {tuple(out.shape)} with strides "
                          f"{tuple(out.stride())}")
    check_tma_operands(FP8_WHAT, (("q", operand_of(q)), ("k", operand_of(k)),
                                  ("out", None if out is None else operand_of(out))))
    if v.stride(-1) != 1:
        raise MatmulError(f"{FP8_WHAT}: v needs a contiguous head dim, got strides {v.stride()}")
    return batch, heads, kv_heads, sq, sk, d


#: The (1, 1) float32 ones of a call without a descale factor, per device.
_ONES = {}
#: FP8 calls by shape and stream (as READY): a call like an earlier one
#: runs the two prepared launches, V's layout and the attention kernel,
#: packing q, k, v, V^T (allocated each call on the launch's stream), out
#: and the factors given.
FP8_READY = PreparedCalls()
#: The positions of the three descale factors in the kernel's arguments.
DESCALE_ARGUMENTS = (32, 33, 34)


def attention_fp8(q, k, v, causal=False, scale: Optional[float] = None, *,
                  enable_gqa: bool = False, window_size=(-1, -1), softcap: float = 0.0,
                  q_descale=None, k_descale=None, v_descale=None, out=None, stream=None):
    """FP8 attention, tile.attention's path for float8_e4m3fn q, k and v
    (the module's documentation): bf16 (B, H, Sq, D)."""
    import torch
    factors = (q_descale, k_descale, v_descale)
    if routed(torch, q, k, v):
        # Under torch.compile: the operator tile::attention_fp8 (forward
        # only: autograd recording the call is an error).
        ops = operators(torch, FP8_WHAT, stream)
        no_backward(torch, FP8_WHAT, q, k, v)
        left, right = (int(edge) for edge in window_size)
        result = ops.attention_fp8(q, k, v, causal_kind(causal) or "none", scale,
                                   bool(enable_gqa), left, right, float(softcap), *factors)
        return result if out is None else out.copy_(result)
    try:
        ready_key = (signature(q), signature(k), signature(v), signature(out),
                     bool(enable_gqa), causal, scale, tuple(window_size), softcap) + tuple(
                         None if f is None else signature(f) for f in factors)
    except (AttributeError, TypeError):  # not tensors: the checks say why
        ready_key = None
    ready = FP8_READY.find(ready_key, stream)
    if ready is not None:
        run, index, out_shape = ready
        if out is None:
            out = new_output(torch, out_shape, q, stream, index, dtype=torch.bfloat16)
        run(q, k, v, out, *factors)
        return out
    index = require_cuda_tensors(torch, FP8_WHAT, q=q, k=k, v=v, out=out)
    device = devices.device(index)
    devices.require_hopper(FP8_WHAT, device)
    kind = causal_kind(causal)
    left, right = window_edges(kind, window_size)
    batch, heads, kv_heads, sq, sk, d = check_fp8_attention(torch, q, k, v, out,
                                                            bool(enable_gqa))
    check_diagonal(kind, sq, sk)
    scale = check_scale(scale, d)
    cap_in, cap_out = softcap_factors(softcap, scale)
    ones = _ONES.get(q.device)
    if ones is None:
        ones = _ONES[q.device] = torch.ones((1, 1), device=q.device, dtype=torch.float32)
    descales = tuple(descale_matrix(torch, factor, name, batch, kv_heads, q.device,
                                    ones.expand(batch, kv_heads))
                     for factor, name in zip(factors, ("q_descale", "k_descale", "v_descale")))
    if out is None:
        out = new_output(torch, (batch, heads, sq, d), q, stream, index, dtype=torch.bfloat16)
    if out.numel() == 0:
        return out
    layout_kernel, layout_grid = v_layout_launch(torch, v)
    kernel = attention_kernel(FP8_ELEMENT, d, cap_in > 0, left_edge=left < UNBOUNDED)
    paired = paired_units(kind, batch * heads, sq, device.sms)
    # V^T (and V's copy where its rows are not 16-byte aligned) allocated on
    # the launch's stream: ordered before the kernels, freed after them.
    launch_stream = None if stream is None else streams.torch_stream(torch, stream, index)
    with streams.running_on(torch, launch_stream):
        vt = v_layout_buffer(torch, v)
        arguments = dense_arguments(torch, q, k, vt, out, (batch, heads, kv_heads, sq, sk),
                                    (left, right), scale, (cap_in, cap_out), kind, paired,
                                    descales=descales)
        if not reads_in_place(v):
            # The layout kernel reads a contiguous copy: no prepared call.
            layout_kernel.launch_on(index, (v.contiguous(), vt), layout_grid, stream)
            kernel.launch_on(index, arguments, (device.sms, 1, 1), stream)
            return out
    layout = layout_kernel.prepare(index, (v, vt), layout_grid, stream, varying=(0, 1))
    given = tuple(i for i, factor in zip(DESCALE_ARGUMENTS, factors) if factor is not None)
    attend = kernel.prepare(index, arguments, (device.sms, 1, 1), stream,
                            varying=(0, 1, 2, 3) + given)

    def run(q, k, v, out, *factors):
        with streams.running_on(torch, launch_stream):
            vt = v_layout_buffer(torch, v)
        layout(v, vt)
        attend(q, k, vt, out, *(f.expand(batch, kv_heads) for f in factors if f is not None))
    FP8_READY.keep(ready_key, index, (batch, heads, sq, d), stream, run)
    run(q, k, v, out, *factors)
    return out


def check_varlen(q: Operand, k: Operand, v: Operand, cu_q: Operand, cu_k: Operand,
                 device: devices.Device, enable_gqa: bool) -> Tuple[int, int, int, int]:
    """(B, H, Hkv, D) of packed sequences, or MatmulError."""
    what = "tile.attention_varlen"
    check_elements(what, q, k, v, device)
    for name, operand in (("q", q), ("k", k), ("v", v)):
        if len(operand.shape) != 3:
            raise MatmulError(f"{what}: {name} must be 3-D (tokens, heads, head dim), got "
                              f"shape {tuple(operand.shape)}")
    _, heads, d = q.shape
    if tuple(k.shape) != tuple(v.shape) or k.shape[2] != d:
        raise MatmulError(f"{what}: k and v must both be (total_k, Hkv, {d}), got k "
                          f"{tuple(k.shape)} and v {tuple(v.shape)}")
    if d not in HEAD_DIMS:
        raise MatmulError(f"{what}: head dim D = {d}; the kernels take D = 64 or 128")
    kv_heads = k.shape[1]
    check_heads(what, heads, kv_heads, enable_gqa)
    # The packed output's rows are stored at 32-bit element offsets.
    if q.shape[0] * heads * d >= 2 ** 31:
        raise MatmulError(f"{what}: {q.shape[0]} packed tokens x {heads} heads x D = {d} pass the "
                          "kernels' 32-bit element offsets (2^31): split the batch")
    for name, cu in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        if cu.dtype != "int32" or len(cu.shape) != 1 or cu.shape[0] < 1 or cu.strides[0] != 1:
            raise MatmulError(f"{what}: {name} must be a contiguous 1-D int32 tensor of B + 1 "
                              f"offsets, got {cu.dtype} of shape {tuple(cu.shape)}")
    if cu_q.shape != cu_k.shape:
        raise MatmulError(f"{what}: cu_seqlens_q and cu_seqlens_k must have the same length, "
                          f"got {cu_q.shape[0]} and {cu_k.shape[0]}")
    if cu_q.shape[0] - 1 > 2 ** PACKED_HALVINGS:
        raise MatmulError(f"{what}: {cu_q.shape[0] - 1} sequences; the kernels take "
                          f"{2 ** PACKED_HALVINGS} a call at most: split the batch")
    check_tma_operands(what, (("q", q), ("k", k), ("v", v)))
    return cu_q.shape[0] - 1, heads, kv_heads, d


def varlen_kind(causal) -> Optional[str]:
    """The causal kind of attention_varlen's `causal`: True is flash_attn's
    bottom right."""
    kind = causal_kind(causal)
    if kind == "top_left" and not isinstance(causal, str):
        return "bottom_right"
    return kind


def packed_batch(t):
    """A packed (total, heads, D) tensor as one batch of (1, heads, total,
    D): sequence b's rows start at cu_seqlens[b] (the tensor maps' batch
    coordinate is 0)."""
    return t.permute(1, 0, 2).unsqueeze(0)


def varlen_arguments(torch, q, k, v, out, cu_q, cu_k, shape: Tuple[int, int, int],
                     window: Tuple[int, int], scale: float, cap: Tuple[float, float],
                     kind: Optional[str], nlse=None) -> tuple:
    """The prefill kernel's arguments for packed sequences: q and out
    (total_q, H, D), k and v (total_k, Hkv, D), as one batch of (1, H,
    total, D) views whose sequence b starts at row cu[b] (the tensor maps'
    batch coordinate is 0); `shape` (B, H, Hkv); `nlse` (H total_q
    float32, flat) the backward's log-sum-exps to store (None: not saved).
    The units' grid is one batch of H rows of the packed layout's tiles
    (the kernel finds each tile's sequence)."""
    batch, heads, kv_heads = shape
    total, d = q.shape[0], q.shape[2]
    # The units' grid: one batch of H rows of the packed layout's tiles.
    return (tuple(packed_batch(t) for t in (q, k, v, out))
            + (out.view(total, heads * d), cu_q, cu_k, 1, heads, heads // kv_heads,
               packed_pitch(total, batch), k.shape[0]) + window
            + (scale * math.log2(math.e), cap[0], cap[1], cap[0] > 0, kind != "top_left",
               False, True) + no_cache(torch, q.device, q.dtype)
            + trailing_arguments(torch, q.device, nlse))


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q: int,
                     max_seqlen_k: Optional[int] = None, causal: Union[bool, str] = False,
                     scale: Optional[float] = None, *, enable_gqa: bool = True,
                     window_size=(-1, -1), softcap: float = 0.0, out=None, stream=None):
    """Attention of packed sequences, as flash_attn_varlen_func: q
    (total_q, H, D), k and v (total_k, Hkv, D), int32 cu_seqlens of B + 1
    offsets on the GPU; out (total_q, H, D). `max_seqlen_q` must bound
    every sequence's queries (the forward computes every row; the backward
    takes no more than max_seqlen_q of them);
    `max_seqlen_k`, where given, must bound every sequence's keys: the
    forward does not need it, the backward's grid does (None: read from
    cu_seqlens_k on the host in the backward, one synchronisation).
    `causal` True is "bottom_right" here and windows align at the bottom
    right too (flash_attn's convention; "top_left" asks for SDPA's); both
    are equal for sequences with as many queries as keys. GQA is on by
    default (flash_attn infers it from the head counts).
    See the module's documentation.

    Under torch.compile it runs as the operator tile::attention_varlen;
    where autograd records it, as tile::attention_varlen_lse, whose
    backward is tile.ops.attention_backward's (the fused kernel, or the
    deterministic mode's two; no window or softcap there; tile.library)."""
    import torch
    what = "tile.attention_varlen"
    kind = varlen_kind(causal)
    if routed(torch, q, k, v):
        ops = operators(torch, what, stream)
        left, right = (int(edge) for edge in window_size)
        limits = (int(max_seqlen_q), None if max_seqlen_k is None else int(max_seqlen_k))
        if recorded(torch, q, k, v):
            if (left, right) != (-1, -1) or softcap:
                no_backward(torch, f"{what} with a sliding window or softcap", q, k, v)
            result = ops.attention_varlen_lse(q, k, v, cu_seqlens_q, cu_seqlens_k, *limits,
                                              kind or "none", scale, bool(enable_gqa))[0]
        else:
            result = ops.attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, limits[0],
                                          kind or "none", scale, bool(enable_gqa), left, right,
                                          float(softcap))
        return result if out is None else out.copy_(result)
    index = require_cuda_tensors(torch, what, q=q, k=k, v=v, cu_seqlens_q=cu_seqlens_q,
                                 cu_seqlens_k=cu_seqlens_k, out=out)
    left, right = window_edges(kind, window_size)
    device = devices.device(index)
    batch, heads, kv_heads, d = check_varlen(
        *(operand_of(t) for t in (q, k, v, cu_seqlens_q, cu_seqlens_k)), device,
        bool(enable_gqa))
    scale = check_scale(scale, d)
    cap_in, cap_out = softcap_factors(softcap, scale)
    max_seqlen_q = int(max_seqlen_q)
    if max_seqlen_q < 0:
        raise MatmulError(f"{what}: max_seqlen_q must be >= 0, got {max_seqlen_q}")
    total = q.shape[0]
    if out is None:
        out = new_output(torch, (total, heads, d), q, stream, index)
    elif (tuple(out.shape) != (total, heads, d) or out.dtype != q.dtype
          or not out.is_contiguous()):
        raise MatmulError(f"{what}: out must be a contiguous {q.dtype} tensor of shape "
                          f"{(total, heads, d)}, got {out.dtype} {tuple(out.shape)}")
    if batch == 0 or max_seqlen_q == 0 or out.numel() == 0:
        return out
    check_tma_operands(what, (("out", operand_of(out)),))
    kernel = attention_kernel(BY_TORCH[dtype_name(q.dtype)].name, d, cap_in > 0, packed=True,
                              left_edge=left < UNBOUNDED)
    kernel.launch_on(index, varlen_arguments(torch, q, k, v, out, cu_seqlens_q, cu_seqlens_k,
                                             (batch, heads, kv_heads),
                                             (left, right), scale, (cap_in, cap_out), kind),
                     (device.sms, 1, 1), stream)
    return out
