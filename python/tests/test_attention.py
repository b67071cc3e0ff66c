"""tile.attention: the checks on plain shapes (no GPU), the kernels' launch
contract (compiled, no GPU), and results against
torch.nn.functional.scaled_dot_product_attention on the GPU."""
import pytest

from tile.arrays import contiguous_strides
from tile.core.devices import Device
from tile.core.errors import MatmulError
from tile.core.operands import Operand
from tile.ops.attention import ATTENTION, HEAD_DIMS, check_attention

H100 = Device(sms=132, capability=(9, 0), shared_optin=232448)


def tensor(shape, dtype="bfloat16", strides=None, address=0x10000):
    """An Operand of `shape`, contiguous unless `strides` is given."""
    return Operand(tuple(shape), tuple(strides or contiguous_strides(shape)), dtype, address,
                   "cuda:0")


def bshd(b, s, h, d, dtype="bfloat16"):
    """The (B, H, S, D) view (.transpose(1, 2)) of a contiguous (B, S, H, D)
    tensor."""
    return tensor((b, h, s, d), dtype, strides=(s * h * d, d, h * d, 1))


def test_shapes_and_strided_operands():
    q, kv = tensor((2, 8, 1000, 128)), tensor((2, 8, 77, 128))
    assert check_attention(q, kv, kv, None, H100) == (2, 8, 8, 1000, 77, 128)
    assert check_attention(q, kv, kv, tensor((2, 8, 1000, 128)), H100) == (2, 8, 8, 1000, 77, 128)
    # (B, S, H, D) storage, read through the 4-D tensor maps' strides.
    assert check_attention(bshd(4, 333, 40, 64, "float16"), bshd(4, 200, 40, 64, "float16"),
                           bshd(4, 200, 40, 64, "float16"), None, H100) == (4, 40, 40, 333, 200, 64)
    # Nothing to compute: any Sk, even none.
    assert check_attention(tensor((2, 8, 0, 64)), tensor((2, 8, 0, 64)),
                           tensor((2, 8, 0, 64)), None, H100) == (2, 8, 8, 0, 0, 64)


@pytest.mark.parametrize("args, message", [
    ((tensor((1, 2, 64, 96)), tensor((1, 2, 64, 96)), tensor((1, 2, 64, 96)), None),
     "head dim D = 96; the kernels take D = 64 or 128"),
    ((tensor((1, 2, 64, 64), "float16"), tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)), None),
     "got q float16, k bfloat16 and v bfloat16"),
    ((tensor((1, 2, 64, 64), "float32"), tensor((1, 2, 64, 64), "float32"),
      tensor((1, 2, 64, 64), "float32"), None), "takes float16 or bfloat16 q, k and v"),
    ((tensor((1, 2, 64, 64), strides=(8192, 4096, 64, 2)), tensor((1, 2, 64, 64)),
      tensor((1, 2, 64, 64)), None), r"q has strides .*innermost stride 1 .*T-TMA-9"),
    # D = 64 in rows of 68 elements: 136-byte rows.
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64), strides=(8704, 4352, 68, 1)),
      tensor((1, 2, 64, 64)), None), r"k has strides .*multiples of 8 elements"),
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64), address=0x10008),
      None), r"v starts at 0x10008; .*T-TMA-10"),
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)),
      tensor((1, 2, 64, 128))), r"out must be a bfloat16 tensor of shape "
                                r"\(1, 2, 64, 64\) \(any TMA strides\), got bfloat16 \(1, 2, 64, 128\)"),
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)),
      tensor((1, 2, 64, 64), strides=(8192, 4096, 68, 1))), r"out has strides .*T-TMA-9"),
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)),
      tensor((1, 2, 64, 64), "float16")), "got float16"),
    ((tensor((2, 64, 64)), tensor((2, 64, 64)), tensor((2, 64, 64)), None),
     r"q must be 4-D .* got shape \(2, 64, 64\)"),
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 64, 64)), tensor((1, 2, 32, 64)), None),
     "k and v must have the same shape"),
    ((tensor((1, 2, 64, 64)), tensor((1, 4, 64, 64)), tensor((1, 4, 64, 64)), None),
     r"k and v must be \(1, 2, Sk, 64\)"),
    ((tensor((1, 2, 64, 64)), tensor((1, 2, 0, 64)), tensor((1, 2, 0, 64)), None),
     "Sk = 0: no keys"),
])
def test_errors(args, message):
    with pytest.raises(MatmulError, match=message):
        check_attention(*args, H100)


def test_other_gpus_are_errors():
    q = tensor((1, 2, 64, 64))
    with pytest.raises(MatmulError, match="tile.attention runs Hopper kernels .* this GPU is sm_80"):
        check_attention(q, q, q, None, Device(108, (8, 0)))


@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_the_kernels_compile_and_take_the_launch_arguments(element):
    """Both head dims in both element types (no GPU needed), with the
    parameters tile.attention passes: q, k, v and out as rank-4 tensor
    maps, the packed output rows and cu_seqlens of attention_varlen, B, H,
    the GQA group, Sq, Sk, the window's edges, the scale times log2(e) and
    the softcap's two factors (f32) and four flags (softcap, bottom-right
    diagonal, paired tiles, packed sequences), the KV-cache path's, the
    backward's log-sum-exps (a float32 vector and a flag) and the FP8
    variant's descale factors."""
    for d in HEAD_DIMS:
        params = ATTENTION.module((element, False, d, None, False)).manifest["kernels"][
            f"attention_d{d}"]["params"]
        assert len(params) == 36
        assert [(p["kind"], p["rank"], p["element"]) for p in params[:3]] == [
            ("tensor_map", 4, element)] * 3
        assert [p["box"] for p in params[1:3]] == [[1, 1, 128, 64]] * 2
        assert (params[3]["rank"], params[3]["element"]) == (4, element)
        assert (params[4]["rank"], params[4]["element"]) == (2, element)
        assert [(p["rank"], p["element"]) for p in params[5:7]] == [(1, "i32")] * 2
        assert all(p["type"] in ("index", "i32", "i64") for p in params[7:14])
        assert [p["type"] for p in params[14:21]] == ["f32", "f32", "f32", "i1", "i1", "i1",
                                                      "i1"]
        # The KV-cache path's: K and V as 5-D page maps through a block table
        # (here placeholders that fit the ring: the path is folded away), the
        # table, the lengths, the page, its block stride in head strides, the
        # appended count and two flags.
        assert [(p["kind"], p["rank"], p.get("box")) for p in params[21:23]] == [
            ("tensor_map", 5, [1, 1, d // 64, 128, 64])] * 2
        assert [p["rank"] for p in params[23:25]] == [2, 1]
        assert all(p["type"] in ("index", "i32", "i64") for p in params[25:28])
        assert [p["type"] for p in params[28:30]] == ["i1", "i1"]
        assert (params[30]["rank"], params[30]["element"], params[31]["type"]) == (1, "f32",
                                                                                  "i1")
        # The FP8 variant's descale factors (three (B, Hkv) float32 matrices
        # and a flag; placeholders here, folded away).
        assert [(p["rank"], p["element"]) for p in params[32:35]] == [(2, "f32")] * 3
        assert params[35]["type"] == "i1"
    # The KV-cache variants: a box of a page's 16 or 32 rows, else 64, in
    # 8-row groups of both 64-column chunks (D = 128); their dense maps are
    # placeholders of a ring's 8-row group.
    for rows in (16, 32, 64):
        params = ATTENTION.module((element, False, 128, rows, False)).manifest["kernels"][
            "attention_d128"]["params"]
        assert [p.get("box") for p in params[21:23]] == [[1, rows // 8, 2, 8, 64]] * 2
        assert [p.get("box") for p in params[1:3]] == [[1, 1, 8, 64]] * 2
    with pytest.raises(ValueError, match="no softcap"):
        ATTENTION.source((element, True, 128, 16, False))


def test_the_dense_variants_fold_the_packed_path():
    """tile.attention's variants (no window or a left edge, softcap, the
    backward's LSE) keep nothing of attention_varlen's packed sequences:
    they load nothing from global memory but by TMA (the lengths, offsets
    and batch index are parameters) and store O by TMA only (the LSE
    variant stores its rows' sums). With the packed path left in under a
    runtime flag, ptxas gave their consumer loop convergence guards and
    moved it off the uniform datapath: 3-5% slower. The packed variant
    loads cu_seqlens and stores its rows directly."""
    for d in HEAD_DIMS:
        for softcap, lse, left in ((False, False, False), (True, False, False),
                                   (False, True, False), (False, False, True)):
            variant = ("bf16", softcap, d, None, lse) + ((False, True) if left else ())
            ptx = ATTENTION.module(variant).ptx
            assert "ld.global" not in ptx, variant
            assert ("st.global" in ptx) == lse, variant
        packed = ATTENTION.module(("bf16", False, d, None, False, True)).ptx
        assert "ld.global" in packed and "st.global" in packed


# --- On the GPU -----------------------------------------------------------------

@pytest.fixture
def hopper(torch_cuda):
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs sm_90a")
    return torch_cuda


def inputs(torch, b, h, sq, sk, d, dtype, seed=0):
    generator = torch.Generator(device="cuda").manual_seed(seed)
    return tuple(torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=generator)
                 for s in (sq, sk, sk))


def reference(torch, q, k, v, causal, scale=None):
    """SDPA's math in float32 on the upcast inputs; causal aligned at the top
    left (query i sees keys j <= i)."""
    q, k, v = (t.float() for t in (q, k, v))
    scores = q @ k.transpose(-2, -1) * (q.shape[-1] ** -0.5 if scale is None else scale)
    if causal:
        visible = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool, device="cuda").tril()
        scores = scores.masked_fill(~visible, float("-inf"))
    return scores.softmax(-1) @ v


def assert_close(torch, out, q, k, v, causal, scale=None):
    """out's max abs error against the float32 reference at most twice that
    of SDPA's default backend on the same inputs (or a floor of a few of the
    type's units at 1)."""
    want = reference(torch, q, k, v, causal, scale)
    theirs = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                              scale=scale)
    floor = 2e-3 if q.dtype == torch.bfloat16 else 1e-3
    bound = max(2 * (theirs.float() - want).abs().max().item(), floor)
    error = (out.float() - want).abs().max().item()
    assert out.shape == want.shape and out.dtype == q.dtype and out.is_contiguous()
    assert error <= bound, f"max abs error {error:.3g}, SDPA's x 2 {bound:.3g}"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("d", HEAD_DIMS)
@pytest.mark.parametrize("s", [1, 77, 200, 333, 1000, 1024, 2048])
def test_matches_sdpa(hopper, dtype, d, s):
    """Sq = Sk, causal and not; lengths not a multiple of the tiles clipped
    by TMA."""
    import tile
    torch = hopper
    q, k, v = inputs(torch, 2, 3, s, s, d, getattr(torch, dtype), seed=s + d)
    for causal in (False, True):
        out = tile.attention(q, k, v, causal=causal)
        torch.cuda.synchronize()
        assert_close(torch, out, q, k, v, causal)


@pytest.mark.parametrize("sq, sk", [(77, 1000), (1000, 77), (1, 333), (333, 1), (200, 2048),
                                    (2048, 200)])
def test_query_and_key_lengths_differ(hopper, sq, sk):
    """Causal stays top-left aligned: with Sq < Sk the last keys are seen by
    no query, with Sq > Sk the rows from Sk on see every key."""
    import tile
    torch = hopper
    for dtype, d in ((torch.bfloat16, 128), (torch.float16, 64)):
        q, k, v = inputs(torch, 2, 3, sq, sk, d, dtype, seed=sq * sk)
        for causal in (False, True):
            out = tile.attention(q, k, v, causal=causal)
            torch.cuda.synchronize()
            assert_close(torch, out, q, k, v, causal)


def test_strided_operands_are_read_in_place(hopper):
    """(B, S, H, D) tensors through .transpose(1, 2), and q, k, v as views of
    one packed (B, S, 3, H, D) projection."""
    import tile
    torch = hopper
    b, s, h, d = 2, 333, 6, 128
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
               for _ in range(3))
    out = tile.attention(q, k, v, causal=True)
    qkv = torch.randn(b, s, 3, h, 64, device="cuda", dtype=torch.float16)
    packed = tuple(qkv[:, :, i].transpose(1, 2) for i in range(3))
    out_packed = tile.attention(*packed)
    torch.cuda.synchronize()
    assert not q.is_contiguous() and not packed[0].is_contiguous()
    assert_close(torch, out, q, k, v, True)
    assert_close(torch, out_packed, *packed, False)


def test_more_heads_than_sms_and_a_scale(hopper):
    """B x H = 160 heads on a grid of one CTA per SM: each CTA takes several."""
    import tile
    torch = hopper
    q, k, v = inputs(torch, 4, 40, 333, 333, 128, torch.bfloat16)
    assert 4 * 40 > torch.cuda.get_device_properties(0).multi_processor_count
    for causal in (False, True):
        out = tile.attention(q, k, v, causal=causal, scale=0.3)
        torch.cuda.synchronize()
        assert_close(torch, out, q, k, v, causal, scale=0.3)


def test_into_out_and_on_a_side_stream(hopper):
    import tile
    torch = hopper
    q, k, v = inputs(torch, 2, 4, 200, 1000, 64, torch.float16)
    out = torch.full_like(q, float("nan"))
    returned = tile.attention(q, k, v, causal=True, out=out)
    torch.cuda.synchronize()
    assert returned is out
    assert_close(torch, out, q, k, v, True)
    # On a side stream: out allocated on the current stream, written there.
    out.fill_(float("nan"))
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    side = tile.attention(q, k, v, stream=stream)
    with torch.cuda.stream(stream):
        tile.attention(q, k, v, out=out)
    stream.synchronize()
    assert_close(torch, side, q, k, v, False)
    assert_close(torch, out, q, k, v, False)


def test_empty_problems_and_errors_on_the_gpu(hopper):
    import tile
    torch = hopper
    q, k, v = inputs(torch, 1, 2, 64, 64, 64, torch.bfloat16)
    assert tile.attention(q[:, :, :0], k, v).shape == (1, 2, 0, 64)
    assert tile.attention(q[:0], k[:0], v[:0]).shape == (0, 2, 64, 64)
    with pytest.raises(MatmulError, match="Sk = 0"):
        tile.attention(q, k[:, :, :0], v[:, :, :0])
    with pytest.raises(MatmulError, match="scale must be positive"):
        tile.attention(q, k, v, scale=-0.125)
    with pytest.raises(MatmulError, match="must be a CUDA tensor"):
        tile.attention(q.cpu(), k, v)
    with pytest.raises(MatmulError, match="got q float32"):
        tile.attention(q.float(), k.float(), v.float())
    with pytest.raises(MatmulError, match="got q float16, k bfloat16"):
        tile.attention(q.half(), k, v)
    with pytest.raises(MatmulError, match="D = 96"):
        tile.attention(*(t[..., :96] for t in inputs(torch, 1, 2, 64, 64, 128, torch.bfloat16)))
    with pytest.raises(MatmulError, match="T-TMA-9"):
        tile.attention(*(t[..., ::2] for t in inputs(torch, 1, 2, 64, 64, 128, torch.bfloat16)))
    with pytest.raises(MatmulError, match="T-TMA-10"):
        tile.attention(torch.empty(1 * 2 * 64 * 64 + 4, device="cuda", dtype=torch.bfloat16)
                       [4:].view(1, 2, 64, 64), k, v)
    with pytest.raises(MatmulError, match=r"out must be .* shape \(1, 2, 64, 64\)"):
        tile.attention(q, k, v, out=torch.empty(1, 2, 64, 128, device="cuda",
                                                dtype=torch.bfloat16))
