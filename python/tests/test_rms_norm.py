"""tile.rms_norm: the kernel choice and the operand errors on plain shapes
(no GPU), every chosen kernel compiled to PTX and assembled by ptxas
without spills (no GPU), and the results against PyTorch's float32
composite on the GPU, with and without the fused residual add."""
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
from tile.ops.rms_norm import (MAX_HIDDEN, RMS_NORM, RmsNormConfig, config_for, plan_rms_norm,
                               rms_norm_source)
from tile.ops.rms_norm_backward import (RELOAD_FROM, RMS_NORM_BACKWARD,
                                        backward_grid, kernel_name, rms_norm_backward_source)

PYTHON = Path(__file__).resolve().parents[1]

HIDDEN = (8, 64, 4096, 5120, 7168, 8192, 16384)
ROWS = (1, 3, 128, 4097)


def rows(shape, dtype="bfloat16", strides=None, address=0x10000, device="cuda:0"):
    """An Operand of `shape` (packed unless `strides`)."""
    return Operand(tuple(shape), tuple(strides or packed_strides(shape)), dtype, address,
                   device)


def weight(hidden, dtype="bfloat16", address=0x800000, **kwargs):
    return rows((hidden,), dtype, address=address, **kwargs)


# --- The kernel choice (no GPU) ---------------------------------------------------

def test_long_rows_take_a_cta_each_of_at_most_512_threads():
    # (threads, vectors): a power of two of vectors, at least 2, keeps a row
    # within 512 threads; the threads are the whole warps that cover the
    # row (up to 1024 for the longest rows, of 8 vectors).
    want = {4096: (256, 2), 5120: (320, 2), 7168: (448, 2), 8192: (512, 2),
            16384: (512, 4), 2048: (128, 2), 264: (32, 2), 4104: (288, 2),
            32768: (512, 8), MAX_HIDDEN: (1024, 8)}
    for hidden, (threads, vectors) in want.items():
        config = config_for("bf16", hidden)
        assert (config.threads, config.row_threads, config.vectors) == (threads, threads,
                                                                        vectors), hidden
        config.validate()


def test_short_rows_share_a_cta_a_group_of_lanes_each():
    for hidden, lanes in ((8, 1), (16, 2), (24, 4), (64, 8), (136, 32), (256, 32)):
        config = config_for("f16", hidden, residual=True)
        assert (config.threads, config.row_threads, config.vectors) == (256, lanes, 1)
        assert config.rows_per_cta == 256 // lanes
        assert config.name == "rms_norm_residual"


def test_config_rejects_what_the_kernel_cannot_run():
    with pytest.raises(ValueError, match="multiple of 8"):
        RmsNormConfig("bf16", 4100).validate()
    with pytest.raises(ValueError, match="f16 or bf16"):
        RmsNormConfig("f32", 4096).validate()
    with pytest.raises(ValueError, match="do not cover a row"):
        RmsNormConfig("bf16", 4096, threads=128, row_threads=128, vectors=2).validate()
    with pytest.raises(ValueError, match="empty slot"):
        RmsNormConfig("bf16", 4096, threads=256, row_threads=256, vectors=4).validate()
    with pytest.raises(ValueError, match="power of two"):
        RmsNormConfig("bf16", 64, threads=256, row_threads=12, vectors=1).validate()


# --- The plan and its errors (no GPU) ----------------------------------------------

def test_plan_of_a_3d_input_with_a_padded_row_pitch():
    # (2, 3, 4096) rows of a (2, 3, 4160) tensor: one row pitch of 4160.
    x = rows((2, 3, 4096), strides=(3 * 4160, 4160, 1))
    plan = plan_rms_norm(x, weight(4096), rows((2, 3, 4096), address=0x2000000))
    assert (plan.rows, plan.shape, plan.strides) == (6, (2, 3, 4096), (4160, 4096, None, None))
    assert plan.grid == (6, 1, 1) and plan.config.residual
    short = plan_rms_norm(rows((4097, 64)), weight(64))
    assert short.grid == (129, 1, 1)  # 32 rows a CTA


def test_no_rows_plan_no_launch():
    plan = plan_rms_norm(rows((0, 4096)), weight(4096))
    assert plan.rows == 0 and plan.shape == (0, 4096)


def test_rows_past_a_grid():
    with pytest.raises(OperandError, match="2147483648 rows take 2147483648 CTAs"):
        plan_rms_norm(rows((2 ** 31, 4096)), weight(4096))
    assert plan_rms_norm(rows((2 ** 31, 64)), weight(64)).grid == (2 ** 26, 1, 1)


@pytest.mark.parametrize("hidden", (4100, 12, 0, MAX_HIDDEN + 8))
def test_hidden_must_be_a_multiple_of_8(hidden):
    with pytest.raises(OperandError, match=rf"positive multiple of 8 up to {MAX_HIDDEN} .*"
                                           rf"got x of shape \(4, {hidden}\)"):
        plan_rms_norm(rows((4, hidden)), weight(max(hidden, 1)))


def test_dtypes():
    with pytest.raises(OperandError, match="takes float16 or bfloat16 x, got float32"):
        plan_rms_norm(rows((4, 64), "float32"), weight(64, "float32"))
    with pytest.raises(OperandError, match="weight must have x's dtype bfloat16, got float16"):
        plan_rms_norm(rows((4, 64)), weight(64, "float16"))
    with pytest.raises(OperandError, match="residual must have x's dtype float16, got bfloat16"):
        plan_rms_norm(rows((4, 64), "float16"), weight(64, "float16"), rows((4, 64)))
    with pytest.raises(OperandError, match="out must have x's dtype"):
        plan_rms_norm(rows((4, 64)), weight(64), out=rows((4, 64), "float32"))


def test_shapes():
    with pytest.raises(OperandError, match=r"weight must have shape \(H,\) = \(64,\), got "
                                           r"\(128,\)"):
        plan_rms_norm(rows((4, 64)), weight(128))
    with pytest.raises(OperandError, match=r"residual must have x's shape \(2, 3, 64\), got "
                                           r"\(6, 64\)"):
        plan_rms_norm(rows((2, 3, 64)), weight(64), rows((6, 64), address=0x4000000))
    with pytest.raises(OperandError, match=r"out must have x's shape \(4, 64\), got \(4, 128\)"):
        plan_rms_norm(rows((4, 64)), weight(64), out=rows((4, 128), address=0x4000000))
    with pytest.raises(OperandError, match="residual_out is where x . residual goes"):
        plan_rms_norm(rows((4, 64)), weight(64), residual_out=rows((4, 64), address=0x4000000))


def test_rows_must_be_contiguous_and_one_stride_apart():
    with pytest.raises(OperandError, match=r"x must have contiguous rows \(last-dim stride 1\), "
                                           r"got shape \(64, 4096\) with strides \(1, 64\)"):
        plan_rms_norm(rows((64, 4096), strides=(1, 64)), weight(4096))
    # (2, 3) rows of a (2, 4, 64) tensor: no single row stride.
    with pytest.raises(OperandError, match=r"x's leading dims must be one row stride apart .*"
                                           r"strides \(256, 64, 1\)"):
        plan_rms_norm(rows((2, 3, 64), strides=(256, 64, 1)), weight(64))
    with pytest.raises(OperandError, match=r"residual's row stride must be a non-negative "
                                           r"multiple of 8 elements .* got 68"):
        plan_rms_norm(rows((4, 64)), weight(64), rows((4, 64), strides=(68, 1),
                                                      address=0x4000000))
    with pytest.raises(OperandError, match=r"weight must be contiguous, got stride 2"):
        plan_rms_norm(rows((4, 64)), weight(64, strides=(2,)))


def test_addresses_must_be_16_byte_aligned():
    with pytest.raises(OperandError, match="x must start at a 16-byte aligned address .* "
                                           "got 0x10008"):
        plan_rms_norm(rows((4, 64), address=0x10008), weight(64))
    with pytest.raises(OperandError, match="weight must start at a 16-byte aligned address"):
        plan_rms_norm(rows((4, 64)), weight(64, address=0x800002))


def test_devices():
    with pytest.raises(OperandError, match="x must be a CUDA tensor, got one on cpu"):
        plan_rms_norm(rows((4, 64), device="cpu"), weight(64, device="cpu"))
    with pytest.raises(OperandError, match="operands on different devices: x on cuda:0, "
                                           "weight on cuda:1"):
        plan_rms_norm(rows((4, 64)), weight(64, device="cuda:1"))


def test_outputs_may_replace_their_inputs_but_not_overlap_otherwise():
    x, r = rows((4, 64)), rows((4, 64), address=0x20000)
    # vLLM's fused_add_rms_norm: y over x, h over the residual.
    plan_rms_norm(x, weight(64), r, out=x, residual_out=r)
    plan_rms_norm(x, weight(64), out=x)
    with pytest.raises(OperandError, match="residual_out overlaps out"):
        plan_rms_norm(x, weight(64), r, out=x, residual_out=x)
    with pytest.raises(OperandError, match=r"out overlaps x \(bytes \[0x10010, 0x10210\) and "
                                           r"\[0x10000, 0x10200\)\)"):
        plan_rms_norm(x, weight(64), out=rows((4, 64), address=0x10010))
    with pytest.raises(OperandError, match="out overlaps weight"):
        plan_rms_norm(x, weight(64), out=rows((4, 64), address=0x800000))
    with pytest.raises(OperandError, match=r"out's rows overlap \(row stride 0 < H = 64\)"):
        plan_rms_norm(x, weight(64), out=rows((4, 64), strides=(0, 1), address=0x40000))


# --- The kernels compile (no GPU) ----------------------------------------------------

@pytest.mark.parametrize("residual", (False, True), ids=("plain", "residual"))
@pytest.mark.parametrize("element", ("bf16", "f16"))
def test_chosen_kernels_compile_without_spills(element, residual, tmp_path):
    """Each kernel tile.rms_norm picks for HIDDEN: 16-byte loads and stores
    (x, the residual, the weight; h and y), a shuffle reduction, rsqrt, and
    ptxas (where found) allocates it without spilling."""
    ptxas = find_ptxas()
    for hidden in HIDDEN:
        config = config_for(element, hidden, residual)
        ptx = RMS_NORM.module(config).ptx
        vectors = config.vectors
        assert ptx.count("ld.global.v4.b32") == vectors * (3 if residual else 2), hidden
        assert ptx.count("st.global.v4.b32") == vectors * (2 if residual else 1), hidden
        assert "rsqrt.approx.f32" in ptx
        assert ("shfl.sync.bfly.b32" in ptx) == (config.row_threads > 1)
        if ptxas is not None:
            assert ptxas_spills(ptxas, ptx, str(tmp_path)) is None, hidden


@pytest.mark.parametrize("residual", (False, True), ids=("plain", "residual"))
def test_fp8_kernels_compile_without_spills(residual, tmp_path):
    """y quantized per row: 8-byte stores of converted vectors, the row's
    maximumf reduction beside the sum's, one scale store a row; no spills."""
    ptxas = find_ptxas()
    for hidden in (64, 4096, 7168):
        config = config_for("bf16", hidden, residual, "f8E4M3FN")
        assert config.name == ("rms_norm_residual_fp8" if residual else "rms_norm_fp8")
        text = rms_norm_source(config)
        assert f"%y: memref<?x{hidden}xf8E4M3FN, strided<[?, 1], offset: ?>>" in text
        assert "%row_scales: memref<?xf32>" in text
        ptx = RMS_NORM.module(config).ptx
        assert ptx.count("st.global.v2.b32") == config.vectors, hidden
        assert ptx.count("st.global.v4.b32") == (config.vectors if residual else 0), hidden
        assert "cvt.rn.satfinite.e4m3x2.f32" in ptx and "max.NaN.f32" in ptx
        if ptxas is not None:
            assert ptxas_spills(ptxas, ptx, str(tmp_path)) is None, hidden


@pytest.mark.parametrize("residual", (False, True), ids=("plain", "residual"))
def test_backward_kernels_compile_without_spills(residual, tmp_path):
    """tile.ops.rms_norm_backward's kernel for each of HIDDEN: 16-byte loads
    of h, dy (dh_out) and the weight — again after the reductions from four
    vectors a thread — stores of dh and of the f32 partial sums, two
    reductions a row; ptxas allocates it without spilling."""
    ptxas = find_ptxas()
    for hidden in HIDDEN:
        config = config_for("bf16", hidden, residual)
        assert kernel_name(config) == ("rms_norm_backward_residual" if residual
                                       else "rms_norm_backward")
        ptx = RMS_NORM_BACKWARD.module(config).ptx
        vectors = config.vectors
        loads = vectors * (4 if residual else 3) + (3 * vectors if vectors > RELOAD_FROM else 0)
        assert ptx.count("ld.global.v4.b32") == loads, hidden
        # dh: 16 bytes a vector; the partial sums: 8 f32 as two 16-byte stores.
        assert ptx.count("st.global.v4.b32") == 3 * vectors, hidden
        assert "rsqrt.approx.f32" in ptx
        if ptxas is not None:
            assert ptxas_spills(ptxas, ptx, str(tmp_path)) is None, hidden


def test_backward_grid_is_persistent():
    """At most as many CTAs as the SMs hold at 128 registers a thread, at
    most one per group of rows; one partial row per CTA's row slot."""
    assert backward_grid(config_for("bf16", 4096, True), 4096, 132) == (264, 1, 1)
    assert backward_grid(config_for("bf16", 4096, True), 100, 132) == (100, 1, 1)
    assert backward_grid(config_for("bf16", 16384, False), 8192, 132) == (132, 1, 1)
    short = config_for("bf16", 64, False)
    assert short.rows_per_cta == 32
    assert backward_grid(short, 51, 132) == (2, 1, 1)
    text = rms_norm_backward_source(short)
    assert "scf.for %group = %bid to %groups step %grid" in text
    assert "tile.reduce add %my_products over warp, lanes 8 : f32" in text


def test_fp8_plan_errors():
    x, w = rows((4, 4096)), weight(4096)
    assert plan_rms_norm(x, w, quantize="f8E5M2").config.quantize == "f8E5M2"
    with pytest.raises(OperandError, match="out_dtype is x's type or an 8-bit float"):
        plan_rms_norm(x, w, quantize="f32")
    with pytest.raises(OperandError, match="an FP8 y goes to a new tensor"):
        plan_rms_norm(x, w, out=rows((4, 4096), address=0x400000), quantize="f8E4M3FN")


def test_cli_prints_the_chosen_kernel():
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(PYTHON), os.environ.get("PYTHONPATH")])))
    cli = lambda *arguments: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "tile", "rms-norm", *arguments], env=environment,
        capture_output=True, text=True)
    done = cli("--hidden", "5120", "--element", "f16", "--residual")
    assert done.returncode == 0, done.stderr
    assert done.stdout == rms_norm_source(config_for("f16", 5120, True))
    assert "gpu.func @rms_norm_residual(" in done.stdout
    assert "known_block_size = array<i32: 320, 1, 1>" in done.stdout
    assert "tile.reduce add %mine over block : f32" in done.stdout
    bad = cli("--hidden", "12")
    assert bad.returncode == 2 and "multiple of 8" in bad.stderr


def test_cpu_tensors_are_an_operand_error():
    torch = pytest.importorskip("torch")
    x, w = torch.randn(4, 64), torch.randn(64)
    with pytest.raises(OperandError, match="x must be a CUDA tensor, got Tensor on cpu"):
        tile.rms_norm(x, w)


# --- On the GPU ---------------------------------------------------------------------

@pytest.fixture
def hopper(torch_cuda):
    if torch_cuda.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs sm_90a")
    return torch_cuda


def reference(torch, x, w, eps, r=None):
    """(y in float32, h): PyTorch's composite, h = x + r in x's dtype."""
    h = x if r is None else x + r
    hf = h.float()
    return hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps) * w.float(), h


def assert_close(torch, got, want):
    """Within one rounding of the output type of the float32 reference."""
    tolerance = {torch.bfloat16: 2 ** -7, torch.float16: 2 ** -10}[got.dtype]
    torch.testing.assert_close(got.float(), want, rtol=tolerance, atol=tolerance / 64)


@pytest.mark.parametrize("residual", (False, True), ids=("plain", "residual"))
@pytest.mark.parametrize("rows_", ROWS)
@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("dtype", ("bfloat16", "float16"))
def test_against_torch(hopper, dtype, hidden, rows_, residual):
    torch = hopper
    dtype = getattr(torch, dtype)
    x = torch.randn(rows_, hidden, device="cuda", dtype=dtype)
    w = torch.randn(hidden, device="cuda", dtype=dtype)
    r = torch.randn(rows_, hidden, device="cuda", dtype=dtype) if residual else None
    want, h_want = reference(torch, x, w, 1e-6, r)
    got = tile.rms_norm(x, w, 1e-6, residual=r)
    if residual:
        got, h = got
        assert torch.equal(h, h_want)
    assert got.shape == x.shape and got.dtype == dtype
    assert_close(torch, got, want)


@pytest.mark.parametrize("residual", (False, True), ids=("plain", "residual"))
@pytest.mark.parametrize("rows_", (1, 3, 4097))
@pytest.mark.parametrize("hidden", (64, 4096, 7168))
@pytest.mark.parametrize("fp8", ("float8_e4m3fn", "float8_e5m2"))
def test_fp8_out_quantizes_each_row(hopper, fp8, hidden, rows_, residual):
    """y per row: scale = amax / fp8_max of the float32 RMSNorm, y / scale
    converted; a row of zeros gives zeros and scale 0; the scales feed
    tile.matmul's row-wise FP8 product."""
    torch = hopper
    dtype = getattr(torch, fp8)
    largest = torch.finfo(dtype).max
    x = torch.randn(2, rows_, hidden, device="cuda", dtype=torch.bfloat16)
    x[0, 0] = 0
    w = torch.randn(hidden, device="cuda", dtype=torch.bfloat16)
    r = torch.randn(2, rows_, hidden, device="cuda", dtype=torch.bfloat16) if residual else None
    if residual:
        r[0, 0] = 0
    want, h_want = reference(torch, x, w, 1e-6, r)
    for _ in range(2):  # the prepared launch too
        got = tile.rms_norm(x, w, 1e-6, residual=r, out_dtype=dtype)
        y, scales = got[:2]
        if residual:
            assert torch.equal(got[2], h_want)
        assert y.dtype == dtype and y.shape == x.shape
        assert scales.dtype == torch.float32 and scales.shape == (2, rows_, 1)
        amax = want.abs().amax(-1, keepdim=True)
        want_scales = (amax / largest).clamp_min(1 / (largest * 512))
        torch.testing.assert_close(scales, want_scales, rtol=1e-5, atol=0)
        # A row of zeros: the least scale (vLLM's), zeros.
        assert scales[0, 0].item() == pytest.approx(1 / (largest * 512))
        assert not y[0, 0].float().any()
        quantized = (want / want_scales).to(dtype)
        # One rounding apart where the f32 RMSNorms differ in their last bits.
        assert (y.float() != quantized.float()).float().mean() < 1e-2
        torch.testing.assert_close(y.float() * scales, want, rtol=0.13, atol=amax.max().item() / 8)
    if hidden == 4096 and rows_ == 4097 and fp8 == "float8_e4m3fn" and not residual:
        w8 = torch.randn(512, hidden, device="cuda").to(dtype)
        ones = torch.ones(512, 1, device="cuda")
        c = tile.matmul(y.view(-1, hidden), w8.t(), scale_a=scales.view(-1, 1), scale_b=ones,
                        out_dtype=torch.bfloat16)
        product = (y.view(-1, hidden).float() * scales.view(-1, 1)) @ w8.float().t()
        assert ((c.float() - product).norm() / product.norm()).item() < 1e-2


def test_fp8_tiny_and_nan_rows(hopper):
    """A row far below the least scale stays finite (its 1 / scale too); a
    row with a NaN gives a NaN row and scale."""
    torch = hopper
    x = torch.randn(3, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.full((4096,), 1e-30, device="cuda", dtype=torch.bfloat16)
    x[2, 7] = float("nan")
    y, scales = tile.rms_norm(x, w, out_dtype=torch.float8_e4m3fn)
    assert y[:2].float().isfinite().all() and scales[:2].isfinite().all()
    assert y[2].float().isnan().all() and scales[2].isnan().all()


def test_3d_input_with_padded_rows_and_out(hopper):
    torch = hopper
    base = torch.randn(2, 5, 4160, device="cuda", dtype=torch.bfloat16)
    x = base[..., :4096]  # rows 4160 elements apart
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    out = torch.full((2, 5, 4096), float("nan"), device="cuda", dtype=torch.bfloat16)
    assert tile.rms_norm(x, w, 1e-5, out=out) is out
    assert_close(torch, out, reference(torch, x, w, 1e-5)[0])
    one = tile.rms_norm(x[1, 2], w, 1e-5)  # a single row, 1-D
    assert one.shape == (4096,) and torch.equal(one, out[1, 2])
    assert torch.isnan(base[..., 4096:]).sum() == 0  # the padding is not written
    padded_out = torch.zeros(2, 5, 4160, device="cuda", dtype=torch.bfloat16)
    tile.rms_norm(x, w, 1e-5, out=padded_out[..., :4096])
    assert torch.equal(padded_out[..., :4096], out)
    assert not padded_out[..., 4096:].any()


def test_residual_in_place_as_vllm(hopper):
    torch = hopper
    x = torch.randn(33, 5120, device="cuda", dtype=torch.float16)
    r = torch.randn(33, 5120, device="cuda", dtype=torch.float16)
    w = torch.randn(5120, device="cuda", dtype=torch.float16)
    want, h_want = reference(torch, x, w, 1e-6, r)
    y, h = tile.rms_norm(x, w, 1e-6, residual=r, out=x, residual_out=r)
    assert y is x and h is r
    assert torch.equal(r, h_want)
    assert_close(torch, x, want)


def test_steady_state_calls_take_new_tensors_and_eps(hopper):
    """A call like an earlier one takes its prepared launch: new tensors
    (by address) and a new eps must give new results."""
    torch = hopper
    make = lambda: torch.randn(64, 4096, device="cuda", dtype=torch.bfloat16)  # noqa: E731
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    for eps in (1e-6, 1e-6, 0.5, 2.0):
        x, r = make(), make()
        y, h = tile.rms_norm(x, w, eps, residual=r)
        want, h_want = reference(torch, x, w, eps, r)
        assert torch.equal(h, h_want)
        assert_close(torch, y, want)
        y = tile.rms_norm(x, w, eps)
        assert_close(torch, y, reference(torch, x, w, eps)[0])


def test_no_rows_no_launch(hopper):
    torch = hopper
    x = torch.empty(0, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    assert tile.rms_norm(x, w).shape == (0, 4096)
    y, h = tile.rms_norm(x.view(2, 0, 4096), w, residual=x.view(2, 0, 4096))
    assert y.shape == h.shape == (2, 0, 4096)


def test_side_stream(hopper):
    torch = hopper
    x = torch.randn(300, 8192, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(8192, device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        y = tile.rms_norm(x, w)
    z = tile.rms_norm(x, w, stream=stream)
    stream.synchronize()
    want = reference(torch, x, w, 1e-6)[0]
    assert_close(torch, y, want)
    assert_close(torch, z, want)


def test_misaligned_and_mismatched_tensors_on_the_gpu(hopper):
    torch = hopper
    flat = torch.randn(4 * 4096 + 8, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(OperandError, match="x must start at a 16-byte aligned address"):
        tile.rms_norm(flat[4:4 + 4 * 4096].view(4, 4096), w)
    x = flat[:4 * 4096].view(4, 4096)
    with pytest.raises(OperandError, match="weight must have x's dtype bfloat16, got float16"):
        tile.rms_norm(x, w.half())
    with pytest.raises(OperandError, match="x must have contiguous rows"):
        tile.rms_norm(torch.randn(4096, 8, device="cuda", dtype=torch.bfloat16).t(), w)
    with pytest.raises(OperandError, match="weight must be a CUDA tensor, got Tensor on cpu"):
        tile.rms_norm(x, w.cpu())
