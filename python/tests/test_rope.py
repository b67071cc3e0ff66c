"""tile.rope: the plans and operand errors on plain shapes (no GPU), every
kernel compiled to PTX and assembled by ptxas without spills (no GPU), and
the results against Hugging Face's formula in float32 on the GPU, q and k
as strided views of a fused QKV output, rotated in place."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tile
from tile.core.errors import OperandError
from tile.core.layouts import packed_strides
from tile.core.operands import Operand
from tile.lit_runner import find_ptxas
from tile.testing import ptxas_spills
from tile.ops.rope import ROPE, RopeConfig, plan_rope, rope_source

PYTHON = Path(__file__).resolve().parents[1]


def tensor(shape, dtype="bfloat16", strides=None, address=0x10000, device="cuda:0"):
    """An Operand of `shape` (packed unless `strides`)."""
    return Operand(tuple(shape), tuple(strides or packed_strides(shape)), dtype, address,
                   device)


def fused(batch, seq, heads, kv_heads, head_dim, dtype="bfloat16", address=0x100000):
    """(q, k) Operands: views of a fused QKV output (B S, (H + 2 Hkv) D)."""
    width = (heads + 2 * kv_heads) * head_dim
    strides = (seq * width, width, head_dim, 1)
    q = tensor((batch, seq, heads, head_dim), dtype, strides, address)
    k = tensor((batch, seq, kv_heads, head_dim), dtype, strides,
               address + heads * head_dim * 2)
    return q, k


def table(seq, head_dim, dtype="bfloat16", address=0x8000000, **kwargs):
    return tensor((seq, head_dim), dtype, address=address, **kwargs)


# --- The kernels and plans (no GPU) -----------------------------------------------

def test_config_names_and_rejects_what_the_kernel_cannot_run():
    assert RopeConfig("bf16", 128, True).name == "rope_qk"
    assert RopeConfig("f16", 64, False).name == "rope"
    assert (RopeConfig(head_dim=128).pairs, RopeConfig(head_dim=64).pairs) == (8, 4)
    with pytest.raises(ValueError, match="f16 or bf16"):
        RopeConfig("f32").validate()
    with pytest.raises(ValueError, match="64 or 128"):
        RopeConfig("bf16", 96).validate()


def test_plan_of_fused_qkv_views():
    # Llama-3-8B prefill: 4096 tokens of 32 query and 8 KV heads, D 128:
    # (32 + 8) 4096 rows of 8 threads, 256 threads a CTA.
    q, k = fused(1, 4096, 32, 8, 128)
    plan = plan_rope(q, k, table(4096, 128), table(4096, 128, address=0x9000000))
    assert plan.config == RopeConfig("bf16", 128, True)
    assert plan.operands == ("q", "k") and plan.table_strides == (128, 128)
    assert plan.grid == (40 * 4096 * 8 // 256, 1, 1)
    q, k = fused(2, 7, 4, 4, 64, "float16")
    plan = plan_rope(q, None, table(7, 64, "float16"), table(7, 64, "float16"))
    assert plan.config == RopeConfig("f16", 64, False) and plan.operands == ("q",)
    assert plan.grid == (1, 1, 1)  # 2 * 7 * 4 rows of 4 threads


def test_tables_as_views_with_unit_dims_and_a_decode_row():
    q, k = fused(1, 7, 4, 4, 128)
    # (1, S, 1, D): cos[None, :, None, :] of a (S, D) table with rows 256 apart.
    cos = tensor((1, 7, 1, 128), strides=(7 * 256, 256, 256, 1), address=0x8000000)
    sin = tensor((7, 1, 128), address=0x9000000)
    assert plan_rope(q, k, cos, sin).table_strides == (256, 128)
    # Decode: one position, the table's row L (any row pitch: one row).
    q, k = fused(16, 1, 32, 8, 128)
    row = table(1, 128, strides=(128, 1), address=0x8000000 + 4095 * 256)
    plan = plan_rope(q, k, row, tensor((1, 1, 1, 128), address=0x9000000))
    assert plan.table_strides == (128, 128) and plan.grid == (16 * 40 * 8 // 256, 1, 1)


def test_empty_operands_are_not_launched():
    q, k = fused(1, 0, 32, 8, 128)
    plan = plan_rope(q, k, table(0, 128), table(0, 128))
    assert plan.operands == () and plan.grid == (0, 1, 1)
    # An empty k: the kernel of q alone; an empty q: the kernel takes k.
    q, k = fused(1, 3, 4, 0, 64)
    assert plan_rope(q, k, table(3, 64), table(3, 64)).operands == ("q",)
    q, k = fused(1, 3, 0, 4, 64)
    plan = plan_rope(q, k, table(3, 64), table(3, 64))
    assert plan.operands == ("k",) and plan.config.name == "rope"


def test_dtypes_and_head_dims():
    q, k = fused(1, 3, 4, 4, 128)
    with pytest.raises(OperandError, match="takes float16 or bfloat16 q, got float32"):
        plan_rope(tensor((1, 3, 4, 128), "float32"), None, table(3, 128, "float32"),
                  table(3, 128, "float32"))
    with pytest.raises(OperandError, match="k must have q's dtype bfloat16, got float16"):
        plan_rope(q, tensor(k.shape, "float16"), table(3, 128), table(3, 128))
    with pytest.raises(OperandError, match="sin must have q's dtype bfloat16, got float32"):
        plan_rope(q, k, table(3, 128), table(3, 128, "float32"))
    with pytest.raises(OperandError, match=r"q must be \(B, S, H, D\) with D 64 or 128, got "
                                           r"shape \(1, 3, 4, 96\)"):
        plan_rope(tensor((1, 3, 4, 96)), None, table(3, 96), table(3, 96))
    with pytest.raises(OperandError, match=r"q must be \(B, S, H, D\)"):
        plan_rope(tensor((3, 4, 128)), None, table(3, 128), table(3, 128))


def test_shapes():
    q, _ = fused(2, 3, 4, 4, 128)
    with pytest.raises(OperandError, match=r"k must be \(B, S, Hkv, D\) with q's B, S and D "
                                           r"\(2, 3, Hkv, 128\), got shape \(2, 4, 4, 128\)"):
        plan_rope(q, tensor((2, 4, 4, 128), address=0x4000000), table(3, 128), table(3, 128))
    with pytest.raises(OperandError, match=r"k must be \(B, S, Hkv, D\)"):
        plan_rope(q, tensor((1, 3, 4, 128), address=0x4000000), table(3, 128), table(3, 128))
    with pytest.raises(OperandError, match=r"cos must be \(S, D\) = \(3, 128\), q's length .* "
                                           r"got shape \(4, 128\)"):
        plan_rope(q, None, table(4, 128), table(3, 128))
    with pytest.raises(OperandError, match=r"sin must be \(S, D\) = \(3, 128\).* got shape "
                                           r"\(3, 64\)"):
        plan_rope(q, None, table(3, 128), table(3, 64))
    with pytest.raises(OperandError, match=r"cos must be \(S, D\).* got shape \(2, 3, 128\)"):
        plan_rope(q, None, tensor((2, 3, 128)), table(3, 128))


def test_strides_and_alignment():
    q, k = fused(1, 3, 4, 4, 128)
    with pytest.raises(OperandError, match=r"q must have contiguous rows \(last-dim stride 1\)"):
        plan_rope(tensor((1, 3, 4, 128), strides=(1536, 1, 3, 12)), None, table(3, 128),
                  table(3, 128))
    # Rows 132 elements apart: not whole 16-byte vectors.
    with pytest.raises(OperandError, match=r"k's strides must be positive multiples of 8 "
                                           r"elements .* strides \(1584, 528, 132, 1\)"):
        plan_rope(q, tensor((1, 3, 4, 128), strides=(1584, 528, 132, 1), address=0x4000000),
                  table(3, 128), table(3, 128))
    with pytest.raises(OperandError, match="q must start at a 16-byte aligned address .* "
                                           "got 0x10008"):
        plan_rope(tensor((1, 3, 4, 128), address=0x10008), None, table(3, 128), table(3, 128))
    with pytest.raises(OperandError, match=r"cos's row stride must be a non-negative multiple "
                                           r"of 8 elements .* got 132"):
        plan_rope(q, k, table(3, 128, strides=(132, 1)), table(3, 128))
    with pytest.raises(OperandError, match=r"sin must have contiguous rows"):
        plan_rope(q, k, table(3, 128), table(3, 128, strides=(1, 3)))
    with pytest.raises(OperandError, match="sin must start at a 16-byte aligned address"):
        plan_rope(q, k, table(3, 128), table(3, 128, address=0x9000004))
    with pytest.raises(OperandError, match="k must not be q"):
        plan_rope(q, q, table(3, 128), table(3, 128))
    # An expanded (zero-stride) q would rotate one row many times over.
    with pytest.raises(OperandError, match=r"q's strides must be positive multiples"):
        plan_rope(tensor((1, 3, 4, 128), strides=(0, 0, 128, 1)), None, table(3, 128),
                  table(3, 128))


def test_devices_and_grid():
    q, k = fused(1, 3, 4, 4, 128)
    with pytest.raises(OperandError, match="q must be a CUDA tensor, got one on cpu"):
        plan_rope(tensor(q.shape, device="cpu"), None, table(3, 128), table(3, 128))
    with pytest.raises(OperandError, match="operands on different devices: q on cuda:0, "
                                           "k on cuda:0, cos on cuda:1"):
        plan_rope(q, k, table(3, 128, device="cuda:1"), table(3, 128))
    with pytest.raises(OperandError, match="more than a grid's"):
        plan_rope(tensor((2 ** 20, 2 ** 10, 64, 128)), None, table(2 ** 10, 128),
                  table(2 ** 10, 128))


@pytest.mark.parametrize("keys", (True, False), ids=("qk", "q"))
@pytest.mark.parametrize("head_dim", (64, 128))
@pytest.mark.parametrize("element", ("bf16", "f16"))
def test_kernels_compile_without_spills(element, head_dim, keys, tmp_path):
    """Each kernel: four 16-byte loads (the row's halves, cos, sin) and two
    16-byte stores, 64-bit offsets, and ptxas (where found) allocates it
    without spilling."""
    config = RopeConfig(element, head_dim, keys)
    ptx = ROPE.module(config).ptx
    assert f".entry {config.name}(" in ptx
    assert ptx.count("ld.global.v4.b32") == 6 and ptx.count("st.global.v4.b32") == 2
    assert "mul.lo.s64" in ptx and f"+{head_dim}];" in ptx  # the second half, D bytes on
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("no ptxas")
    report = ptxas_spills(ptxas, ptx, str(tmp_path))
    assert report is None, report


def test_cli_prints_the_kernel():
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(PYTHON), os.environ.get("PYTHONPATH")])))
    cli = lambda *arguments: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "tile", "rope", *arguments], env=environment,
        capture_output=True, text=True)
    done = cli("--element", "f16", "--head-dim", "64", "--no-k")
    assert done.returncode == 0, done.stderr
    assert done.stdout == rope_source(RopeConfig("f16", 64, False))
    assert "gpu.func @rope(%q: !rows, %cos: !table, %sin: !table)" in done.stdout
    default = cli()
    assert default.returncode == 0 and default.stdout == rope_source(RopeConfig())
    bad = cli("--head-dim", "96")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_cpu_tensors_are_an_operand_error():
    torch = pytest.importorskip("torch")
    q, c = torch.randn(1, 3, 4, 64), torch.randn(3, 64)
    with pytest.raises(OperandError, match="q must be a CUDA tensor, got Tensor on cpu"):
        tile.rope(q, None, c, c)


# --- On the GPU ---------------------------------------------------------------------

@pytest.fixture
def hopper(torch_cuda):
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs sm_90a")
    return torch_cuda


def tables(torch, positions, head_dim, dtype, base=500000.0):
    """Llama's (positions, D) cos and sin tables, of `dtype`."""
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, device="cuda").float() / head_dim)
    freqs = torch.outer(torch.arange(positions, device="cuda").float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def reference(torch, x, cos, sin):
    """Hugging Face's x * cos + rotate_half(x) * sin in float32, x (B, S, H,
    D), the tables (S, D)."""
    xf, half = x.float(), x.shape[-1] // 2
    rotated = torch.cat((-xf[..., half:], xf[..., :half]), dim=-1)
    return xf * cos.float()[None, :, None, :] + rotated * sin.float()[None, :, None, :]


def assert_close(torch, got, want):
    """Within one rounding of the output type of the float32 reference."""
    tolerance = {torch.bfloat16: 2 ** -7, torch.float16: 2 ** -10}[got.dtype]
    torch.testing.assert_close(got.float(), want, rtol=tolerance, atol=tolerance / 64)


def qkv_views(torch, batch, seq, heads, kv_heads, head_dim, dtype):
    """(qkv, q, k, v): a fused QKV output (B S, (H + 2 Hkv) D) and its
    (B, S, heads, D) views."""
    qkv = torch.randn(batch * seq, (heads + 2 * kv_heads) * head_dim, device="cuda",
                      dtype=dtype)
    split = qkv.view(batch, seq, heads + 2 * kv_heads, head_dim)
    return (qkv, split[:, :, :heads], split[:, :, heads:heads + kv_heads],
            split[:, :, heads + kv_heads:])


@pytest.mark.parametrize("heads", ((32, 8), (4, 4)), ids=("gqa", "mha"))
@pytest.mark.parametrize("seq", (1, 7, 4096))
@pytest.mark.parametrize("batch", (1, 2))
@pytest.mark.parametrize("head_dim", (64, 128))
@pytest.mark.parametrize("dtype", ("bfloat16", "float16"))
def test_fused_qkv_views_against_hf(hopper, dtype, head_dim, batch, seq, heads):
    torch = hopper
    dtype = getattr(torch, dtype)
    qkv, q, k, v = qkv_views(torch, batch, seq, *heads, head_dim, dtype)
    assert batch * seq == 1 or not q.is_contiguous()
    cos, sin = tables(torch, seq, head_dim, dtype)
    want_q, want_k, v_before = reference(torch, q, cos, sin), reference(torch, k, cos, sin), \
        v.clone()
    assert tile.rope(q, k, cos, sin) is None
    assert_close(torch, q, want_q)
    assert_close(torch, k, want_k)
    assert torch.equal(v, v_before)  # V is not touched


@pytest.mark.parametrize("dtype", ("bfloat16", "float16"))
def test_q_alone_and_unit_dim_tables(hopper, dtype):
    torch = hopper
    dtype = getattr(torch, dtype)
    qkv, q, k, _ = qkv_views(torch, 2, 33, 8, 2, 128, dtype)
    cos, sin = tables(torch, 33, 128, dtype)
    k_before, want = k.clone(), reference(torch, q, cos, sin)
    tile.rope(q, None, cos[None, :, None, :], sin[:, None, :])  # (1, S, 1, D), (S, 1, D)
    assert_close(torch, q, want)
    assert torch.equal(k, k_before)


@pytest.mark.parametrize("batch", (1, 16))
def test_decode_takes_the_table_row_of_its_position(hopper, batch):
    torch = hopper
    length = 1234
    cos, sin = tables(torch, 4096, 128, torch.bfloat16)
    qkv, q, k, _ = qkv_views(torch, batch, 1, 32, 8, 128, torch.bfloat16)
    row = slice(length, length + 1)
    want_q, want_k = (reference(torch, x, cos[row], sin[row]) for x in (q, k))
    tile.rope(q, k, cos[row], sin[row])
    assert_close(torch, q, want_q)
    assert_close(torch, k, want_k)


def test_steady_state_calls_take_new_tensors(hopper):
    """A call like an earlier one takes its prepared launch: new tensors
    (by address), also the tables' rows of another position, must give
    new results."""
    torch = hopper
    cos, sin = tables(torch, 64, 128, torch.bfloat16)
    for position in (3, 3, 17, 63):
        _, q, k, _ = qkv_views(torch, 4, 1, 32, 8, 128, torch.bfloat16)
        row = slice(position, position + 1)
        want_q, want_k = (reference(torch, x, cos[row], sin[row]) for x in (q, k))
        tile.rope(q, k, cos[row], sin[row])
        assert_close(torch, q, want_q)
        assert_close(torch, k, want_k)


def test_in_place_rotation_counts_in_the_version_counters(hopper):
    """Like PyTorch's in-place ops, a rotation bumps q's and k's versions
    (first and prepared calls), so autograd refuses a backward through
    values saved before it; inference tensors, which keep no counter, take
    it too."""
    torch = hopper
    cos, sin = tables(torch, 8, 128, torch.bfloat16)
    for _ in range(2):
        q, k = (torch.randn(1, 8, 4, 128, device="cuda", dtype=torch.bfloat16)
                for _ in range(2))
        versions = (q._version, k._version)
        tile.rope(q, k, cos, sin)
        assert (q._version, k._version) == (versions[0] + 1, versions[1] + 1)
    x = torch.randn(1, 8, 4, 128, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    q = x * 1.0
    saved = q * q  # saves q for its backward
    tile.rope(q.detach(), None, cos, sin)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        saved.sum().backward()
    with torch.inference_mode():
        q = torch.randn(1, 8, 4, 128, device="cuda", dtype=torch.bfloat16)
        want = reference(torch, q, cos, sin)
        tile.rope(q, None, cos, sin)
        assert_close(torch, q, want)


def test_k_is_q_is_an_error_in_the_steady_state_too(hopper):
    """A prepared launch keyed by the tensors' geometry still checks that
    this call's k is not its q."""
    torch = hopper
    q, k = (torch.randn(1, 4, 4, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    cos, sin = tables(torch, 4, 128, torch.bfloat16)
    tile.rope(q, k, cos, sin)
    with pytest.raises(OperandError, match="k must not be q"):
        tile.rope(q, q, cos, sin)


def test_contiguous_inputs_and_a_side_stream(hopper):
    torch = hopper
    q = torch.randn(2, 300, 16, 64, device="cuda", dtype=torch.float16)
    k = torch.randn(2, 300, 4, 64, device="cuda", dtype=torch.float16)
    cos, sin = tables(torch, 300, 64, torch.float16)
    want_q, want_k = reference(torch, q, cos, sin), reference(torch, k, cos, sin)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    tile.rope(q, k, cos, sin, stream=stream)
    stream.synchronize()
    assert_close(torch, q, want_q)
    assert_close(torch, k, want_k)


def test_empty_operands(hopper):
    torch = hopper
    cos, sin = tables(torch, 5, 64, torch.bfloat16)
    empty = torch.empty(1, 0, 4, 64, device="cuda", dtype=torch.bfloat16)
    tile.rope(empty, empty[:, :, :2], cos[:0], sin[:0])
    tile.rope(empty, None, cos[:0], sin[:0])
    # No query heads: k alone is rotated.
    q = torch.empty(1, 5, 0, 64, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 5, 2, 64, device="cuda", dtype=torch.bfloat16)
    want = reference(torch, k, cos, sin)
    tile.rope(q, k, cos, sin)
    assert_close(torch, k, want)


def test_misaligned_and_mismatched_tensors_on_the_gpu(hopper):
    torch = hopper
    flat = torch.randn(3 * 4 * 128 + 8, device="cuda", dtype=torch.bfloat16)
    cos, sin = tables(torch, 3, 128, torch.bfloat16)
    with pytest.raises(OperandError, match="q must start at a 16-byte aligned address"):
        tile.rope(flat[4:4 + 3 * 4 * 128].view(1, 3, 4, 128), None, cos, sin)
    q = flat[:3 * 4 * 128].view(1, 3, 4, 128)
    with pytest.raises(OperandError, match="cos must have q's dtype bfloat16, got float16"):
        tile.rope(q, None, cos.half(), sin)
    with pytest.raises(OperandError, match=r"cos must be \(S, D\) = \(3, 128\)"):
        tile.rope(q, None, cos[:2], sin)
    with pytest.raises(OperandError, match="sin must be a CUDA tensor, got Tensor on cpu"):
        tile.rope(q, None, cos, sin.cpu())
