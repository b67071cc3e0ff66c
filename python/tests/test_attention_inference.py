"""Attention for inference: grouped-query heads, the bottom-right causal
diagonal, sliding windows, packed variable-length batches, split-KV decode
against contiguous and paged KV caches (tile.attention,
tile.attention_varlen, tile.attention_with_kvcache) -- the checks on plain
shapes (no GPU) and the results against a float32 reference on the GPU,
with errors no larger than twice SDPA's on the same inputs."""
import itertools
import re

import pytest

from tile.core.errors import MatmulError
from tile.ops.attention import LENGTHS_ONLY, UNBOUNDED, check_attention, decodes, window_edges
from tile.ops.cache_append import CACHE_APPEND, CacheAppendConfig
from tile.ops.decode_attention import (DECODE_ATTENTION, GATHER_BELOW, PAGE_ROWS, THREADS,
                                       DecodeAttentionConfig, config_for, num_splits,
                                       prefers_decode)
from tile.arrays import contiguous_strides
from tile.core.devices import Device
from tile.core.operands import Operand

H100 = Device(sms=132, capability=(9, 0), shared_optin=232448)


def tensor(shape, dtype="bfloat16"):
    """A contiguous Operand of `shape`."""
    return Operand(tuple(shape), tuple(contiguous_strides(shape)), dtype, 0x10000, "cuda:0")


# --- No GPU --------------------------------------------------------------------------

def test_gqa_shapes():
    q, kv = tensor((2, 32, 100, 128)), tensor((2, 8, 300, 128))
    assert check_attention(q, kv, kv, None, H100, enable_gqa=True) == (2, 32, 8, 100, 300, 128)
    with pytest.raises(MatmulError, match="pass enable_gqa=True"):
        check_attention(q, kv, kv, None, H100)
    with pytest.raises(MatmulError, match="32 query heads must be a multiple of the 6 KV"):
        check_attention(q, tensor((2, 6, 300, 128)), tensor((2, 6, 300, 128)), None, H100,
                        enable_gqa=True)


def test_varlen_shapes():
    """Packed sequences' checks: (B, H, Hkv, D); a packed output past the
    kernels' 32-bit element offsets, or more than 2^16 sequences, is an
    error (nothing is allocated)."""
    from tile.ops.attention import check_varlen
    cu = tensor((5,), "int32")
    q, kv = tensor((1000, 32, 128)), tensor((1200, 8, 128))
    assert check_varlen(q, kv, kv, cu, cu, H100, True) == (4, 32, 8, 128)
    huge = tensor((2 ** 19, 32, 128))
    with pytest.raises(MatmulError, match="pass the kernels' 32-bit element offsets"):
        check_varlen(huge, kv, kv, cu, cu, H100, True)
    # 2^16 sequences a call (each packed unit's search of cu_seqlens_q).
    most = tensor((2 ** 16 + 1,), "int32")
    assert check_varlen(q, kv, kv, most, most, H100, True)[0] == 2 ** 16
    many = tensor((2 ** 16 + 2,), "int32")
    with pytest.raises(MatmulError, match="65537 sequences; the kernels take 65536"):
        check_varlen(q, kv, kv, many, many, H100, True)


def test_windows_and_decode_routing():
    assert window_edges(None, (-1, -1)) == (UNBOUNDED, UNBOUNDED)
    assert window_edges("top_left", (127, -1)) == (127, 0)
    assert window_edges(None, (3, 5)) == (3, 5)
    with pytest.raises(MatmulError, match="window_size must be"):
        window_edges(None, 7)
    with pytest.raises(MatmulError, match="left edge must be"):
        window_edges(None, (-2, 0))
    assert decodes(None, UNBOUNDED, UNBOUNDED)
    assert decodes("bottom_right", UNBOUNDED, 0)
    assert not decodes("top_left", UNBOUNDED, 0)      # SDPA's diagonal: the prefill kernel
    assert not decodes("bottom_right", 100, 0)        # windows: the prefill kernel
    # Few queries against many keys: the split-KV kernels; a chunk whose
    # 128-row tiles fill the SMs: the prefill kernel (measured on an H100,
    # 32/8 heads, 4k keys: 64 queries 18.6 us against 52.2, 512 queries
    # 104.9 against 55.0).
    sms = H100.sms
    assert prefers_decode(1, 1, 32, 8, 4096, sms) and prefers_decode(64, 1, 32, 8, 32768, sms)
    assert prefers_decode(1, 64, 32, 8, 4096, sms)
    assert not prefers_decode(1, 512, 32, 8, 4096, sms)
    assert not prefers_decode(1, 2048, 32, 8, 4096, sms)
    assert not prefers_decode(16, 128, 32, 8, 4096, sms)  # 1024 decode tiles, 512 prefill
    assert prefers_decode(1, 128, 32, 32, 4096, sms)      # MHA: 64 tiles either way, split


def test_split_heuristic():
    """The busiest of 132 persistent CTAs takes little more than its share."""
    def busiest(units, blocks, s):
        return -(-units * s // 132) * -(-blocks // s)
    # Batch 1, 8 KV heads, a 4k cache (32 blocks): splits fill the SMs.
    s = num_splits(8, 32, 132)
    assert 8 * s <= 132 and 8 * s >= 0.9 * 132
    assert busiest(8, 32, s) <= 32 * 8 / 132 + 1 < busiest(8, 32, 1)
    # Batch 16, a 32k cache: 128 units fill 128 of the SMs; splitting them
    # into items of a few blocks costs more than the 4 idle SMs.
    assert num_splits(128, 256, 132) == 1
    assert num_splits(8, 1, 132) == 1               # one block: nothing to split
    assert num_splits(1, 1000, 132, max_splits=64) <= 64
    # Units that fit the CTAs get at most one item a CTA: a cache of one key
    # past 4k (33 blocks; a decode step's append) takes 11 splits of three
    # blocks, not 33 of one (two items a CTA ran 1.6x as long).
    for blocks in (33, 65, 129, 257):
        s = num_splits(8, blocks, 132)
        assert 8 * s <= 132, (blocks, s)
    assert num_splits(8, 33, 132) == 11
    assert num_splits(16, 33, 132) * 16 <= 132
    # More units than CTAs keep the cost model (batch 34: 272 units, split
    # in 8 ran faster than unsplit); no units, no splits.
    assert num_splits(272, 33, 132) > 1
    assert num_splits(0, 33, 132) == 1


def test_streamed_ranges_plan():
    """Where the units outnumber the SMs, the CTAs stream equal ranges of
    the units' blocks when that beats the split items' rounds: every CTA's
    range in the grid, and no unit cut into more pieces than the
    workspace's splits (a piece per CTA whose range meets the unit's)."""
    from tile.ops.decode_attention import cdiv, plan_decode, streams_units
    for batch, blocks in ((17, 32), (20, 33), (50, 32), (100, 32), (18, 8), (17, 256)):
        units = batch * 8  # 32/8 heads, one query
        assert streams_units(units, blocks, 132), (units, blocks)
        decode = plan_decode("bf16", 132, batch, 1, 32, 8, 128, page=blocks * 128,
                             capacity=blocks * 128, paged=False, scale_log2=1.0, causal=False)
        span, splits = decode.shape_scalars[-2:]
        assert decode.stream and decode.grid[0] == cdiv(units * blocks, span) <= 132
        pieces = max(((u + 1) * blocks - 1) // span - u * blocks // span + 1
                     for u in range(units))
        assert pieces <= splits <= 2
        assert decode.direct == (span % blocks == 0)
    assert not streams_units(128, 32, 132)  # one unit a CTA: the split rule's


def run_index_ir(ir: str, values: dict) -> dict:
    """Evaluates the arith lines of `ir` (index = 32-bit unsigned, as the
    kernels are compiled; i1 as 0/1) on `values` (names with their %),
    adding what they define; lines of other ops are skipped (a value they
    would define is then missing: KeyError), an op or predicate not listed
    here fails."""
    mask = 2**32 - 1
    ops = {"muli": lambda a, b: a * b, "addi": lambda a, b: a + b, "subi": lambda a, b: a - b,
           "divui": lambda a, b: a // b, "remui": lambda a, b: a % b, "minui": min,
           "maxui": max, "andi": lambda a, b: a & b, "xori": lambda a, b: a ^ b,
           "maxsi": lambda a, b: max(a - ((a >> 31) << 32), b - ((b >> 31) << 32))}
    predicates = {"ult": lambda a, b: a < b, "ugt": lambda a, b: a > b,
                  "eq": lambda a, b: a == b}
    for line in ir.splitlines():
        match = re.match(r"\s*(%\w+) = arith\.(\w+) (.*?) : (\w+)", line)
        if not match:
            continue
        name, op, args, result = match.groups()
        width = 1 if result == "i1" else mask
        if op == "constant":
            values[name] = {"true": 1, "false": 0}.get(args)
            if values[name] is None:
                values[name] = int(args) & width
            continue
        if op == "cmpi":
            predicate, rest = args.split(", ", 1)
            a, b = (values[x] for x in rest.split(", "))
            values[name] = int(predicates[predicate](a, b))
        elif op == "select":
            c, a, b = (values[x] for x in args.split(", "))
            values[name] = a if c else b
        else:
            a, b = (values[x] for x in args.split(", "))
            values[name] = ops[op](a, b) & width
    return values


def kernel_parameters(source: str, kernel: str) -> list:
    """The parameter names of `kernel` in the module text, in order."""
    head = source[source.index(f"gpu.func @{kernel}("):]
    return re.findall(r"(%\w+): ", head[:head.index(") kernel")])


def test_schedule_arithmetic_covers_every_block():
    """The kernel text's own index arithmetic (its prologue, the items'
    decoding and the combine's piece count, evaluated as 32-bit unsigned
    integers) on the scalars DecodePlan packs for both kernels, both
    schedules, contiguous and paged: every key block of every sequence
    (lengths negative, 0, 1, past the capacity clamped) to exactly one
    (CTA, item) of the producer's, each unit's pieces numbered 0 .. pieces
    - 1 by their CTAs, the combine counting the same pieces; split items
    divide the sequence's own blocks, not its capacity's (no split more
    than cdiv(blocks, splits): a cache far larger than its sequences)."""
    from tile.ops import decode_attention as da
    config = DecodeAttentionConfig()
    source = da.decode_attention_source(config)
    start = source.index("      %units_b = ")
    prologue = source[start:source.index("      %sq_ = ", start)]
    item_ir = re.sub(r"%seqlen_raw = scf.if .*?\n}\n", "", da.ITEM_IR, flags=re.S)
    start = source.rindex("\n", 0, source.index("%cr_ubase = ")) + 1
    combine_ir = source[start:source.index("scf.if %cr_combines")]
    main_names = kernel_parameters(source, config.name)[10:]
    combine_names = kernel_parameters(source, "decode_attention_combine")[3:]
    mask = 2**32 - 1
    # (batch, Sq, H, Hkv, capacity, page or 0)
    cases = [(17, 1, 32, 8, 4096, 0), (50, 1, 32, 8, 4096, 0), (18, 1, 32, 8, 1024, 0),
             (20, 1, 32, 8, 4097, 0), (70, 3, 8, 2, 1000, 0), (9, 16, 64, 8, 300, 0),
             (200, 1, 8, 8, 200, 0), (33, 1, 32, 8, 256, 0), (140, 1, 8, 8, 100, 0),
             (10, 1, 8, 8, 1, 0), (30, 1, 32, 8, 4096, 16), (24, 2, 32, 8, 2048, 256),
             (9, 1, 32, 8, 32768, 0), (10, 1, 32, 8, 131072, 64)]
    chosen = set()
    for batch, sq, heads, kv_heads, capacity, page in cases:
        # (And a 32nd and a 7th of the capacity: several blocks in a cache
        # far larger.)
        lengths = [capacity, 0, 1, -5, -2**31, capacity + 5, 2 * capacity, capacity // 32 + 5,
                   capacity // 7] + [(37 * b) % (capacity + 1) for b in range(9, batch)]
        # The rule's schedule, split items, streamed ranges, 3 splits (of
        # blocks that 3 does not divide: the last split ends past them).
        for forced in (None, False, True, 3):
            rule = da.streams_units
            if isinstance(forced, bool):
                da.streams_units = lambda *a: forced
            try:
                plan = da.plan_decode("bf16", 132, batch, sq, heads, kv_heads, 128,
                                      page=page or capacity, capacity=capacity,
                                      paged=bool(page), scale_log2=1.0, causal=False,
                                      splits=3 if forced == 3 else 0)
            finally:
                da.streams_units = rule
            if forced is None:
                chosen.add(plan.stream)
            rows_too = plan.stream and sq == 1
            packed = (plan.shape_scalars + (0, 1, 0) + plan.mask_scalars
                      + (plan.direct or rows_too, plan.fused, plan.stream, plan.unit_blocks))
            args = dict(zip(main_names, (int(x) for x in packed)))
            args.update({"%cta": 0, "%ctas": plan.grid[0], "%c0": 0, "%c1": 1, "%c127": 127,
                         "%c128": 128, "%true": 1, "%false": 0,
                         "%table_pages": capacity // page if page else 1})
            combine_args = dict(zip(combine_names, (int(x) for x in plan.combine_scalars
                                                    + (rows_too, plan.stream))))
            combine_args.update({"%c0": 0, "%c1": 1, "%true": 1})
            units_b = args["%kv_heads"] * args["%row_tiles"]
            splits = args["%splits"]
            seen, pieces_of = {}, {}
            for cta in range(plan.grid[0]):
                top = run_index_ir(prologue, dict(args, **{"%cta": cta}))
                for item in range(top["%item_lb"], top["%item_ub"], top["%item_step"]):
                    b = (item if plan.stream else item // splits) // units_b
                    v = run_index_ir(item_ir, dict(top, **{"%item": item,
                                                          "%seqlen_raw": lengths[b] & mask}))
                    unit = v["%rest"]
                    assert v["%split"] < splits and v["%b"] == b
                    pieces_of.setdefault(unit, []).append((v["%split"], v["%unit_pieces"]))
                    for j in range(v["%j0"], v["%j1"]):
                        assert (unit, j) not in seen, (unit, j)
                        seen[(unit, j)] = cta
                    if not plan.stream:
                        own = da.cdiv(max(0, min(lengths[b], capacity)), 128)
                        assert v["%j1"] - v["%j0"] <= da.cdiv(own, splits), (unit, v["%split"])
            units = batch * units_b
            want = {(u, j) for u in range(units)
                    for j in range(da.cdiv(max(0, min(lengths[u // units_b], capacity)), 128))}
            assert set(seen) == want, (batch, sq, heads, capacity, page, plan.stream)
            assert sorted(pieces_of) == list(range(units))
            for unit, got in pieces_of.items():
                count = got[0][1]
                assert sorted(got) == [(i, count) for i in range(count)], (unit, got)
                combine = run_index_ir(combine_ir, dict(combine_args, **{"%cr_bug": unit}))
                assert combine["%cr_splits"] == count
                # A whole unit of one query was stored by its CTA: the
                # combine passes over it exactly then.
                assert combine["%cr_combines"] == int(not (rows_too and count == 1))
    assert chosen == {False, True}  # the rule streams some cases, not all


def test_gathered_pages_reach():
    """Pages below 64 tokens are gathered by cp.async unless the pool spans
    more elements than 32-bit indices reach; then TMA boxes."""
    from tile.ops.decode_attention import GATHER_REACH, config_for
    from tile.ops.kvcache import span_elements
    assert config_for("bf16", 128, 16, True, GATHER_REACH).gathers
    wide = config_for("bf16", 128, 16, True, GATHER_REACH + 1)
    assert not wide.gathers and wide.name == "decode_attention_d128_p16_boxes"
    assert wide.registers == config_for("bf16", 128, 16, True).registers
    assert not config_for("bf16", 128, 128, True).gathers

    class View:  # a torch tensor's shape and strides
        def __init__(self, shape, strides):
            self.shape, self.strides = shape, strides

        def stride(self):
            return self.strides
    assert span_elements(View((4, 16, 8, 128), (16384, 1024, 128, 1))) == 4 * 16 * 8 * 128
    # The first 128 of 256 columns: the last row's unused half is not spanned.
    assert span_elements(View((4, 16, 8, 128), (32768, 2048, 256, 1))) == 4 * 16 * 8 * 256 - 128


def test_decode_combine_choice():
    """Who combines a split call: units of at most FUSED_COMBINE_ROWS rows
    (Sq x group; one per consumer warp) their last split in eager calls,
    larger ones the combine kernel; one split of one query stores
    directly."""
    from tile.ops.decode_attention import FUSED_COMBINE_ROWS, plan_decode

    def plan(batch, sq, heads, kv_heads, keys):
        return plan_decode("bf16", H100.sms, batch, sq, heads, kv_heads, 128, page=keys,
                           capacity=keys, paged=False, scale_log2=1.0, causal=False)
    assert FUSED_COMBINE_ROWS == 4
    for shape, fused in (((1, 1, 32, 8, 4096), True),    # GQA 4: 4 rows
                         ((2, 4, 8, 8, 4096), True),     # MHA, 4 queries
                         ((1, 2, 32, 8, 4096), False),   # 8 rows
                         ((1, 1, 64, 8, 4096), False),   # GQA 8
                         ((1, 16, 64, 8, 4096), False)):  # 128 rows: two tiles
        decode = plan(*shape)
        assert decode.fused == fused and decode.shape_scalars[-1] > 1, shape
    direct = plan(66, 1, 32, 8, 4096)  # 528 units: four a CTA, one split
    assert direct.direct and not direct.stream and direct.shape_scalars[-1] == 1
    # 512 units: four rounds but for 16 SMs; streaming would save 1.3% by
    # the model, inside STREAM_MARGIN: one split, stored directly.
    assert plan(64, 1, 32, 8, 4096).direct
    # 400 units: the CTAs stream 97 of their 12,800 blocks each, a cut
    # unit's two pieces through the workspace and the combine kernel.
    streamed = plan(50, 1, 32, 8, 4096)
    assert streamed.stream and not streamed.direct and not streamed.fused
    assert streamed.shape_scalars[-2:] == (97, 2) and streamed.grid == (132, 1, 1)


@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_decode_kernels_compile(element):
    """Every page size and head dim compiles (the protocol checker and
    tile-check-target run in the pipeline) with the launch contract
    tile.ops.decode_attention passes."""
    for d, rows, gather in itertools.product((64, 128), PAGE_ROWS, (True, False)):
        if not gather and rows >= GATHER_BELOW:
            continue  # by TMA boxes either way
        config = DecodeAttentionConfig(element, d, rows, gather=gather)
        manifest = DECODE_ATTENTION.module(config).manifest["kernels"]
        assert manifest[config.name]["block"][0] == THREADS
        params = manifest[config.name]["params"]
        assert len(params) == 31
        # K and V: TMA maps, or memrefs where pages below GATHER_BELOW
        # tokens are gathered by cp.async.
        kind = "memref" if config.gathers else "tensor_map"
        assert config.gathers == (rows < GATHER_BELOW and gather)
        assert [p["kind"] for p in params[1:3]] == [kind] * 2
        assert manifest[config.name]["dynamic_shared_bytes"] <= 227 * 1024
        assert len(manifest["decode_attention_combine"]["params"]) == 13
    for d in (64, 128):
        append = CACHE_APPEND.module(CacheAppendConfig(element, d))
        params = append.manifest["kernels"]["cache_append"]["params"]
        assert len(params) == 11
        # 64-bit offsets: a cache may hold more than 2^31 elements.
        assert "index-bitwidth" not in CACHE_APPEND.options
        # 16-byte moves: the launch checks the rows' and caches' alignment.
        assert all(p.get("alignment", 0) >= 16 for p in params[:4])
    assert config_for("bf16", 128, 16, True).page_rows == 16
    assert config_for("bf16", 128, 256, True).page_rows == 128
    assert config_for("bf16", 128, 5000, False).page_rows == 128


# --- On the GPU -----------------------------------------------------------------------

@pytest.fixture
def hopper(torch_cuda):
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs sm_90a")
    return torch_cuda


def visible(torch, sq: int, sk: int, lo=None, hi=None):
    """(Sq, Sk) mask: key j seen by query i where i + lo <= j <= i + hi
    (None: unbounded)."""
    i = torch.arange(sq, device="cuda")[:, None]
    j = torch.arange(sk, device="cuda")[None, :]
    seen = torch.ones(sq, sk, dtype=torch.bool, device="cuda")
    if lo is not None:
        seen &= j >= i + lo
    if hi is not None:
        seen &= j <= i + hi
    return seen


def reference(torch, q, k, v, lo=None, hi=None, scale=None, lengths=None, softcap=0.0):
    """float32 attention of (B, H, Sq, D) q over (B, Hkv, Sk, D) k, v: key j
    seen by query i where i + lo <= j <= i + hi (None: unbounded) and
    j < lengths[b]; scores capped at softcap tanh(s / softcap) if given;
    rows that see no key are 0."""
    group = q.shape[1] // k.shape[1]
    q, k, v = q.float(), k.float().repeat_interleave(group, 1), v.float().repeat_interleave(group, 1)
    scores = q @ k.transpose(-2, -1) * (q.shape[-1] ** -0.5 if scale is None else scale)
    if softcap:
        scores = softcap * torch.tanh(scores / softcap)
    j = torch.arange(k.shape[2], device="cuda")[None, :]
    seen = visible(torch, q.shape[2], k.shape[2], lo, hi)[None, None].expand(
        q.shape[0], 1, -1, -1)
    if lengths is not None:
        seen = seen & (j[None, None] < lengths.view(-1, 1, 1, 1).to(j.device))
    scores = scores.masked_fill(~seen, float("-inf"))
    probs = scores.softmax(-1).nan_to_num(0.0)
    return probs @ v


def sdpa_error(torch, q, k, v, want, lo, hi, scale=None):
    """SDPA's max abs error against `want` on the same inputs and mask."""
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    seen = visible(torch, q.shape[2], k.shape[2], lo, hi)
    theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=seen,
                                                              scale=scale)
    rows = seen.any(-1)
    return (theirs.float() - want).abs()[..., rows, :].max().item()


def assert_close(torch, out, want, bound_from, dtype):
    floor = 2e-3 if dtype == torch.bfloat16 else 1e-3
    bound = max(2 * bound_from, floor)
    error = (out.float() - want).abs().max().item()
    assert error <= bound, f"max abs error {error:.3g}, SDPA's x 2 {bound:.3g}"


def randn(torch, *shape, dtype=None, seed=0):
    generator = torch.Generator(device="cuda").manual_seed(seed)
    return torch.randn(*shape, device="cuda", dtype=dtype or torch.bfloat16, generator=generator)


@pytest.mark.parametrize("heads, kv_heads", [(32, 8), (8, 1), (6, 2)])
@pytest.mark.parametrize("d", [64, 128])
def test_gqa_prefill(hopper, heads, kv_heads, d):
    import tile
    torch = hopper
    q = randn(torch, 2, heads, 333, d, seed=1)
    k, v = randn(torch, 2, kv_heads, 333, d, seed=2), randn(torch, 2, kv_heads, 333, d, seed=3)
    for causal in (False, True):
        out = tile.attention(q, k, v, causal=causal, enable_gqa=True)
        theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                  enable_gqa=True)
        want = reference(torch, q, k, v, hi=0 if causal else None)
        torch.cuda.synchronize()
        assert_close(torch, out, want, (theirs.float() - want).abs().max().item(), q.dtype)


@pytest.mark.parametrize("sq, sk", [(1, 1000), (77, 1000), (512, 4096), (300, 301), (128, 128)])
def test_bottom_right_causal(hopper, sq, sk):
    """Queries that end the keys: query i sees keys j <= i + Sk - Sq (the
    decode kernels for Sq <= 16, the prefill kernel above)."""
    import tile
    torch = hopper
    q, k, v = (randn(torch, 1, 8, s, 128, seed=s + i) for i, s in enumerate((sq, sk, sk)))
    out = tile.attention(q, k, v, causal="bottom_right")
    want = reference(torch, q, k, v, hi=sk - sq)
    torch.cuda.synchronize()
    assert_close(torch, out, want, sdpa_error(torch, q, k, v, want, None, sk - sq), q.dtype)
    if sk > sq:
        with pytest.raises(MatmulError, match="needs Sq <= Sk"):
            tile.attention(k, q, q, causal="bottom_right")


@pytest.mark.parametrize("causal, window", [(True, (100, 0)), (True, (255, -1)),
                                            (False, (64, 64)), (False, (0, 300)),
                                            ("bottom_right", (200, 0)), (False, (-1, 64))])
@pytest.mark.parametrize("d", [64, 128])
def test_sliding_windows(hopper, causal, window, d):
    """Windows at both head dims: with a left edge, the variants that
    compare it in every masked block; with an unbounded left (causal's
    (255, -1) too), the variants without its compares."""
    import tile
    torch = hopper
    q, k, v = (randn(torch, 2, 4, 700, d, dtype=torch.float16, seed=i) for i in range(3))
    out = tile.attention(q, k, v, causal=causal, window_size=window)
    left, right = window_edges("x" if causal else None, window)
    lo = None if left == UNBOUNDED else -left
    hi = None if right == UNBOUNDED else right
    want = reference(torch, q, k, v, lo=lo, hi=hi)
    torch.cuda.synchronize()
    assert_close(torch, out, want, sdpa_error(torch, q, k, v, want, lo, hi), q.dtype)


def test_rows_that_see_no_key_are_zero(hopper):
    """Top-left causal with more queries than keys and a window: rows from
    Sk + 10 on see no key (their window lies past the last one)."""
    import tile
    torch = hopper
    q = randn(torch, 1, 2, 300, 64, seed=5)
    k, v = randn(torch, 1, 2, 100, 64, seed=6), randn(torch, 1, 2, 100, 64, seed=7)
    out = tile.attention(q, k, v, causal=True, window_size=(10, 0))
    want = reference(torch, q, k, v, lo=-10, hi=0)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all() and (out[:, :, 110:] == 0).all()
    assert_close(torch, out, want, sdpa_error(torch, q, k, v, want, -10, 0), q.dtype)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads, kv_heads, d", [(8, 8, 128), (16, 4, 64)])
def test_varlen(hopper, causal, heads, kv_heads, d):
    """Packed sequences of 0, 1, 300, 128, 1000 and 77 tokens against
    per-sequence SDPA, one launch."""
    import tile
    torch = hopper
    lengths = [0, 1, 300, 128, 1000, 77]
    cu = torch.tensor([0] + list(itertools_accumulate(lengths)), device="cuda",
                      dtype=torch.int32)
    total = sum(lengths)
    q = randn(torch, total, heads, d, seed=1)
    k, v = randn(torch, total, kv_heads, d, seed=2), randn(torch, total, kv_heads, d, seed=3)
    out = tile.attention_varlen(q, k, v, cu, cu, max(lengths), causal=causal)
    torch.cuda.synchronize()
    for i, n in enumerate(lengths):
        if n == 0:
            continue
        s = slice(int(cu[i]), int(cu[i + 1]))
        qs, ks, vs = (t[s].transpose(0, 1)[None] for t in (q, k, v))
        want = reference(torch, qs, ks, vs, hi=0 if causal else None)
        bound = sdpa_error(torch, qs, ks, vs, want, None, 0 if causal else None)
        assert_close(torch, out[s].transpose(0, 1)[None], want, bound, q.dtype)


@pytest.mark.parametrize("causal, window", [(True, (100, 0)), (False, (64, 64))])
@pytest.mark.parametrize("d", [64, 128])
def test_varlen_windows(hopper, causal, window, d):
    """Packed sequences under a sliding window (the packed variants with the
    left edge's compares) against per-sequence references."""
    import tile
    torch = hopper
    lengths = [1, 300, 128, 700, 77]
    cu = torch.tensor([0] + list(itertools_accumulate(lengths)), device="cuda",
                      dtype=torch.int32)
    total = sum(lengths)
    q = randn(torch, total, 8, d, seed=1)
    k, v = randn(torch, total, 2, d, seed=2), randn(torch, total, 2, d, seed=3)
    out = tile.attention_varlen(q, k, v, cu, cu, max(lengths), causal=causal,
                                window_size=window)
    torch.cuda.synchronize()
    left, right = window_edges("x" if causal else None, window)
    for i, n in enumerate(lengths):
        s = slice(int(cu[i]), int(cu[i + 1]))
        qs, ks, vs = (t[s].transpose(0, 1)[None] for t in (q, k, v))
        want = reference(torch, qs, ks, vs, lo=-left, hi=right)
        bound = sdpa_error(torch, qs, ks, vs, want, -left, right)
        assert_close(torch, out[s].transpose(0, 1)[None], want, bound, q.dtype)


def test_varlen_queries_and_keys_differ(hopper):
    """cu_seqlens_q != cu_seqlens_k: causal at each sequence's bottom right
    (flash_attn's), with a sequence of more queries than keys (its first
    rows see no key: 0) and one of no queries."""
    import tile
    torch = hopper
    lq, lk = [5, 100, 0, 30, 37], [50, 100, 20, 10, 300]
    cu_q = torch.tensor([0] + list(itertools_accumulate(lq)), device="cuda", dtype=torch.int32)
    cu_k = torch.tensor([0] + list(itertools_accumulate(lk)), device="cuda", dtype=torch.int32)
    q = randn(torch, sum(lq), 8, 128, seed=1)
    k, v = randn(torch, sum(lk), 2, 128, seed=2), randn(torch, sum(lk), 2, 128, seed=3)
    out = tile.attention_varlen(q, k, v, cu_q, cu_k, max(lq), causal=True)
    torch.cuda.synchronize()
    for i, (nq, nk) in enumerate(zip(lq, lk)):
        if nq == 0:
            continue
        sq_, sk_ = slice(int(cu_q[i]), int(cu_q[i + 1])), slice(int(cu_k[i]), int(cu_k[i + 1]))
        qs = q[sq_].transpose(0, 1)[None]
        ks, vs = k[sk_].transpose(0, 1)[None], v[sk_].transpose(0, 1)[None]
        want = reference(torch, qs, ks, vs, hi=nk - nq)
        got = out[sq_].transpose(0, 1)[None]
        assert_close(torch, got, want, sdpa_error(torch, qs, ks, vs, want, None, nk - nq), q.dtype)
        if nq > nk:
            assert (got[:, :, :nq - nk] == 0).all()


def test_varlen_many_sequences(hopper):
    """A skewed batch: 300 sequences of 0 to 130 tokens and one of 2000 (the
    kernel's units are the packed row tiles, each finding its sequence by a
    binary search of cu_seqlens), causal, GQA 8/2, against per-sequence
    SDPA on a sample of them; every row written (NaN before the call)."""
    import random
    import tile
    torch = hopper
    rng = random.Random(3)
    lengths = [rng.randrange(0, 131) for _ in range(150)] + [2000]
    lengths += [rng.randrange(0, 131) for _ in range(150)]
    cu = torch.tensor([0] + list(itertools_accumulate(lengths)), device="cuda",
                      dtype=torch.int32)
    total = sum(lengths)
    q = randn(torch, total, 8, 128, seed=1)
    k, v = randn(torch, total, 2, 128, seed=2), randn(torch, total, 2, 128, seed=3)
    out = torch.full_like(q, float("nan"))
    tile.attention_varlen(q, k, v, cu, cu, max(lengths), causal=True, out=out)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
    for i in [0, 1, 2, 149, 150, 151, 299, 300] + rng.sample(range(301), 12):
        if lengths[i] == 0:
            continue
        s = slice(int(cu[i]), int(cu[i + 1]))
        qs, ks, vs = (t[s].transpose(0, 1)[None] for t in (q, k, v))
        want = reference(torch, qs, ks, vs, hi=0)
        bound = sdpa_error(torch, qs, ks, vs, want, None, 0)
        assert_close(torch, out[s].transpose(0, 1)[None], want, bound, q.dtype)


def itertools_accumulate(values):
    total = 0
    for value in values:
        total += value
        yield total


def test_varlen_sequences_without_keys(hopper):
    """A sequence with queries and no keys: its rows are 0."""
    import tile
    torch = hopper
    cu_q = torch.tensor([0, 5, 10], device="cuda", dtype=torch.int32)
    cu_k = torch.tensor([0, 0, 7], device="cuda", dtype=torch.int32)
    q = randn(torch, 10, 2, 64, seed=1)
    k, v = randn(torch, 7, 2, 64, seed=2), randn(torch, 7, 2, 64, seed=3)
    out = tile.attention_varlen(q, k, v, cu_q, cu_k, 5)
    torch.cuda.synchronize()
    assert (out[:5] == 0).all()
    qs, ks, vs = q[5:].transpose(0, 1)[None], k.transpose(0, 1)[None], v.transpose(0, 1)[None]
    want = reference(torch, qs, ks, vs)
    bound = sdpa_error(torch, qs, ks, vs, want, None, None)
    assert_close(torch, out[5:].transpose(0, 1)[None], want, bound, q.dtype)


@pytest.mark.parametrize("batch, sq, heads, kv_heads, sk", [
    (1, 1, 32, 8, 4096), (4, 1, 32, 8, 1000), (3, 4, 16, 2, 777), (2, 16, 8, 8, 300),
    (2, 1, 8, 1, 129), (1, 3, 64, 8, 5000),
    # One key block: one split, stored directly; 72 heads on one KV head
    # are two row tiles.
    (3, 1, 72, 1, 100), (2, 1, 32, 8, 128),
    # 16 queries x 8 heads a group: two row tiles through the combine.
    (1, 16, 64, 8, 500)])
def test_sdpa_shaped_decode(hopper, batch, sq, heads, kv_heads, sk):
    """Sq <= 16: the split-KV kernels, without a mask and bottom-right; one
    split (direct store) and several, one row tile and two."""
    import tile
    torch = hopper
    q = randn(torch, batch, heads, sq, 128, seed=1)
    k, v = randn(torch, batch, kv_heads, sk, 128, seed=2), randn(torch, batch, kv_heads, sk, 128,
                                                                  seed=3)
    for causal in (False, "bottom_right"):
        out = tile.attention(q, k, v, causal=causal, enable_gqa=True)
        hi = sk - sq if causal else None
        want = reference(torch, q, k, v, hi=hi)
        torch.cuda.synchronize()
        assert out.shape == q.shape and out.is_contiguous()
        assert_close(torch, out, want, sdpa_error(torch, q, k, v, want, None, hi), q.dtype)


def test_decode_fused_combine(hopper):
    """Units of at most FUSED_COMBINE_ROWS rows (a GQA group of 4 at one
    query, 4 queries of one head): in eager calls the unit's last split
    combines, in one launch. The arrival counters are left zero by every
    launch, so repeated calls and other batches on the stream's workspace
    stay right; the larger units, and captured calls (CUDA graphs), run the
    combine kernel, which gives the same bits."""
    import tile
    from tile.ops import attention, decode_attention
    torch = hopper
    k, v = randn(torch, 4, 8, 3000, 128, seed=2), randn(torch, 4, 8, 3000, 128, seed=3)

    def check(batch, sq, heads, fused):
        q = randn(torch, batch, heads, sq, 128, seed=batch + sq)
        kb, vb = k[:batch], v[:batch]
        attention.DECODE_PLANS.clear()
        attention.READY.clear()
        outs = [tile.attention(q, kb, vb, enable_gqa=True) for _ in range(3)]
        torch.cuda.synchronize()
        (plan,) = attention.DECODE_PLANS._values.values()
        assert plan.fused == fused and plan.shape_scalars[-1] > 1  # splits
        want = reference(torch, q, kb, vb)
        for out in outs:
            assert_close(torch, out, want, sdpa_error(torch, q, kb, vb, want, None, None),
                         q.dtype)
        return q, kb, vb, want, outs[0]

    for batch, sq, heads, fused in ((1, 1, 32, True), (4, 1, 32, True), (2, 4, 8, True),
                                    (3, 1, 64, False), (1, 1, 32, True)):
        check(batch, sq, heads, fused)
    for ws_o, ws_lse, counters, lock in decode_attention.WORKSPACES._values.values():
        assert int(torch.count_nonzero(counters)) == 0
    # Replays of a captured decode (its workspace the capture stream's).
    q, kb, vb, want, eager = check(2, 1, 32, True)
    out = torch.empty_like(q)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        tile.attention(q, kb, vb, enable_gqa=True, out=out)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph, stream=stream):
        for _ in range(3):
            tile.attention(q, kb, vb, enable_gqa=True, out=out)
    for _ in range(3):
        out.zero_()
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(out, eager)


def poison_past(caches, lengths):
    """NaN in each cache's slots past sequence b's lengths[b]: the kernels
    must not let them into the output (they read whole blocks)."""
    for cache in caches:
        for b, n in enumerate(lengths.tolist()):
            cache[b, n:] = float("nan")


def paged_cache(torch, k_cache, page, seed=0):
    """The contiguous (B, S, Hkv, D) cache as shuffled pages of `page`
    tokens and its block table (three more pages, of NaN, in the pool)."""
    batch, s, kv_heads, d = k_cache.shape
    pages = s // page
    generator = torch.Generator(device="cpu").manual_seed(seed)
    order = torch.randperm(batch * pages + 3, generator=generator)[:batch * pages]
    table = order.view(batch, pages).to(device="cuda", dtype=torch.int32)
    paged = torch.full((batch * pages + 3, page, kv_heads, d), float("nan"), device="cuda",
                       dtype=k_cache.dtype)
    paged[table.long().flatten()] = k_cache.view(batch * pages, page, kv_heads, d)
    return paged, table


def decode_caches(torch, batch, s, kv_heads, d, lengths, page):
    """Contiguous (B, S, Hkv, D) K and V caches (slots past `lengths`
    poisoned) and the caches a call takes: those, or (page is not None)
    their shuffled pages and block table: (k, v, (k or pages, v or pages),
    table or None)."""
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    poison_past((k_cache, v_cache), lengths)
    if page is None:
        return k_cache, v_cache, (k_cache, v_cache), None
    (k_paged, table), (v_paged, _) = (paged_cache(torch, c, page, seed=page)
                                      for c in (k_cache, v_cache))
    return k_cache, v_cache, (k_paged, v_paged), table


@pytest.mark.parametrize("page", [16, 32, 64, 128, 256])
@pytest.mark.parametrize("d", [64, 128])
def test_kvcache_paged_and_contiguous(hopper, page, d):
    import tile
    torch = hopper
    batch, sq, heads, kv_heads, s = 3, 2, 16, 4, 1024
    q = randn(torch, batch, sq, heads, d, seed=1)
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    lengths = torch.tensor([1000, 17, 513], device="cuda", dtype=torch.int32)
    poison_past((k_cache, v_cache), lengths)
    contiguous = tile.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=lengths,
                                             causal=True)
    k_paged, table = paged_cache(torch, k_cache, page, seed=page)
    v_paged, _ = paged_cache(torch, v_cache, page, seed=page)
    paged = tile.attention_with_kvcache(q, k_paged, v_paged, cache_seqlens=lengths,
                                        block_table=table, causal=True)
    torch.cuda.synchronize()
    assert_bottom_right(torch, (contiguous, paged), q, (k_cache, v_cache), lengths)


@pytest.mark.parametrize("page", [None, 16, 128])
def test_decode_several_items_a_cta(hopper, page):
    """More units than SMs (a persistent CTA takes several, each its
    consumers' block parity carried on) with uneven lengths, one split, four
    and the rule's schedule, contiguous and paged caches."""
    import tile
    torch = hopper
    batch, heads, kv_heads, s, d = 70, 8, 2, 1024, 128
    generator = torch.Generator(device="cpu").manual_seed(5)
    lengths = torch.randint(1, s + 1, (batch,), generator=generator).to("cuda", torch.int32)
    q = randn(torch, batch, 1, heads, d, seed=1)
    k_cache, v_cache, caches, table = decode_caches(torch, batch, s, kv_heads, d, lengths, page)
    # One split, four (several items a CTA, the combine kernel) and the
    # rule's (the CTAs streaming ranges of the units' blocks).
    outs = [tile.attention_with_kvcache(q, *caches, cache_seqlens=lengths, block_table=table,
                                        num_splits=splits) for splits in (1, 4, 0)]
    torch.cuda.synchronize()
    assert_bottom_right(torch, outs, q, (k_cache, v_cache), lengths)


@pytest.mark.parametrize("page", [None, 64])
def test_decode_cache_far_larger_than_its_sequences(hopper, page):
    """A cache sized for long sequences (the splits chosen for its 16k
    keys) holding a few thousand keys, one and a few hundred: each
    sequence's splits divide its own blocks, past them the slots are NaN.
    The right numbers here; that the work is spread over the splits (a
    division by the capacity was right too, only slow) is
    test_schedule_arithmetic_covers_every_block's."""
    import tile
    torch = hopper
    batch, heads, kv_heads, s, d = 3, 32, 8, 16384, 128
    lengths = torch.tensor([4097, 1, 300], device="cuda", dtype=torch.int32)
    q = randn(torch, batch, 1, heads, d, seed=1)
    k_cache, v_cache, caches, table = decode_caches(torch, batch, s, kv_heads, d, lengths, page)
    out = tile.attention_with_kvcache(q, *caches, cache_seqlens=lengths, block_table=table)
    torch.cuda.synchronize()
    assert_bottom_right(torch, (out,), q, (k_cache, v_cache), lengths)


@pytest.mark.parametrize("sq, strided_out, page", [(1, False, None), (1, True, None),
                                                   (2, False, None), (1, False, 16),
                                                   (3, False, 64)])
def test_decode_streamed_ranges(hopper, sq, strided_out, page):
    """More units than SMs, streamed: each CTA an equal range of the units'
    blocks, the units its range cuts combined from their pieces, the whole
    ones stored directly (one query, a contiguous out) or through the
    combine; lengths of 0, 1 and the capacity among them; against one
    split a unit and the float32 reference."""
    import tile
    from tile.ops import decode_attention, kvcache
    torch = hopper
    batch, heads, kv_heads, s, d = 70, 8, 2, 1024, 128
    generator = torch.Generator(device="cpu").manual_seed(7)
    lengths = torch.randint(1, s + 1, (batch,), generator=generator)
    lengths[:3] = torch.tensor([0, 1, s])
    lengths = lengths.to("cuda", torch.int32)
    q = randn(torch, batch, sq, heads, d, seed=1)
    k_cache, v_cache, caches, table = decode_caches(torch, batch, s, kv_heads, d, lengths, page)
    units = batch * kv_heads * decode_attention.cdiv(sq * heads // kv_heads, 64)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert decode_attention.streams_units(units, s // 128, sms)
    outs = []
    kvcache.PLANS.clear()
    for splits in (1, 0):
        # NaN where nothing is written: every row must be.
        out = (torch.full((batch, heads, sq, d), float("nan"), device="cuda",
                          dtype=q.dtype).transpose(1, 2) if strided_out else
               torch.full((batch, sq, heads, d), float("nan"), device="cuda", dtype=q.dtype))
        outs.append(tile.attention_with_kvcache(q, *caches, cache_seqlens=lengths,
                                                block_table=table, causal=True,
                                                num_splits=splits, out=out))
    assert [plan.decode.stream for plan in kvcache.PLANS._values.values()] == [False, True]
    torch.cuda.synchronize()
    for out in outs:  # no keys: zeros
        assert (out[0] == 0).all()
    assert_bottom_right(torch, [out[1:] for out in outs], q[1:],
                        (k_cache[1:], v_cache[1:]), lengths[1:])


@pytest.mark.parametrize("page", [16, 32])
def test_decode_pool_past_32_bits(hopper, page):
    """Pages below 64 tokens in a pool of more than 2^31 elements (4 GB of
    bf16 each for K and V): by TMA boxes, whose coordinates reach every page
    (the gathers' 32-bit addresses would not); pages at both ends of the
    pool."""
    import tile
    from tile.ops import kvcache
    torch = hopper
    batch, s, kv_heads, d = 2, 256, 8, 128
    pool = (2**31 // (page * kv_heads * d)) + 8
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    lengths = torch.tensor([s, 100], device="cuda", dtype=torch.int32)
    pages = s // page
    ids = torch.cat([torch.arange(pool - pages, pool), torch.arange(pages)])
    table = ids.view(batch, pages).to("cuda", torch.int32)
    caches = []
    for cache in (k_cache, v_cache):
        paged = torch.empty((pool, page, kv_heads, d), device="cuda", dtype=cache.dtype)
        paged[table.long().flatten()] = cache.view(batch * pages, page, kv_heads, d)
        caches.append(paged)
    q = randn(torch, batch, 1, 32, d, seed=1)
    kvcache.PLANS.clear()
    out = tile.attention_with_kvcache(q, *caches, cache_seqlens=lengths, block_table=table)
    (plan,) = kvcache.PLANS._values.values()
    assert plan.decode.kernel.name.endswith(f"p{page}_boxes")
    torch.cuda.synchronize()
    assert_bottom_right(torch, [out], q, (k_cache, v_cache), lengths)
    del caches


def assert_bottom_right(torch, outs, q, caches, lengths):
    """Each of `outs` (B, Sq, H, D) against the float32 reference of q over
    sequence b's lengths[b] keys of the contiguous (B, S, Hkv, D) caches,
    causal at the bottom right, within SDPA's error."""
    sq = q.shape[1]
    for b in range(q.shape[0]):
        n = int(lengths[b])
        qb = q[b:b + 1].transpose(1, 2)
        kb, vb = (c[b:b + 1, :n].transpose(1, 2) for c in caches)
        want = reference(torch, qb, kb, vb, hi=n - sq)
        bound = sdpa_error(torch, qb, kb, vb, want, None, n - sq)
        for out in outs:
            assert_close(torch, out[b:b + 1].transpose(1, 2), want, bound, q.dtype)


def test_kvcache_append_in_place(hopper):
    """k and v appended at cache_seqlens (contiguous and paged), then
    attended to; nothing else in the caches changes."""
    import tile
    torch = hopper
    batch, heads, kv_heads, d, s, page = 2, 8, 2, 128, 512, 64
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    k_new, v_new = randn(torch, batch, 3, kv_heads, d, seed=4), randn(torch, batch, 3, kv_heads,
                                                                      d, seed=5)
    q = randn(torch, batch, 3, heads, d, seed=1)
    lengths = torch.tensor([100, 300], device="cuda", dtype=torch.int32)
    k_paged, table = paged_cache(torch, k_cache.clone(), page, seed=1)
    v_paged, _ = paged_cache(torch, v_cache.clone(), page, seed=1)
    before_k = k_cache.clone()
    out = tile.attention_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=lengths,
                                      causal=True)
    out_paged = tile.attention_with_kvcache(q, k_paged, v_paged, k_new, v_new,
                                            cache_seqlens=lengths, block_table=table, causal=True)
    torch.cuda.synchronize()
    for b in range(batch):
        n = int(lengths[b])
        assert torch.equal(k_cache[b, n:n + 3], k_new[b])
        assert torch.equal(k_cache[b, :n], before_k[b, :n])
        assert torch.equal(k_cache[b, n + 3:], before_k[b, n + 3:])
        qb = q[b:b + 1].transpose(1, 2)
        kb, vb = (c[b:b + 1, :n + 3].transpose(1, 2) for c in (k_cache, v_cache))
        want = reference(torch, qb, kb, vb, hi=n)
        bound = sdpa_error(torch, qb, kb, vb, want, None, n)
        assert_close(torch, out[b:b + 1].transpose(1, 2), want, bound, q.dtype)
        assert_close(torch, out_paged[b:b + 1].transpose(1, 2), want, bound, q.dtype)


@pytest.mark.parametrize("page,d,dtype", [(None, 128, "bfloat16"), (16, 64, "float16"),
                                          (256, 128, "bfloat16")])
def test_kvcache_append_one_length(hopper, page, d, dtype):
    """One cache_seqlens for every sequence (an int), k and v strided
    views of a fused QKV projection's output: the rows land at length ..
    length + 2 of each sequence (or its pages), the queries see them."""
    import tile
    torch = hopper
    dt = getattr(torch, dtype)
    batch, heads, kv_heads, s, n, length = 3, 8, 2, 512, 2, 303  # rows 303, 304: a page edge
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2).to(dt)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3).to(dt)
    qkv = randn(torch, batch, n, heads + 2 * kv_heads, d, seed=4).to(dt)
    q, k_new, v_new = qkv[:, :, :heads], qkv[:, :, heads:heads + kv_heads], qkv[:, :, heads + kv_heads:]
    assert not k_new.is_contiguous()
    reference_k, reference_v = k_cache.clone(), v_cache.clone()
    reference_k[:, length:length + n], reference_v[:, length:length + n] = k_new, v_new
    if page is None:
        out = tile.attention_with_kvcache(q, k_cache, v_cache, k_new, v_new,
                                          cache_seqlens=length, causal=True)
        written = k_cache, v_cache
    else:
        k_paged, table = paged_cache(torch, k_cache.clone(), page, seed=1)
        v_paged, _ = paged_cache(torch, v_cache.clone(), page, seed=1)
        out = tile.attention_with_kvcache(q, k_paged, v_paged, k_new, v_new,
                                          cache_seqlens=length, block_table=table, causal=True)
        written = tuple(c[table.long()].reshape(batch, s, kv_heads, d) for c in (k_paged, v_paged))
    torch.cuda.synchronize()
    assert torch.equal(written[0], reference_k) and torch.equal(written[1], reference_v)
    for b in range(batch):
        qb = q[b:b + 1].transpose(1, 2)
        kb, vb = (c[b:b + 1, :length + n].transpose(1, 2) for c in (reference_k, reference_v))
        want = reference(torch, qb, kb, vb, hi=length)
        bound = sdpa_error(torch, qb, kb, vb, want, None, length)
        assert_close(torch, out[b:b + 1].transpose(1, 2), want, bound, q.dtype)


@pytest.mark.parametrize("causal", [True, False])
def test_kvcache_prefill_chunk(hopper, causal):
    """A chunk of 512 queries (appended) against a contiguous cache with
    one length runs the prefill kernel (its tiles fill the SMs); the
    result is attention over the cache's first length + 512 keys."""
    import tile
    from tile.ops import kvcache
    torch = hopper
    batch, sq, heads, kv_heads, d, s, length = 4, 512, 8, 2, 128, 2048, 600
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    q = randn(torch, batch, sq, heads, d, seed=1)
    k_new, v_new = randn(torch, batch, sq, kv_heads, d, seed=4), randn(torch, batch, sq,
                                                                       kv_heads, d, seed=5)
    kvcache.PLANS.clear()
    out = tile.attention_with_kvcache(q, k_cache, v_cache, k_new, v_new, cache_seqlens=length,
                                      causal=causal)
    torch.cuda.synchronize()
    (plan,) = kvcache.PLANS._values.values()
    assert plan.prefill
    n = length + sq
    assert torch.equal(k_cache[:, length:n], k_new) and torch.equal(v_cache[:, length:n], v_new)
    for b in range(batch):
        qb = q[b:b + 1].transpose(1, 2)
        kb, vb = (c[b:b + 1, :n].transpose(1, 2) for c in (k_cache, v_cache))
        hi = length if causal else None
        want = reference(torch, qb, kb, vb, hi=hi)
        bound = sdpa_error(torch, qb, kb, vb, want, None, hi)
        assert_close(torch, out[b:b + 1].transpose(1, 2), want, bound, q.dtype)


@pytest.mark.parametrize("page,d,causal,uniform", [
    (16, 128, True, False), (32, 64, True, False), (32, 128, False, False),
    (64, 128, False, False),
    (128, 128, True, False), (256, 64, True, False), (16, 64, True, True),
    (128, 128, False, True), (None, 128, True, False), (None, 64, False, False)])
def test_kvcache_prefill_cache_variant(hopper, page, d, causal, uniform):
    """A chunk of 512 queries (appended) against a paged cache with
    per-sequence lengths (or one for all), or a contiguous one with
    per-sequence lengths (page None), runs the prefill kernel's KV-cache
    variant: attention over each sequence's seqlens[b] + 512 keys, K and V
    through the block table (a box a page of 16 or 32 tokens, 64-row boxes
    inside larger pages) or the dense maps. The slots past each sequence
    hold NaN."""
    import tile
    from tile.ops import kvcache
    torch = hopper
    batch, sq, heads, kv_heads, s = 4, 512, 8, 2, 2048
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    q = randn(torch, batch, sq, heads, d, seed=1)
    k_new, v_new = randn(torch, batch, sq, kv_heads, d, seed=4), randn(torch, batch, sq,
                                                                       kv_heads, d, seed=5)
    lengths = torch.tensor([600, 17, 1500, 0], device="cuda", dtype=torch.int32)
    if uniform:
        lengths = torch.full((batch,), 777, device="cuda", dtype=torch.int32)
    poison_past((k_cache, v_cache), lengths)
    if page is None:
        k_paged, v_paged, table = k_cache, v_cache, None
    else:
        k_paged, table = paged_cache(torch, k_cache.clone(), page, seed=1)
        v_paged, _ = paged_cache(torch, v_cache.clone(), page, seed=1)
    kvcache.PLANS.clear()
    out = tile.attention_with_kvcache(q, k_paged, v_paged, k_new, v_new,
                                      cache_seqlens=777 if uniform else lengths,
                                      block_table=table, causal=causal)
    torch.cuda.synchronize()
    (plan,) = kvcache.PLANS._values.values()
    assert plan.cache_prefill is not None
    assert plan.cache_prefill.box_rows == (min(page, 64) if page else LENGTHS_ONLY)
    keys = (k_paged, v_paged) if page is None else tuple(
        c[table.long()].reshape(batch, s, kv_heads, d) for c in (k_paged, v_paged))
    for b in range(batch):
        n = int(lengths[b]) + sq
        assert torch.equal(keys[0][b, n - sq:n], k_new[b])
        assert torch.equal(keys[1][b, n - sq:n], v_new[b])
        qb = q[b:b + 1].transpose(1, 2)
        kb, vb = (c[b:b + 1, :n].transpose(1, 2) for c in keys)
        hi = n - sq if causal else None
        want = reference(torch, qb, kb, vb, hi=hi)
        bound = sdpa_error(torch, qb, kb, vb, want, None, hi)
        assert_close(torch, out[b:b + 1].transpose(1, 2), want, bound, q.dtype)


@pytest.mark.parametrize("layout,d,page", [
    ("interleaved", 128, 16), ("interleaved", 64, 32), ("heads_first", 128, 16),
    ("padded_blocks", 128, 16)])
def test_kvcache_prefill_page_strides(hopper, layout, d, page):
    """Paged caches of other strides: K and V interleaved in one tensor
    (blocks, page, 2, Hkv, D), or each stored (blocks, Hkv, page, D) and
    passed permuted: the prefill kernel's page maps take the block stride
    in head strides (tile.ops.kvcache.page_view). Blocks padded by 16
    elements (a block stride no multiple of the head stride) stay on the
    split-KV kernels. All against the per-sequence reference."""
    import tile
    from tile.ops import kvcache
    torch = hopper
    batch, sq, heads, kv_heads, s = 4, 512, 8, 2, 2048
    k_cache = randn(torch, batch, s, kv_heads, d, seed=2)
    v_cache = randn(torch, batch, s, kv_heads, d, seed=3)
    q = randn(torch, batch, sq, heads, d, seed=1)
    lengths = torch.tensor([600, 1100, 2048, 512], device="cuda", dtype=torch.int32)
    poison_past((k_cache, v_cache), lengths)
    k_pages, table = paged_cache(torch, k_cache, page, seed=1)
    v_pages, _ = paged_cache(torch, v_cache, page, seed=1)
    blocks = k_pages.shape[0]
    if layout == "interleaved":
        kv = torch.stack((k_pages, v_pages), dim=2)
        k_paged, v_paged = kv[:, :, 0], kv[:, :, 1]
    elif layout == "heads_first":
        k_paged, v_paged = (p.transpose(1, 2).contiguous().transpose(1, 2)
                            for p in (k_pages, v_pages))
    else:
        block = page * kv_heads * d + 16
        pool = torch.full((2, blocks * block), float("nan"), device="cuda", dtype=q.dtype)
        k_paged, v_paged = (torch.as_strided(pool[i], k_pages.shape, (block, kv_heads * d, d, 1))
                            for i in range(2))
        k_paged.copy_(k_pages)
        v_paged.copy_(v_pages)
    kvcache.PLANS.clear()
    out = tile.attention_with_kvcache(q, k_paged, v_paged, cache_seqlens=lengths,
                                      block_table=table, causal=True)
    torch.cuda.synchronize()
    (plan,) = kvcache.PLANS._values.values()
    assert (plan.cache_prefill is not None) == (layout != "padded_blocks")
    assert_bottom_right(torch, (out,), q, (k_cache, v_cache), lengths)


def test_kvcache_errors(hopper):
    import tile
    torch = hopper
    q = randn(torch, 2, 1, 8, 128)
    cache = randn(torch, 2, 256, 2, 128)
    with pytest.raises(MatmulError, match="multiple of the 3 KV heads"):
        tile.attention_with_kvcache(q, randn(torch, 2, 256, 3, 128), randn(torch, 2, 256, 3, 128))
    with pytest.raises(MatmulError, match="page size 48"):
        tile.attention_with_kvcache(q, randn(torch, 9, 48, 2, 128), randn(torch, 9, 48, 2, 128),
                                    block_table=torch.zeros(2, 3, device="cuda",
                                                            dtype=torch.int32))
    with pytest.raises(MatmulError, match="block_table must be an int32"):
        tile.attention_with_kvcache(q, cache, cache, block_table=torch.zeros(
            2, 3, device="cuda", dtype=torch.int64))
    with pytest.raises(MatmulError, match="cache_seqlens must be an int32"):
        tile.attention_with_kvcache(q, cache, cache, cache_seqlens=torch.zeros(
            3, device="cuda", dtype=torch.int32))
    with pytest.raises(MatmulError, match="past the cache's capacity of 256"):
        tile.attention_with_kvcache(q, cache, cache, cache_seqlens=torch.tensor(
            [10, 300], device="cuda", dtype=torch.int32), validate=True)
    with pytest.raises(MatmulError, match=r"block_table entries in \[0, 7\] past the cache's 2"):
        tile.attention_with_kvcache(q, cache, cache, block_table=torch.full(
            (2, 2), 7, device="cuda", dtype=torch.int32).index_fill_(1, torch.tensor(
                [0], device="cuda"), 0), cache_seqlens=300, validate=True)
    with pytest.raises(MatmulError, match="float16 or bfloat16"):
        tile.attention_with_kvcache(q.half(), cache, cache)
    # Without validate: seqlens past the capacity are clamped to it (no
    # read outside the cache): the capacity's result.
    out = tile.attention_with_kvcache(q, cache, cache, cache_seqlens=10**6)
    full = tile.attention_with_kvcache(q, cache, cache, cache_seqlens=256)
    torch.cuda.synchronize()
    assert torch.equal(out, full)
    with pytest.raises(MatmulError, match="causal must be False, True or 'bottom_right'"):
        tile.attention_with_kvcache(q, cache, cache, causal="top_left")


def test_out_as_a_strided_view(hopper):
    """out= a (B, S, H, D) tensor's transpose: written in place, for the
    next projection to read as (B S, H D) (prefill and decode kernels)."""
    import tile
    torch = hopper
    for sq in (300, 1):
        q = randn(torch, 2, 8, sq, 128, seed=1)
        k, v = randn(torch, 2, 2, 500, 128, seed=2), randn(torch, 2, 2, 500, 128, seed=3)
        buffer = torch.full((2, sq, 8, 128), float("nan"), device="cuda", dtype=torch.bfloat16)
        returned = tile.attention(q, k, v, causal="bottom_right", enable_gqa=True,
                                  out=buffer.transpose(1, 2))
        want = reference(torch, q, k, v, hi=500 - sq)
        torch.cuda.synchronize()
        assert returned.data_ptr() == buffer.data_ptr()
        assert_close(torch, buffer.transpose(1, 2), want,
                     sdpa_error(torch, q, k, v, want, None, 500 - sq), q.dtype)


@pytest.mark.parametrize("d", [64, 128])
def test_softcap(hopper, d):
    """Gemma 2's logit softcap: the prefill kernels' softcap variant (causal
    and not, GQA) and the decode kernels, against float32 with tanh; the
    bound is SDPA's error on the same inputs without the cap (SDPA has
    none), or the type's floor."""
    import tile
    torch = hopper
    q = randn(torch, 2, 8, 300, d, seed=1) * 3
    k, v = randn(torch, 2, 2, 400, d, seed=2) * 3, randn(torch, 2, 2, 400, d, seed=3)
    for causal in (False, "bottom_right"):
        out = tile.attention(q, k, v, causal=causal, enable_gqa=True, softcap=30.0)
        hi = 100 if causal else None
        want = reference(torch, q, k, v, hi=hi, softcap=30.0)
        torch.cuda.synchronize()
        assert_close(torch, out, want, sdpa_error(torch, q, k, v, reference(
            torch, q, k, v, hi=hi), None, hi), q.dtype)
        # The cap changes the result (scores reach 30 here).
        assert (out.float() - reference(torch, q, k, v, hi=hi)).abs().max() > 0.05
    qd = q[:, :, :1].transpose(1, 2).contiguous()
    out = tile.attention_with_kvcache(qd, k.transpose(1, 2), v.transpose(1, 2), softcap=30.0)
    want = reference(torch, qd.transpose(1, 2), k, v, softcap=30.0)
    torch.cuda.synchronize()
    assert_close(torch, out.transpose(1, 2), want, sdpa_error(
        torch, qd.transpose(1, 2), k, v, reference(torch, qd.transpose(1, 2), k, v), None, None),
        q.dtype)
    with pytest.raises(MatmulError, match="softcap must be positive"):
        tile.attention(q, k, v, enable_gqa=True, softcap=-1.0)


def test_bad_offsets_and_lengths_write_nothing_outside(hopper):
    """cu_seqlens past the packed rows or decreasing, cache_seqlens past the
    capacity, block indices past the cache: no error (the values live on
    the GPU), no write outside out or the cache, finite rows; validate=True
    names the problem."""
    import tile
    torch = hopper
    total, heads, d = 300, 4, 64
    q = randn(torch, total, heads, d, seed=1)
    k, v = randn(torch, total, heads, d, seed=2), randn(torch, total, heads, d, seed=3)
    buffer = torch.full((total + 64, heads, d), float("nan"), device="cuda", dtype=q.dtype)
    out = buffer[32:32 + total]
    cu = torch.tensor([0, 200, 50, total + 500], device="cuda", dtype=torch.int32)
    tile.attention_varlen(q, k, v, cu, cu, 512, causal=True, out=out)
    torch.cuda.synchronize()
    assert torch.isnan(buffer[:32]).all() and torch.isnan(buffer[32 + total:]).all()
    assert torch.isfinite(out).all()  # sequence 2 (rows 50..300) covers what 0 does not
    # A cache of 2 x 256 keys: sequence 1 is past it; its appends are dropped.
    cache_k, cache_v = randn(torch, 2, 256, 2, 128, seed=4), randn(torch, 2, 256, 2, 128, seed=5)
    before = cache_k.clone()
    k_new, v_new = randn(torch, 2, 4, 2, 128, seed=6), randn(torch, 2, 4, 2, 128, seed=7)
    lengths = torch.tensor([100, 1000], device="cuda", dtype=torch.int32)
    out = tile.attention_with_kvcache(randn(torch, 2, 1, 8, 128, seed=8), cache_k, cache_v,
                                      k_new, v_new, cache_seqlens=lengths)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
    assert torch.equal(cache_k[1], before[1]) and torch.equal(cache_k[0, 100:104], k_new[0])
    with pytest.raises(MatmulError, match="past the cache's capacity of 256"):
        tile.attention_with_kvcache(randn(torch, 2, 1, 8, 128), cache_k, cache_v, k_new, v_new,
                                    cache_seqlens=lengths, validate=True)
    # Pages: a block index past the cache reads zeros and is not written.
    pages_k, pages_v = randn(torch, 6, 64, 2, 128, seed=9), randn(torch, 6, 64, 2, 128, seed=10)
    pages_before = pages_k.clone()
    table = torch.tensor([[0, 1, 2], [3, 99, -5]], device="cuda", dtype=torch.int32)
    out = tile.attention_with_kvcache(randn(torch, 2, 1, 8, 128, seed=11), pages_k, pages_v,
                                      k_new, v_new, cache_seqlens=torch.tensor(
                                          [10, 62], device="cuda", dtype=torch.int32),
                                      block_table=table)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
    assert torch.equal(pages_k[3, 62:64], k_new[1, :2])          # page 3 rows 62, 63
    assert torch.equal(pages_k[4:], pages_before[4:])            # nothing else written
    # Pages of 16 tokens (gathered by cp.async): a block index past the
    # cache, or negative, reads zero bytes.
    small_k, small_v = randn(torch, 8, 16, 2, 128, seed=12), randn(torch, 8, 16, 2, 128, seed=13)
    small_table = torch.tensor([[0, 1, 2, 3], [4, 99, -5, 5]], device="cuda", dtype=torch.int32)
    out = tile.attention_with_kvcache(randn(torch, 2, 1, 8, 128, seed=14), small_k, small_v,
                                      cache_seqlens=torch.tensor([30, 60], device="cuda",
                                                                 dtype=torch.int32),
                                      block_table=small_table)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all()
