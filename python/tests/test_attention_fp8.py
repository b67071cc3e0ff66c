"""FP8 attention (tile.attention on float8_e4m3fn operands, and
tile.ops.fp8_v_layout): the kernels' launch contract (compiled, no GPU),
and on the GPU the results against float32 attention of the dequantized
inputs, V^T's layout, and the errors of bad calls."""
import math

import pytest

from tile.ops.attention import ATTENTION, FP8_ELEMENT


def test_the_fp8_kernel_takes_e4m3_maps_and_descale_factors():
    """Q, K and V^T as 4-D e4m3 maps of 128-byte rows (boxes of 128 rows of
    128 elements: one 128-byte swizzle span), O as bf16 boxes of 64 x 64,
    the packed rows bf16 (O's type), and the three (B, Hkv) descale
    matrices (strided float32) with their flag last."""
    params = ATTENTION.module((FP8_ELEMENT, False, 128, None, False)).manifest["kernels"][
        "attention_d128"]["params"]
    assert len(params) == 36
    assert [(p["kind"], p["rank"], p["element"], p["box"]) for p in params[:3]] == [
        ("tensor_map", 4, FP8_ELEMENT, [1, 1, 128, 128])] * 3
    assert (params[3]["element"], params[3]["box"]) == ("bf16", [1, 1, 64, 64])
    assert (params[4]["rank"], params[4]["element"]) == (2, "bf16")
    assert [(p["rank"], p["element"]) for p in params[32:35]] == [(2, "f32")] * 3
    assert params[35]["type"] == "i1"


def test_the_fp8_kernel_runs_e4m3_products_without_overflow_fixups():
    """Both products are e4m3 wgmmas (m64n128k32: 4 K steps for Q K^T, 4
    for each of the two P V sites) and P converts with one cvt a pair (the
    nnan truncf: no overflow fix-up, T-TARGET-7); the descale factors are
    the only global loads."""
    ptx = ATTENTION.module((FP8_ELEMENT, False, 128, None, False)).ptx
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3") == 12
    assert ptx.count("cvt.rn.satfinite.e4m3x2.f32") == 32
    assert "1139277824" not in ptx and "0f43E80000" not in ptx
    assert ptx.count("ld.global") == 3


def test_the_v_layout_kernel_moves_16_bytes_a_thread():
    """@fp8_v_layout: V's rows in 16-byte loads, V^T's in 16-byte stores
    (two each a thread), the bytes between through shared memory; the
    register order is a permutation of each 16."""
    from tile.ops.fp8_v_layout import V_LAYOUT, register_order
    ptx = V_LAYOUT.module(128).ptx
    assert ptx.count("ld.global.v4.b32") == 2 and ptx.count("st.global.v4.b32") == 2
    assert "st.global.b8" not in ptx
    assert sorted(register_order(p) for p in range(16)) == list(range(16))
    assert [register_order(p) for p in range(8)] == [0, 1, 8, 9, 2, 3, 10, 11]


def test_the_v_layout_undoes_the_lowerings_register_order():
    """The one permutation written twice (C++ and Python), checked against
    each other: tile-opt's lowering of an 8-bit tile.warpgroup_mma_rs puts
    accumulator element e of a 32-column step into fragment slot f (its
    vector.shuffle), where element e is row (e / 2) mod 2 (8 rows down),
    column 8 (e / 4) + 2t + e mod 2, and slot f is row (f / 4) mod 2, K
    16 (f / 8) + 4t + f mod 4 (PTX's fragments); fp8_v_layout stores key c
    at V^T column k for each such pair (register_order(k) = c)."""
    import re
    import subprocess
    from tile.ops.fp8_v_layout import register_order
    from tile.toolchain import find_toolchain
    module = """gpu.module @k {
  gpu.func @rs(%p: vector<16xf8E4M3FN>, %o: vector<64xf32>) -> vector<64xf32> {
    %c0 = arith.constant 0 : index
    %b = tile.shared_alloc {swizzle = #tile.swizzle<b128>} : memref<128x128xf8E4M3FN, 3>
    %r = tile.warpgroup_mma_rs %p, %b[%c0, %c0], %o {shape = array<i64: 64, 128, 32>, wait = 0 : i32}
        : vector<16xf8E4M3FN>, memref<128x128xf8E4M3FN, 3>, vector<64xf32>
    gpu.return %r : vector<64xf32>
  }
}"""
    lowered = subprocess.run([str(find_toolchain().tile_opt), "-tile-lower-tile-ops"],
                             input=module, capture_output=True, text=True, check=True).stdout
    order = [int(x) for x in re.search(r"vector.shuffle %\w+, %\w+ \[([0-9, ]+)\]",
                                       lowered).group(1).split(",")]
    assert sorted(order) == list(range(16))
    for t in range(4):
        for f, e in enumerate(order):
            assert (e // 2) % 2 == (f // 4) % 2, (f, e)  # the same row
            column = 8 * (e // 4) + 2 * t + e % 2
            k = 16 * (f // 8) + 4 * t + f % 4
            assert column // 16 == k // 16 and register_order(k % 16) == column % 16, (t, f, e)


def test_the_fp8_variant_has_no_cache_lse_or_packed_form():
    for variant in ((FP8_ELEMENT, False, 128, 16, False), (FP8_ELEMENT, False, 128, None, True),
                    (FP8_ELEMENT, False, 128, None, False, True), (FP8_ELEMENT, False, 64, None,
                                                                   False)):
        with pytest.raises(ValueError, match="FP8 attention kernel takes D = "):
            ATTENTION.source(variant)


# --- On the GPU -----------------------------------------------------------------

@pytest.fixture
def hopper(torch_cuda):
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs sm_90a")
    return torch_cuda


def quantized(torch, b, h, s, d, seed, per_head=True):
    """A random (B, H, S, D) tensor as e4m3 with its descale factors (B, H):
    scaled so each head's amax is e4m3's 448 (or one per-tensor factor)."""
    generator = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(b, h, s, d, device="cuda", generator=generator) * 2
    amax = x.abs().amax(dim=(2, 3)) if per_head else x.abs().amax().expand(b, h)
    factor = (amax.clamp(min=1e-6) / 448.0).contiguous()
    return (x / factor[:, :, None, None]).to(torch.float8_e4m3fn), factor


def dequantized(torch, x8, factor):
    return x8.float() * factor[:, :, None, None]


def reference(torch, q, k, v, causal, scale, window=None, softcap=0.0):
    """Attention in float32 (GQA by repeated KV heads; causal top left; a
    (left, right) window around the diagonal; Gemma's softcap)."""
    group = q.shape[1] // k.shape[1]
    k, v = (t.repeat_interleave(group, dim=1) for t in (k, v))
    scores = q @ k.transpose(-2, -1) * scale
    if softcap:
        scores = softcap * torch.tanh(scores / softcap)
    sq, sk = q.shape[-2], k.shape[-2]
    rows = torch.arange(sq, device="cuda")[:, None]
    cols = torch.arange(sk, device="cuda")[None, :]
    visible = torch.ones(sq, sk, dtype=torch.bool, device="cuda")
    if causal:
        visible &= cols <= rows
    if window is not None:
        visible &= cols >= rows - window[0]
    scores = scores.masked_fill(~visible, float("-inf"))
    probs = scores.softmax(-1).nan_to_num(0.0)
    return probs @ v, probs @ v.abs()


def assert_fp8_close(torch, out, want, want_abs):
    """out against float32 attention of the dequantized inputs: each
    element within what e4m3's P costs at worst (a relative 2^-4 of each
    probability: 2^-4 (P |V|) / l, 1.25x for the scores' FP8 products)
    plus bf16's rounding of O; and the RMS error a tenth of that."""
    error = (out.float() - want).abs()
    bound = 1.25 * 2.0 ** -4 * want_abs + 2.0 ** -7 * want.abs() + 1e-3
    worst = (error / bound).max().item()
    assert worst <= 1.0, f"error {error.max().item():.3g} past the FP8 bound ({worst:.2f}x)"
    rms = error.square().mean().sqrt().item()
    assert rms <= 0.1 * bound.square().mean().sqrt().item(), f"RMS error {rms:.3g}"


@pytest.mark.parametrize("s", [1, 77, 200, 1000, 2048])
def test_matches_float32_attention_of_the_dequantized_inputs(hopper, s):
    """Sq = Sk, causal and not, per-head descale factors; lengths not a
    multiple of the tiles (TMA clips Q, K and O; V^T's keys padded)."""
    import tile
    torch = hopper
    b, h, d = 2, 3, 128
    (q8, qs), (k8, ks), (v8, vs) = (quantized(torch, b, h, s, d, seed=s + i) for i in range(3))
    scale = d ** -0.5
    for causal in (False, True):
        out = tile.attention(q8, k8, v8, causal=causal, q_descale=qs, k_descale=ks,
                             v_descale=vs)
        torch.cuda.synchronize()
        assert out.dtype == torch.bfloat16 and out.shape == (b, h, s, d)
        want, want_abs = reference(torch, dequantized(torch, q8, qs),
                                   dequantized(torch, k8, ks), dequantized(torch, v8, vs),
                                   causal, scale)
        assert_fp8_close(torch, out, want, want_abs)


def test_gqa_lengths_that_differ_and_per_tensor_factors(hopper):
    """32/8 heads as 8/2, Sq != Sk with the bottom-right diagonal, 0-d
    per-tensor factors (broadcast to (B, Hkv)) and no factor (1)."""
    import tile
    torch = hopper
    b, d = 2, 128
    q8, qs = quantized(torch, b, 8, 300, d, seed=1, per_head=False)
    k8, ks = quantized(torch, b, 2, 1100, d, seed=2, per_head=False)
    v8, _ = quantized(torch, b, 2, 1100, d, seed=3)
    out = tile.attention(q8, k8, v8, causal="bottom_right", enable_gqa=True,
                         q_descale=qs[0, 0], k_descale=ks[0, 0].reshape(1, 1))
    torch.cuda.synchronize()
    q, k, v = dequantized(torch, q8, qs), dequantized(torch, k8, ks), v8.float()
    # Bottom right: query i sees keys j <= i + Sk - Sq.
    pad = torch.zeros(b, 8, 1100 - 300, d, device="cuda")
    want, want_abs = reference(torch, torch.cat([pad, q], dim=2), k, v, True, d ** -0.5)
    assert_fp8_close(torch, out, want[:, :, -300:], want_abs[:, :, -300:])


def test_repeated_calls_take_the_prepared_launches(hopper, monkeypatch):
    """A call like an earlier one (shapes, strides, options, which factors
    are given) runs the prepared launches on new tensors (no kernel looked
    up again): V^T allocated each call, the factors packed by address; and
    on a side stream (`stream=`) the same results."""
    import tile
    from tile.ops import attention as attention_module
    torch = hopper
    b, h, s, d = 2, 4, 300, 128
    attention_module.FP8_READY.clear()
    lookups = []
    kernel_of = attention_module.attention_kernel
    monkeypatch.setattr(attention_module, "attention_kernel",
                        lambda *args, **kw: lookups.append(args) or kernel_of(*args, **kw))
    for seed in (1, 2, 3):
        (q8, qs), (k8, ks), (v8, vs) = (quantized(torch, b, h, s, d, seed=10 * seed + i)
                                        for i in range(3))
        out = tile.attention(q8, k8, v8, causal=True, q_descale=qs, k_descale=ks)
        torch.cuda.synchronize()
        want, want_abs = reference(torch, dequantized(torch, q8, qs),
                                   dequantized(torch, k8, ks), v8.float(), True, d ** -0.5)
        assert_fp8_close(torch, out, want, want_abs)
    assert len(lookups) == 1 and len(attention_module.FP8_READY) == 1
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    side = tile.attention(q8, k8, v8, causal=True, q_descale=qs, k_descale=ks, stream=stream)
    stream.synchronize()
    assert torch.equal(side, out)


def test_compiles_without_a_graph_break(hopper):
    """torch.compile(fullgraph=True) of FP8 attention between PyTorch ops:
    the operator tile::attention_fp8 (a bf16 out of the fake's shape), the
    same bits as the eager call; autograd recording the call is an error."""
    import tile
    from tile.core.errors import MatmulError
    torch = hopper
    b, h, s, d = 1, 4, 256, 128
    (q8, qs), (k8, ks), (v8, vs) = (quantized(torch, b, h, s, d, seed=40 + i) for i in range(3))

    def block(q8, k8, v8, qs, ks, vs):
        o = tile.attention(q8, k8, v8, causal=True, q_descale=qs, k_descale=ks, v_descale=vs)
        return o * 2  # exact either way: the same bits eager and compiled

    eager = block(q8, k8, v8, qs, ks, vs)
    # tile was imported before torch here: its operators register now, not
    # while Dynamo traces (tile.library's documentation).
    tile.library.register(torch)
    compiled = torch.compile(block, fullgraph=True)(q8, k8, v8, qs, ks, vs)
    torch.cuda.synchronize()
    assert torch.equal(eager, compiled)
    try:
        q_grad = q8.clone().requires_grad_()
    except RuntimeError:  # a PyTorch without gradients of float8 tensors
        return
    with pytest.raises(MatmulError, match="has no backward"):
        tile.attention(q_grad, k8, v8)


def test_window_softcap_scale_and_out(hopper):
    import tile
    torch = hopper
    b, h, s, d = 1, 4, 700, 128
    (q8, qs), (k8, ks), (v8, vs) = (quantized(torch, b, h, s, d, seed=10 + i) for i in range(3))
    q, k, v = (dequantized(torch, x, f) for x, f in ((q8, qs), (k8, ks), (v8, vs)))
    out = torch.full((b, h, s, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    returned = tile.attention(q8, k8, v8, causal=True, window_size=(100, 0), scale=0.05,
                              softcap=30.0, q_descale=qs, k_descale=ks, v_descale=vs, out=out)
    torch.cuda.synchronize()
    assert returned is out
    want, want_abs = reference(torch, q, k, v, True, 0.05, window=(100, 0), softcap=30.0)
    assert_fp8_close(torch, out, want, want_abs)


@pytest.mark.parametrize("sk, layout", [(37, "contiguous"), (200, "bshd"), (64, "odd pitch")])
def test_v_layout_is_v_transposed_in_register_order(hopper, sk, layout):
    """fp8_v_layout: V^T with the keys of each 16 in the P registers' order
    (key 8h + 2t + u at column 4t + 2h + u) and zeros past Sk; V contiguous,
    a (B, S, H, D) tensor's transpose (read in place), or rows at a pitch
    that is no multiple of 16 bytes (copied first)."""
    from tile.ops.fp8_v_layout import fp8_v_layout
    torch = hopper
    shape = {"contiguous": (2, 3, sk, 128), "bshd": (2, sk, 3, 128),
             "odd pitch": (2, 3, sk, 136)}[layout]
    raw = torch.randint(0, 120, shape, device="cuda", dtype=torch.uint8)
    raw = {"contiguous": raw, "bshd": raw.transpose(1, 2), "odd pitch": raw[..., :128]}[layout]
    vt = fp8_v_layout(torch, raw.view(torch.float8_e4m3fn)).view(torch.uint8)
    padded = (sk + 15) // 16 * 16
    assert vt.shape == (2, 3, 128, padded) and vt.is_contiguous()
    for key in range(padded):
        h, t, u = (key % 16) // 8, (key % 8) // 2, key % 2
        column = key // 16 * 16 + 4 * t + 2 * h + u
        want = raw[:, :, key, :] if key < sk else torch.zeros_like(raw[:, :, 0, :])
        assert torch.equal(vt[:, :, :, column], want), key


def test_bad_fp8_calls_are_errors(hopper):
    import tile
    from tile.core.errors import MatmulError
    torch = hopper
    q8, qs = quantized(torch, 1, 2, 64, 128, seed=0)
    bf = q8.to(torch.bfloat16)
    with pytest.raises(MatmulError, match="float8_e4m3fn q, k and v"):
        tile.attention(q8, bf, q8)
    with pytest.raises(MatmulError, match="head dim D = 64; the FP8 kernel takes D = 128"):
        small = q8[..., :64].contiguous()
        tile.attention(small, small, small)
    with pytest.raises(MatmulError, match=r"q_descale of shape \(3,\) does not broadcast"):
        tile.attention(q8, q8, q8, q_descale=torch.ones(3, device="cuda"))
    with pytest.raises(MatmulError, match="k_descale must be a float32 tensor"):
        tile.attention(q8, q8, q8, k_descale=qs.double())
    with pytest.raises(MatmulError, match="v_descale must be a float32 tensor of shape"):
        tile.attention(q8, q8, q8, v_descale=0.5)
    with pytest.raises(MatmulError, match="out must be a bfloat16 tensor"):
        tile.attention(q8, q8, q8, out=torch.empty(1, 2, 64, 128, device="cuda"))
    with pytest.raises(MatmulError, match="scale float8_e4m3fn operands"):
        tile.attention(bf, bf, bf, q_descale=qs)
    with pytest.raises(MatmulError, match="multiple of the 3 KV heads"):
        q6, _ = quantized(torch, 1, 4, 64, 128, seed=1)
        kv, _ = quantized(torch, 1, 3, 64, 128, seed=2)
        tile.attention(q6, kv, kv, enable_gqa=True)
    assert math.isfinite(tile.attention(q8, q8, q8).float().sum().item())
