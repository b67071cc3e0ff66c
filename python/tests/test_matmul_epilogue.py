"""tile.matmul's fused epilogues (bias, residual, activations, the gated
MLP): the planner's rules and errors on plain shapes (no GPU), the kernel
variants' IR, and results against the PyTorch composite on the GPU."""
import pytest

from tile.core.devices import Device
from tile.core.errors import MatmulError
from tile.core.operands import Operand
from tile.ops.epilogue import ACTIVATIONS, Epilogue, epilogue_aliases
from tile.ops.matmul import gemm_source, plan_matmul

H100 = Device(sms=132, capability=(9, 0), shared_optin=232448)


def matrix(rows, cols, dtype="bfloat16", strides=None, address=0x10000):
    return Operand((rows, cols), strides or (cols, 1), dtype, address, "cuda:0")


def transposed(rows, cols):
    """The transpose of a row-major cols x rows matrix (an nn.Linear weight
    as B): rows x cols, column-major."""
    return matrix(rows, cols, strides=(1, rows))


def vector(n, dtype="bfloat16"):
    return Operand((n,), (1,), dtype, 0x20000, "cuda:0")


# --- The planner ---------------------------------------------------------------

def test_decode_shapes_fuse_in_the_decode_kernels_but_gating():
    fused = plan_matmul(matrix(16, 4096), matrix(4096, 4096), None, H100,
                        epilogue=Epilogue(residual=True, activation="silu"),
                        residual=matrix(16, 4096))
    assert fused.decode is not None and fused.decode.epilogue.residual
    # The bias and residual (then an FP8 C's scale and amax) follow A, B, C,
    # K (and a split-K workspace).
    first = 6 if fused.decode.split_k else 4
    assert fused.epilogue_indices == (first, first + 1, first + 2, first + 3)
    # A gated A B^T without a bias runs a decode kernel of 128 columns a CTA
    # (a gate and an up m64 block: 64 columns of C); A B, a bias or an FP8 C
    # the persistent kernel.
    gated = plan_matmul(matrix(16, 4096), transposed(4096, 4096), None, H100,
                        epilogue=Epilogue(activation="silu", gated=True))
    assert gated.decode is not None and gated.decode.columns == 128
    assert gated.decode.epilogue.gated and gated.out_columns == 2048
    assert gated.kernel.startswith("gemm_decode_nt_r16_") and "_c128" in gated.kernel
    nn = plan_matmul(matrix(16, 4096), matrix(4096, 4096), None, H100,
                     epilogue=Epilogue(activation="silu", gated=True))
    assert nn.decode is None and nn.kernel == "gemm_nn"
    assert nn.epilogue_indices == (8, 9, 10, 11) and nn.out_columns == 2048
    biased = plan_matmul(matrix(16, 4096), transposed(4096, 4096), None, H100,
                         epilogue=Epilogue("column", activation="silu", gated=True),
                         bias=matrix(1, 4096))
    assert biased.decode is None


def test_decode_kernels_with_an_epilogue_compile():
    from tile import compile
    from tile.ops.decode import DecodeConfig, decode_source
    for split_k in (False, True):
        config = DecodeConfig("nt", 16, 12, "bf16", split_k=split_k,
                              epilogue=Epilogue("column", True, "gelu"))
        text = decode_source(config)
        assert "tile.warpgroup_activation <gelu>" in text and text.count("tile.warpgroup_add") == 2
        entry = compile(text, chip="sm_90a").manifest["kernels"][config.name]
        assert len(entry["params"]) == (8 if split_k else 6)
    # Gated: 128 columns (a gate and an up block), B read as 8-row blocks.
    gated = DecodeConfig("nt", 16, 4, "bf16", columns=128,
                         epilogue=Epilogue(None, True, "silu", True))
    text = decode_source(gated)
    assert "box = [8, 1, 8, 64]" in text and "%gated = arith.mulf" in text
    compile(text, chip="sm_90a")
    with pytest.raises(ValueError, match="128 columns a CTA"):
        decode_source(DecodeConfig("nt", 16, 12, "bf16", epilogue=Epilogue(gated=True)))
    with pytest.raises(ValueError, match="no bias"):
        decode_source(DecodeConfig("nt", 16, 4, "bf16", columns=128,
                                   epilogue=Epilogue("column", gated=True)))


def test_gating_halves_c():
    plan = plan_matmul(matrix(4096, 4096), matrix(4096, 2 * 14336), None, H100,
                       epilogue=Epilogue(activation="silu", gated=True))
    assert (plan.n, plan.out_columns) == (28672, 14336)
    # out is checked against the half width.
    with pytest.raises(MatmulError, match="out must be 4096 x 14336"):
        plan_matmul(matrix(4096, 4096), matrix(4096, 28672), matrix(4096, 28672), H100,
                    epilogue=Epilogue(activation="silu", gated=True))


@pytest.mark.parametrize("kwargs, message", [
    (dict(epilogue=Epilogue(activation="tanh")), "activation must be one of relu, silu"),
    (dict(epilogue=Epilogue(activation="silu", gated=True), n=264),
     "N must be a multiple of 16, got 264"),
    (dict(epilogue=Epilogue(bias="column"), bias=vector(100)),
     r"a bias is one value per column of A B \(512,\)"),
    (dict(epilogue=Epilogue(bias="column"), bias=vector(512, "float16")),
     "bias must be bfloat16 like A and B"),
    (dict(epilogue=Epilogue(residual=True), residual=matrix(256, 256)),
     "residual must be 256 x 512 like C"),
    (dict(epilogue=Epilogue(bias="column"),
          bias=Operand((512,), (2,), "bfloat16", 0x20000, "cuda:0")),
     r"the bias must be contiguous, got strides \(2,\)"),
    (dict(epilogue=Epilogue(residual=True)), "must be given with it"),
])
def test_epilogue_errors(kwargs, message):
    n = kwargs.pop("n", 512)
    with pytest.raises(MatmulError, match=message):
        plan_matmul(matrix(256, 512), matrix(512, n), None, H100, **kwargs)


def test_odd_or_unaligned_epilogue_operands_are_read_element_by_element():
    """Column pairs (4-byte loads) need even extents, row strides and
    addresses: otherwise the plan's variant loads element by element."""
    fused = Epilogue(bias="column", residual=True)

    def pairs(n=512, residual=None, bias_address=0x20000):
        return plan_matmul(matrix(256, 512), matrix(512, n), None, H100, stage=True,
                           epilogue=fused,
                           bias=Operand((n,), (1,), "bfloat16", bias_address, "cuda:0"),
                           residual=residual or matrix(256, n)).epilogue.pairs
    assert pairs()
    assert not pairs(n=511)
    assert not pairs(residual=matrix(256, 512, strides=(513, 1)))
    assert not pairs(residual=matrix(256, 512, address=0x10002))
    assert not pairs(bias_address=0x20002)
    unpaired = epilogue_aliases(Epilogue(bias="column", residual=True, pairs=False), 256)
    assert unpaired["!bias"] == "memref<?x?x!e, strided<[0, ?], offset: ?>>"
    assert unpaired["!residual"] == "memref<?x?x!e, strided<[?, ?], offset: ?>>"


# --- The kernel's variants -------------------------------------------------------

@pytest.mark.parametrize("tile_n", [256, 128])
def test_epilogue_aliases_pick_the_output_tile_and_staging(tile_n):
    gated = epilogue_aliases(Epilogue(activation="silu", gated=True), tile_n)
    assert gated["#out_tile"] == f"array<i64: 64, {tile_n // 2}>"
    assert gated["!out"] == f"vector<{tile_n // 4}xf32>"
    # One 64x64 chunk (a gated narrow tile) takes one staging buffer.
    assert gated["!staging"] == f"memref<2x{2 if tile_n == 256 else 1}x64x64x!ce, 3>"
    plain = epilogue_aliases(Epilogue(), tile_n)
    assert plain["#bias"] == plain["#residual"] == plain["#gated"] == "false"
    # Three 64x64 chunks (192-wide tiles) take three buffers: a call's
    # chunks are a multiple of them (T-TILE-4).
    assert epilogue_aliases(Epilogue(), 192)["!staging"] == "memref<2x3x64x64x!ce, 3>"
    # Widths no multiple of 64 store 64 x 32 chunks (64-byte rows; an FP8
    # C's 32-byte ones), seven of a 224-wide tile through one buffer.
    fitted = epilogue_aliases(Epilogue(), 224)
    assert fitted["!staging"] == "memref<2x1x64x32x!ce, 3>"
    assert fitted["!dc"].endswith("box = [64, 32], swizzle = b64>")
    assert epilogue_aliases(Epilogue(out="f8E4M3FN"), 160)["#c_swizzle"] == "#tile.swizzle<b32>"
    with pytest.raises(ValueError, match="output is 112 columns"):
        epilogue_aliases(Epilogue(activation="silu", gated=True), 224)
    with pytest.raises(ValueError, match="output is 96 columns"):
        epilogue_aliases(Epilogue(activation="silu", gated=True), 192)


def test_a_gated_epilogue_takes_whole_64_column_halves():
    """N = 576 takes 192- or 160-wide tiles, but a gated one would store
    96- or 80-column halves: the planner offers it 256 and 128 only."""
    for m, width in ((16384, 192), (4096, 160)):
        plain = plan_matmul(matrix(m, 7168), matrix(7168, 576), None, H100)
        gated = plan_matmul(matrix(m, 7168), matrix(7168, 576), None, H100,
                            epilogue=Epilogue(activation="silu", gated=True))
        assert plain.tile_n == width and gated.tile_n == 128


def test_a_residual_takes_no_192_wide_tiles():
    """N = 576 takes 192-wide tiles; with a residual (whose loads spill
    beside 96 accumulators a thread) the planner offers 256, 128 and 64."""
    plain = plan_matmul(matrix(16384, 7168), matrix(7168, 576), None, H100)
    summed = plan_matmul(matrix(16384, 7168), matrix(7168, 576), None, H100,
                         epilogue=Epilogue(residual=True), residual=matrix(16384, 576))
    assert plain.tile_n == 192 and summed.tile_n in (256, 128, 64)


def test_activations_run_ping_pong_consumers():
    """An activation's or an FP8 C's epilogue (gated too) on many tiles of a K up to
    persistent.PINGPONG_MAX_K runs 128 x 128 tiles on ping-pong consumers;
    plain products, a residual alone, A M-major, few tiles or a long K keep
    the cooperative tiles."""
    from tile.ops.matmul import gemm_variant, pingpong_aliases
    from tile.ops.persistent import PINGPONG, PINGPONG_MAX_K
    gelu = Epilogue("column", False, "gelu")
    big = (matrix(4096, 4096), matrix(4096, 16384))

    def planned(a, b, epilogue, bias=None, **kwargs):
        return plan_matmul(a, b, None, H100, epilogue=epilogue, bias=bias, **kwargs)
    p = planned(*big, gelu, vector(16384))
    assert (p.pingpong, p.tile_n, p.grid) == (True, 128, (132, 1, 1))
    # A warpgroup's 128 x 128 accumulators a split-K slot.
    assert p.split_k_shape == ((2 * 132 * 128, 128), 132)
    gated = planned(*big, Epilogue(activation="silu", gated=True))
    assert gated.pingpong and gated.tile_n == 128 and gated.out_columns == 8192
    # An FP8 C (scale, amax) is an epilogue to overlap too.
    assert planned(*big, Epilogue(out="f8E4M3FN")).pingpong
    assert not plan_matmul(*big, None, H100).pingpong
    assert not planned(*big, Epilogue(residual=True), residual=matrix(4096, 16384)).pingpong
    a_mn = matrix(4096, 4096, strides=(1, 4096))
    assert not planned(a_mn, big[1], gelu, vector(16384)).pingpong
    assert not planned(matrix(1024, 1024), matrix(1024, 4096), gelu, vector(4096)).pingpong
    k = PINGPONG_MAX_K + 64
    assert not planned(matrix(4096, k), matrix(k, 16384), gelu, vector(16384)).pingpong
    # The variant: 128 rows a warpgroup, its own staging and workspace.
    text = gemm_source(gemm_variant("bf16", 128, gelu, pingpong=True))
    assert "#pingpong = true" in text and "#mma = array<i64: 128, 128, 64>" in text
    assert pingpong_aliases(128, Epilogue(activation="silu", gated=True))["!staging"] == \
        "memref<2x2x64x64x!ce, 3>"
    assert gemm_variant("bf16", 64, None, pingpong=True)[-1] == PINGPONG
    with pytest.raises(ValueError, match="ping-pong consumers take tiles"):
        pingpong_aliases(256, Epilogue())
    with pytest.raises(ValueError, match="row-major"):
        gemm_variant("bf16", 128, None, a_mn=True, pingpong=True)


def test_the_epilogue_variants_read_what_they_fuse():
    text = gemm_source(("bf16", 256, Epilogue(bias="column", residual=True, activation="gelu")))
    assert "#bias = true" in text and "#residual = true" in text
    assert "#activation = #tile.activation<gelu>" in text
    assert ACTIVATIONS[0] == "identity"


def test_an_fp8_c_is_planned_with_16_byte_rows_of_bytes():
    """An FP8 C's rows are bytes: TMA stores need N to be a multiple of 16
    (else C is staged); the decode kernels store it element by element."""
    fp8 = Epilogue(out="f8E4M3FN")
    plan = plan_matmul(matrix(1000, 512), matrix(512, 304), None, H100, epilogue=fp8)
    assert plan.decode is None and plan.staged == () and plan.epilogue.out == "f8E4M3FN"
    plan = plan_matmul(matrix(1000, 512), matrix(512, 296), None, H100, epilogue=fp8,
                       stage=True)
    assert plan.staged == ("C",) and plan.pitch(296, 1) == 304
    with pytest.raises(MatmulError, match=r"C's rows of 296 elements are 296 bytes, not a "
                                          r"multiple of 16.*a multiple of 16 elements"):
        plan_matmul(matrix(1000, 512), matrix(512, 296), None, H100, epilogue=fp8)
    decode = plan_matmul(matrix(16, 512), matrix(512, 296), None, H100, epilogue=fp8)
    assert decode.decode is not None and decode.decode.epilogue.out == "f8E4M3FN"
    with pytest.raises(MatmulError, match="out must be float8_e4m3fn, got bfloat16"):
        plan_matmul(matrix(1000, 512), matrix(512, 304), matrix(1000, 304), H100,
                    epilogue=fp8)
    with pytest.raises(MatmulError, match="an 8-bit C is one of"):
        plan_matmul(matrix(1000, 512), matrix(512, 304), None, H100,
                    epilogue=Epilogue(out="f8E4M3"))


def test_an_fp8_c_takes_its_own_chunks_scale_and_amax():
    aliases = epilogue_aliases(Epilogue(activation="silu", out="f8E5M2", saturate=False), 256)
    assert aliases["!ce"] == "f8E5M2" and aliases["#c_swizzle"] == "#tile.swizzle<b64>"
    assert "box = [64, 64], swizzle = b64" in aliases["!dc"]
    assert (aliases["#quantize"], aliases["#saturate"]) == ("true", "false")
    assert epilogue_aliases(Epilogue(out="f8E4M3FN"), 192)["#c_max"] == "448.0 : f32"
    assert epilogue_aliases(Epilogue(out="f8E5M2"), 128)["#c_max"] == "57344.0 : f32"
    assert epilogue_aliases(Epilogue(), 256)["#quantize"] == "false"
    from tile.ops.decode import DecodeConfig, decode_source
    text = decode_source(DecodeConfig("nt", 16, 8, "bf16", split_k=True,
                                      epilogue=Epilogue(out="f8E4M3FN")))
    assert "%scale: memref<?xf32>, %amax: memref<?xi32>" in text
    assert "memref<?x?xf8E4M3FN>" in text and "dense<448.0>" in text
    assert "memref.atomic_rmw maxs %warp_peak, %amax[%c0]" in text
    assert "dense<448.0>" not in decode_source(DecodeConfig(
        "nt", 16, 8, "bf16", epilogue=Epilogue(out="f8E4M3FN", saturate=False)))
    with pytest.raises(ValueError, match="a bf16 or f16 C and no fused epilogue"):
        decode_source(DecodeConfig("nt", 16, 8, "f8E4M3FN", out="bf16",
                                   epilogue=Epilogue(out="f8E4M3FN")))


# --- On the GPU ----------------------------------------------------------------

def _reference(torch, a, w, epilogue, bias=None, residual=None):
    from tile.ops.epilogue import apply_epilogue
    return apply_epilogue(torch, a.float() @ w.float().t(), epilogue, bias, residual)


@pytest.mark.parametrize("activation", ["relu", "silu", "gelu", "gelu_tanh"])
@pytest.mark.parametrize("shape", [(512, 768, 384), (200, 296, 1000), (40, 256, 512),
                                   (5000, 576, 2048), (2000, 4096, 512)])
def test_activations_and_bias_match_torch(torch_cuda, activation, shape):
    """Whole and partial tiles (a bias and C clipped at the edges), an M
    that would take a decode kernel, 192-wide tiles (N = 576) and ping-pong
    consumers (16 x 32 tiles, the last row partial); B both ways round."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = shape
    planned = plan_matmul(matrix(m, k), matrix(k, n), None, H100,
                          epilogue=Epilogue("column", False, activation), bias=matrix(1, n))
    assert planned.tile_n == 192 or n != 576
    assert planned.pingpong == (n == 4096)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    want = _reference(torch, a, w, Epilogue("column", False, activation), bias)
    for transpose_b in (True, False):
        b = w if transpose_b else w.t().contiguous()
        for _ in range(2):  # the prepared launch too
            c = tile.matmul(a, b, transpose_b=transpose_b, bias=bias, activation=activation)
            assert c.shape == (m, n)
            assert relative_error(c, want) < 1e-2, (activation, transpose_b)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("m, n, k", [(1000, 1024, 512), (16, 1024, 512), (1, 1024, 4096),
                                     (48, 12288, 512)])
def test_residual_and_row_bias_match_torch(torch_cuda, dtype, m, n, k):
    """The persistent kernel, and the decode kernels (M <= 128: C^T's
    accumulators, the residual and bias read through transposed views,
    split along K at M = 1, on 128 columns a CTA at M = 48)."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    dtype = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.5
    residual = torch.randn(m, n, device="cuda", dtype=dtype)
    rows = torch.randn(m, 1, device="cuda", dtype=dtype)
    c = tile.matmul(a, w, transpose_b=True, residual=residual, bias=rows)
    want = _reference(torch, a, w, Epilogue("row", True), rows, residual)
    assert relative_error(c, want) < 1e-2
    # In place: out is the residual (h += x W^T), twice.
    h = residual.clone()
    for _ in range(2):
        expected = _reference(torch, a, w, Epilogue(None, True), None, h)
        tile.matmul(a, w, transpose_b=True, residual=h, out=h)
        assert relative_error(h, expected) < 1e-2


@pytest.mark.parametrize("shape", [(4096, 2 * 1408, 1024), (300, 2 * 264, 512), (64, 256, 256),
                                   (1, 2 * 1408, 1024), (5, 2 * 4096, 4096), (16, 2 * 264, 512)])
@pytest.mark.parametrize("activation", ["silu", "gelu"])
def test_gated_mlp_matches_torch(torch_cuda, shape, activation):
    """SwiGLU / GeGLU from an interleaved gate/up weight, on wide and narrow
    tiles and in the decode kernels (M <= 64 with N x K weights: split along
    K at 5 x 8192 x 4096, a last CTA with one pair of 8-row blocks at N =
    528), with a residual on the half-width C; tile.gated_mlp end to end."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    F = torch.nn.functional
    m, n, k = shape
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    gate = torch.randn(n // 2, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    up = torch.randn(n // 2, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    w = tile.interleave_gate_up(gate, up)
    act = F.silu if activation == "silu" else F.gelu
    want = act(x.float() @ gate.float().t()) * (x.float() @ up.float().t())
    h = tile.matmul(x, w, transpose_b=True, gated=True, activation=activation)
    assert h.shape == (m, n // 2) and relative_error(h, want) < 1e-2
    residual = torch.randn(m, n // 2, device="cuda", dtype=torch.bfloat16)
    h = tile.matmul(x, w, transpose_b=True, gated=True, activation=activation,
                    residual=residual)
    assert relative_error(h, want + residual.float()) < 1e-2
    # K x N weights interleave along their columns.
    wt = tile.interleave_gate_up(gate.t(), up.t(), dim=-1)
    assert relative_error(tile.matmul(x, wt, gated=True, activation=activation), want) < 1e-2
    down = torch.randn(k, n // 2, device="cuda", dtype=torch.bfloat16) / (n // 2) ** 0.5
    y = tile.gated_mlp(x, w, down, activation=activation, residual=x)
    assert relative_error(y, want @ down.float().t() + x.float()) < 2e-2


@pytest.mark.parametrize("shape", [(1000, 1000, 4096), (300, 640, 4096), (2176, 4224, 1536),
                                   (2176, 3200, 1536), (129, 512, 64)])
@pytest.mark.parametrize("width", [128, 64])
def test_ping_pong_consumers_match_torch(torch_cuda, shape, width):
    """Ping-pong consumers forced onto shapes the planner gives other tiles:
    split tiles (partial ones too; at 2176 x 3200 the split units fall to
    warpgroup 1), odd and even counts of units a CTA, a single K slice;
    plain, bias + GELU and (128-wide) the gated SiLU with a residual; B
    both ways round."""
    from dataclasses import replace
    from tile.core.caches import placeholders
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops import matmul as mm, persistent
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    residual = torch.randn(m, n // 2, device="cuda", dtype=torch.bfloat16)
    unused = placeholders(torch, a.device, a.dtype)[0]
    unread = placeholders(torch, a.device, torch.float32)[1]
    cases = [(Epilogue(), None, None), (Epilogue("column", False, "gelu"), bias, None)]
    if width == 128 and n % 16 == 0:
        cases.append((Epilogue(None, True, "silu", True), None, residual))
    for epilogue, b_vector, r in cases:
        want = _reference(torch, a, w, epilogue, b_vector, r)
        for transpose_b in (True, False):
            b = w if transpose_b else w.t().contiguous()
            rule = mm.plan_matmul(operand_of(a), operand_of(w.t() if transpose_b else b), None,
                                  device(0), epilogue=epilogue,
                                  bias=None if b_vector is None else operand_of(b_vector),
                                  residual=None if r is None else operand_of(r))
            plan = replace(rule, decode=None, kernel="gemm_nt" if transpose_b else "gemm_nn",
                           tile_n=width, pingpong=True, workspace_ctas=132,
                           grid=(persistent.persistent_grid(m, n, k, 132, width), 1, 1))
            c = torch.full((m, plan.out_columns), float("nan"), device="cuda",
                           dtype=torch.bfloat16)
            bias_view = unused if b_vector is None else b_vector.reshape(1, n).expand(m, n)
            arguments = plan.arguments(a, b, c, mm.split_k_buffers(torch, plan, 0), bias_view,
                                       unused if r is None else r, unread,
                                       unread.view(torch.int32))
            mm.kernel(plan)(*arguments, grid=plan.grid)
            assert relative_error(c, want) < 1e-2, (epilogue, transpose_b)


@pytest.mark.parametrize("n", [301, 264])
def test_odd_widths_and_unaligned_residuals_match_torch(torch_cuda, n):
    """An odd N (C stored by the accumulators' own stores, element by
    element: odd rows) and a residual view at an odd element offset: the
    element-by-element variant, every column its own."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    m, k = 300, 128
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    residual = torch.randn(m, n + 1, device="cuda", dtype=torch.bfloat16)[:, 1:]
    for _ in range(2):
        c = tile.matmul(a, w, transpose_b=True, bias=bias, residual=residual,
                        activation="relu")
        want = _reference(torch, a, w, Epilogue("column", True, "relu"), bias, residual)
        assert relative_error(c, want) < 1e-2


def test_epilogue_errors_on_the_gpu(torch_cuda):
    import tile
    torch = torch_cuda
    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(MatmulError, match="apply to f16/bf16 operands without tune="):
        tile.matmul(a, a, activation="silu", tune=True)
    with pytest.raises(MatmulError, match="activation must be one of"):
        tile.matmul(a, a, activation="swish")
    # K = 0: the epilogue of a zero product.
    bias = torch.randn(16, device="cuda", dtype=torch.bfloat16)
    c = tile.matmul(torch.empty(8, 0, device="cuda", dtype=torch.bfloat16),
                    torch.empty(0, 16, device="cuda", dtype=torch.bfloat16), bias=bias,
                    activation="relu")
    assert torch.equal(c, torch.relu(bias).expand(8, 16))


@pytest.mark.parametrize("shape, kwargs", [
    ((1000, 768, 512), dict(bias="column", activation="silu")),
    ((3333, 576, 2048), dict(activation="gelu")),          # 192-wide tiles
    ((300, 296, 256), dict(residual=True)),                 # C staged (296-byte rows)
    ((16, 1024, 512), dict(bias="row", activation="relu")), # a decode kernel
    ((1, 4096, 4096), dict()),                              # decode, split along K
    ((300, 2 * 264, 512), dict(gated=True, activation="silu")),
    ((2048, 4096, 256), dict()),                            # ping-pong consumers
])
@pytest.mark.parametrize("fp8", ["float8_e4m3fn", "float8_e5m2"])
def test_fp8_out_matches_the_composite(torch_cuda, shape, kwargs, fp8):
    """C = fp8(scale * epilogue) and its amax against the float32 composite
    quantized by PyTorch: the persistent kernel (whole, 192-wide and staged
    tiles, gated, ping-pong) and the decode kernels; the amax accumulates."""
    import tile
    from tile.ops.epilogue import quantize
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = shape
    dtype = getattr(torch, fp8)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    n_out = n // 2 if kwargs.get("gated") else n
    operands = {}
    if kwargs.get("bias"):
        operands["bias"] = torch.randn(*((n,) if kwargs["bias"] == "column" else (m, 1)),
                                       device="cuda", dtype=torch.bfloat16)
    if kwargs.get("residual"):
        operands["residual"] = torch.randn(m, n_out, device="cuda", dtype=torch.bfloat16)
    fused = Epilogue(kwargs.get("bias"), bool(kwargs.get("residual")),
                     kwargs.get("activation", "identity"), bool(kwargs.get("gated")),
                     out="f8E4M3FN" if fp8 == "float8_e4m3fn" else "f8E5M2")
    y = _reference(torch, a, w, fused, operands.get("bias"), operands.get("residual"))
    scale = torch.tensor([3.0], device="cuda")
    want_amax = torch.zeros(1, device="cuda")
    want = quantize(torch, y, fused, scale, want_amax)
    amax = torch.zeros(1, device="cuda")
    for _ in range(2):  # the prepared launch too
        c = tile.matmul(a, w, transpose_b=True, activation=kwargs.get("activation"),
                        gated=bool(kwargs.get("gated")), out_dtype=dtype, out_scale=scale,
                        amax=amax, **operands)
        assert c.dtype == dtype and c.shape == (m, n_out)
        # One rounding apart at most where the f32 sums differ in their last bits.
        assert relative_error(c.float(), want.float()) < 2e-2
        assert torch.allclose(amax, want_amax, rtol=1e-2)
    # Raised, never lowered: a larger amax stays.
    amax.fill_(1e6)
    tile.matmul(a, w, transpose_b=True, activation=kwargs.get("activation"),
                gated=bool(kwargs.get("gated")), out_dtype=dtype, out_scale=scale, amax=amax,
                **operands)
    assert amax.item() == 1e6
    # No scale (1) and no amax.
    c = tile.matmul(a, w, transpose_b=True, activation=kwargs.get("activation"),
                    gated=bool(kwargs.get("gated")), out_dtype=dtype, **operands)
    assert relative_error(c.float(), quantize(torch, y, fused).float()) < 2e-2


@pytest.mark.parametrize("m", [1000, 16])
def test_fp8_out_saturates_or_overflows_like_torch(torch_cuda, m):
    """Values past the format: clamped to its largest magnitude (saturate),
    else NaN (e4m3) / inf (e5m2) as PyTorch's own cast gives them."""
    import tile
    from tile.ops.epilogue import quantize
    torch = torch_cuda
    n, k = 512, 256
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    y = a.float() @ w.float().t()
    for fp8, name, largest in ((torch.float8_e4m3fn, "f8E4M3FN", 448.0),
                               (torch.float8_e5m2, "f8E5M2", 57344.0)):
        # A quarter of the values past the largest magnitude.
        scale = torch.tensor([largest / y.abs().quantile(0.75).item()], device="cuda")
        saturated = tile.matmul(a, w, transpose_b=True, out_dtype=fp8, out_scale=scale)
        assert saturated.float().isfinite().all()
        assert saturated.float().abs().max().item() == largest
        want = quantize(torch, y, Epilogue(out=name), scale).float()
        assert (saturated.float() != want).float().mean() < 1e-2
        raw = tile.matmul(a, w, transpose_b=True, out_dtype=fp8, out_scale=scale,
                          saturate=False)
        want = quantize(torch, y, Epilogue(out=name, saturate=False), scale).float()
        overflow = want.isnan() if name == "f8E4M3FN" else want.isinf()
        assert overflow.float().mean() > 0.1
        got = raw.float().isnan() if name == "f8E4M3FN" else raw.float().isinf()
        assert (got != overflow).float().mean() < 1e-2


def test_fp8_out_errors(torch_cuda):
    import tile
    torch = torch_cuda
    a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(MatmulError, match="out_dtype of bfloat16 operands is float8_e4m3fn"):
        tile.matmul(a, a, out_dtype=torch.float32)
    with pytest.raises(MatmulError, match="out_scale applies to an FP8 C"):
        tile.matmul(a, a, out_scale=torch.ones(1, device="cuda"))
    with pytest.raises(MatmulError, match=r"amax must be a float32 tensor of shape \(1,\)"):
        tile.matmul(a, a, out_dtype=torch.float8_e4m3fn,
                    amax=torch.zeros(2, device="cuda"))
    with pytest.raises(MatmulError, match=r"out_scale must be a float32 tensor of shape \(1,\)"):
        tile.matmul(a, a, out_dtype=torch.float8_e4m3fn,
                    out_scale=torch.ones((), device="cuda"))
    # Not silently dropped by (nor passed into) the steady state of a call
    # without an FP8 C.
    bias = torch.randn(256, device="cuda", dtype=torch.bfloat16)
    for _ in range(2):
        tile.matmul(a, a, bias=bias)
    with pytest.raises(MatmulError, match="amax applies to an FP8 C"):
        tile.matmul(a, a, bias=bias, amax=torch.zeros(1, device="cuda"))
    with pytest.raises(MatmulError, match="out_scale must be a float32 tensor"):
        tile.matmul(a, a, out_dtype=torch.float8_e4m3fn, out_scale=2.0)
    with pytest.raises(MatmulError, match="without tune="):
        tile.matmul(a, a, out_dtype=torch.float8_e4m3fn, tune=True)
    with pytest.raises(MatmulError, match="out must be float8_e4m3fn"):
        tile.matmul(a, a, out_dtype=torch.float8_e4m3fn, out=torch.empty_like(a))
    # K = 0: the quantized epilogue of a zero product, and its amax.
    bias = torch.randn(16, device="cuda", dtype=torch.bfloat16)
    amax = torch.zeros(1, device="cuda")
    c = tile.matmul(torch.empty(8, 0, device="cuda", dtype=torch.bfloat16),
                    torch.empty(0, 16, device="cuda", dtype=torch.bfloat16), bias=bias,
                    out_dtype=torch.float8_e4m3fn, amax=amax)
    assert c.dtype == torch.float8_e4m3fn
    assert torch.equal(c.float(), bias.float().to(torch.float8_e4m3fn).float().expand(8, 16))
    assert amax.item() == bias.float().abs().max().item()
