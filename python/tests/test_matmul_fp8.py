"""tile.matmul with FP8 operands: the planner's checks on plain shapes (no
GPU), and results against a float32 reference and torch._scaled_mm on the
GPU."""
import pytest

from tile.core.devices import Device
from tile.core.errors import MatmulError
from tile.core.operands import Operand
from tile.ops.scaled_matmul import (FP8_BLOCKWISE_KERNEL, FP8_KERNEL, FP8_MULTICAST_KERNEL,
                                    plan_scaled_matmul)

H100 = Device(sms=132, capability=(9, 0), shared_optin=232448)
E4M3 = "float8_e4m3fn"


def matrix(rows, cols, dtype=E4M3, strides=None, address=0x10000, device="cuda:0"):
    return Operand((rows, cols), strides or (cols, 1), dtype, address, device)


def transposed(rows, cols, **kwargs):
    """The rows x cols view of a row-major cols x rows matrix."""
    return matrix(rows, cols, strides=(1, rows), **kwargs)


def scales(*shape, dtype="float32"):
    strides = (shape[1], 1) if len(shape) == 2 else (1,)
    return Operand(shape, strides, dtype, 0x20000, "cuda:0")


def plan(a, b, sa=None, sb=None, out=None, out_dtype="bfloat16", device=H100, shared=None):
    m, n = a.shape[0], b.shape[1]
    return plan_scaled_matmul(a, b, sa or scales(m), sb or scales(n), out, out_dtype, device,
                              shared)


# --- The planner -------------------------------------------------------------

def test_four_waves_of_tiles_run_in_multicast_clusters():
    for sa, sb in ((scales(4096), scales(8192)), (scales(1), scales(1))):
        p = plan(matrix(4096, 8192), transposed(8192, 8192), sa, sb)
        # 32 x 32 tiles: 7.8 waves on 132 SMs; 16 x 32 pairs over 66 clusters
        # (K past persistent.PINGPONG_MAX_K).
        assert p.multicast and p.kernel == FP8_MULTICAST_KERNEL and not p.pingpong
        assert p.elements == ("f8E4M3FN", "f8E4M3FN", "bf16")
        assert p.grid == (132, 1, 1)
        assert (p.m, p.n, p.k) == (4096, 8192, 8192)
    # 2 x 3 pairs of row tiles: 6 clusters.
    assert plan(matrix(512, 8192), transposed(8192, 768), device=Device(2, (9, 0))).grid \
        == (2, 1, 1)
    assert plan(matrix(1024, 8192), transposed(8192, 768), device=Device(6, (9, 0))).grid \
        == (6, 1, 1)


def test_many_tiles_of_a_short_k_run_ping_pong_consumers():
    """128 x 128 tiles, each consumer warpgroup every other one, where there
    are two such tiles a CTA or more and K <= persistent.PINGPONG_MAX_K."""
    from tile.ops.persistent import PINGPONG_MAX_K
    p = plan(matrix(4096, 1024), transposed(1024, 8192))
    assert (p.kernel, p.tile_n, p.pingpong, p.grid) == (FP8_KERNEL, 128, True, (132, 1, 1))
    assert p.variant == ("f8E4M3FN", "f8E4M3FN", "bf16", 128, "pingpong")
    # A warpgroup's 128 x 128 accumulators a split-K slot.
    assert p.split_k_shape == ((2 * 132 * 128, 128), 132)
    assert plan(matrix(16384, 1536), transposed(1536, 24576)).pingpong
    assert plan(matrix(4096, PINGPONG_MAX_K), transposed(PINGPONG_MAX_K, 4096)).pingpong
    assert not plan(matrix(4096, PINGPONG_MAX_K + 128),
                    transposed(PINGPONG_MAX_K + 128, 4096)).pingpong
    # Under two 128 x 128 tiles a CTA (16 x 16), or 192-wide tiles (N = 576).
    assert not plan(matrix(2048, 1024), transposed(1024, 2048)).pingpong
    assert not plan(matrix(16384, 7168), transposed(7168, 576)).pingpong
    # Where 192-wide tiles would run: ping-pong where its last wave is at
    # least persistent.PINGPONG_LAST_WAVE full (2 x 192 tiles: 0.91), not
    # where it is 0.36 full (8 x 72), nor past K = 4096 (32 x 12), nor
    # where 224-wide tiles would run (4 x 224).
    assert plan(matrix(256, 1536), transposed(1536, 24576)).pingpong
    assert not plan(matrix(1024, 4096), transposed(4096, 9216)).pingpong
    assert not plan(matrix(4096, 7168), transposed(7168, 1536)).pingpong
    assert plan(matrix(512, 2048), transposed(2048, 28672)).tile_n == 224


def test_fewer_tiles_or_a_split_tail_run_the_persistent_kernel():
    # 16 x 28 = 448 tiles: 3.4 waves, the last one split along K.
    assert not plan(matrix(2048, 1024), transposed(1024, 7168)).multicast
    # Fewer than MULTICAST_MIN_WAVES waves of a long K: 16 x 32 tiles (3.9
    # waves, no split tail) on 256-wide tiles, 12 x 28 (2.5) on 224-wide ones.
    for (m, n, k), width in (((2048, 8192, 7296), 256), ((1536, 7168, 8192), 224)):
        p = plan(matrix(m, k), transposed(k, n))
        assert (p.kernel, p.tile_n, p.pingpong) == (FP8_KERNEL, width, False)
    # 14 x 10 = 140 tiles: 1.06 waves; 160-wide tiles (14 x 16 = 224, 1.7
    # waves) fit the SMs better (persistent.tile_width; NVIDIA H200: 13.2
    # µs against 18.1 on 192-wide tiles, 24.4 on 256-wide ones).
    p = plan(matrix(1792, 1024), transposed(1024, 2560))
    assert not p.multicast and p.kernel == FP8_KERNEL
    assert p.grid == (132, 1, 1)  # one CTA per SM, as tile.matmul's
    assert p.tile_n == 160 and p.variant == ("f8E4M3FN", "f8E4M3FN", "bf16", 160)
    # The persistent kernels' split-K workspace: 2 x SMs x 128 rows of a
    # thread's 64 x width / 128 accumulators.
    assert p.split_k_shape == ((2 * 132 * 128, 80), 132)
    # Ping-pong where it paid before the fitted widths (the cooperative
    # choice would be 224 wide).
    p = plan(matrix(2048, 4096), transposed(4096, 7168))
    assert p.pingpong and p.tile_n == 128
    # Fewer tiles than SMs: one CTA a tile, split along K only into ranges
    # of 16 or more 128-element slices; narrow tiles where the wide ones
    # leave most SMs idle (96 wide: 4 x 6 tiles).
    small = plan(matrix(512, 512), transposed(512, 512))
    assert (small.kernel, small.tile_n, small.grid) == (FP8_KERNEL, 96, (24, 1, 1))
    assert small.split_k_shape == ((2 * 132 * 128, 48), 132)
    # 2 x 43 tiles 96 wide, unsplit (NVIDIA H200: 11.7 µs against 13.5 for
    # 64 tiles 128 wide split in 2).
    p = plan(matrix(256, 4096), transposed(4096, 4096))
    assert (p.tile_n, p.grid) == (96, (86, 1, 1))
    # M <= 64: the FP8 decode kernels (C^T = B A^T, 64 columns a CTA, the
    # scales as two more arguments, by address in a prepared launch).
    decode = plan(matrix(16, 4096), transposed(4096, 6144))
    assert decode.decode is not None and decode.grid == (96, 1, 1)
    assert decode.kernel == "gemm_decode_nt_r16_s6_k2_e4m3fn_e4m3fn_bf16"
    assert decode.arguments("a", "b", "c", "sa", "sb") == ("a", "b", "c", 4096, "sa", "sb")
    assert decode.varying == (0, 1, 2, 4, 5) and decode.split_k_shape is None
    mixed = plan(matrix(1, 7168), transposed(7168, 576, dtype="float8_e5m2"), out_dtype="float16")
    assert mixed.kernel == "gemm_decode_nt_r8_s6_k2_sk_e4m3fn_e5m2_f16"
    assert mixed.grid == (9, 3, 1) and mixed.varying == (0, 1, 2, 6, 7)  # 28 stages: 3 splits
    assert mixed.split_k_shape == ((9 * 3 * 128, 4), 9)
    # Up to M = 128 (n = M rounded up to 8), but where the decode config
    # would take 128 columns a CTA (wide N), the persistent kernel.
    assert plan(matrix(100, 4096), transposed(4096, 4096)).kernel == \
        "gemm_decode_nt_r104_s5_k2_e4m3fn_e4m3fn_bf16"
    assert plan(matrix(128, 4096), transposed(4096, 28672)).kernel == FP8_KERNEL
    # A C whose rows are padded takes the persistent kernel.
    padded = plan(matrix(16, 4096), transposed(4096, 6144), out=matrix(16, 6144, "bfloat16",
                                                                          strides=(6208, 1)))
    assert padded.decode is None and (padded.kernel, padded.tile_n) == (FP8_KERNEL, 96)
    wide = plan(matrix(1024, 8192), transposed(8192, 4096))
    assert wide.tile_n == 256 and wide.variant == ("f8E4M3FN", "f8E4M3FN", "bf16")
    # N = 576: 192-wide tiles without padding beat the 256-wide clusters.
    kv_a = plan(matrix(16384, 7168), transposed(7168, 576))
    assert (kv_a.kernel, kv_a.tile_n) == (FP8_KERNEL, 192)


def test_the_gpu_tests_shapes_plan_as_they_say():
    """test_fp8_matches_float32_reference's ping-pong, cluster and fitted
    shapes."""
    assert plan(matrix(4248, 1024), transposed(1024, 8192)).pingpong
    assert plan(matrix(2560, 7296), transposed(7296, 8192)).multicast
    assert [plan(matrix(m, k), transposed(k, n)).tile_n for m, n, k in (
        (512, 7168, 2048), (384, 9000, 1024), (1000, 5000, 2048), (256, 4096, 4096),
        (256, 2560, 16384))] == [224, 224, 160, 96, 160]


def test_e5m2_pairs_and_f16_output_pick_the_kernel_variant():
    p = plan(matrix(256, 64), transposed(64, 512, dtype="float8_e5m2"), out_dtype="float16")
    assert p.elements == ("f8E4M3FN", "f8E5M2", "f16")


def test_block_scales_run_the_blockwise_kernel():
    # A: (M, K / 128) = (512, 8); B: (N / 128, K / 128) = (6, 8).
    p = plan(matrix(512, 1024), transposed(1024, 768), scales(512, 8), scales(6, 8))
    assert p.blockwise and p.kernel == FP8_BLOCKWISE_KERNEL
    assert p.grid == (24, 1, 1)  # 4 x 6 tiles of 128 x 128
    # Partial blocks round up: K = 208 is 2 blocks, N = 304 is 3.
    assert plan(matrix(64, 208), transposed(208, 304), scales(64, 2), scales(3, 2)).blockwise
    # One block each way is row-wise scaling (the same product).
    assert not plan(matrix(64, 128), transposed(128, 128), scales(64, 1), scales(1, 1)).blockwise


def test_block_scales_run_128_row_tiles_on_every_sm():
    # 8192^3: 4096 tiles of 128 x 128 on the 132 SMs, no workspace.
    big = plan(matrix(8192, 8192), transposed(8192, 8192), scales(8192, 64), scales(64, 64))
    assert big.blockwise and big.grid == (132, 1, 1) and big.split_k_shape is None
    small = plan(matrix(256, 4096), transposed(4096, 512), scales(256, 32), scales(4, 32))
    assert small.kernel == FP8_BLOCKWISE_KERNEL and small.grid == (8, 1, 1)


@pytest.mark.parametrize("case, message", [
    (lambda: plan(matrix(64, 64, dtype="float16"), transposed(64, 64)),
     "takes float8_e4m3fn or float8_e5m2 operands, got A of float16"),
    (lambda: plan(matrix(64, 64), matrix(64, 64)),
     r"FP8 wgmma reads B K-major only \(T-WGMMA-3\)"),
    (lambda: plan(matrix(64, 72), transposed(72, 64)),
     r"not 16-byte aligned: TMA needs .* \(T-TMA-9, T-TMA-10\), so an FP8 K must be a "
     "multiple of 16"),
    (lambda: plan(matrix(64, 64), transposed(64, 100)),
     r"C's rows \(100 elements of 2 bytes"),
    (lambda: plan(matrix(64, 64, address=0x10008), transposed(64, 64)),
     "A's rows .* from 0x10008"),
    (lambda: plan(matrix(64, 64), transposed(64, 64), sa=scales(32)),
     r"scale_a must be float32 with 1 element \(per tensor\) or 64 \(one per row of A\), "
     r"or scale_a \(64, 1\) and scale_b \(1, 1\)"),
    (lambda: plan(matrix(64, 512), transposed(512, 256), sa=scales(64, 4), sb=scales(2, 3)),
     r"scale_a must be float32 .* got float32 of shape \(64, 4\)"),
    (lambda: plan(matrix(64, 64), transposed(64, 128), sb=scales(128, dtype="float16")),
     "scale_b must be float32 .* got float16"),
    (lambda: plan(matrix(64, 64), transposed(64, 64), out_dtype="float32"),
     "stored as bfloat16 or float16, got out_dtype float32"),
    (lambda: plan(matrix(64, 64), transposed(64, 64), out=matrix(64, 64, "float16")),
     "out is float16, out_dtype bfloat16"),
    (lambda: plan(matrix(64, 32), transposed(64, 64)),
     "A is 64 x 32 but B, as K x N, is 64 x 64"),
    (lambda: plan(matrix(64, 64), transposed(64, 64), device=Device(108, (8, 0))),
     "runs Hopper kernels"),
    (lambda: plan(matrix(256, 64), transposed(64, 64), device=Device(132, (9, 0), 100000),
                  shared=229376),
     "needs 229376 bytes of shared memory"),
])
def test_planner_errors(case, message):
    with pytest.raises(MatmulError, match=message):
        case()


# --- On the GPU -----------------------------------------------------------------

def fp8_operands(torch, m, n, k, a_dtype="float8_e4m3fn", b_dtype="float8_e4m3fn", seed=0):
    """Random FP8 A (M x K) and W (N x K) with their float32 values."""
    generator = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(m, k, device="cuda", generator=generator).to(getattr(torch, a_dtype))
    w = torch.randn(n, k, device="cuda", generator=generator).to(getattr(torch, b_dtype))
    return a, w


@pytest.mark.parametrize("m, n, k", [(256, 512, 512), (200, 296, 208), (8, 4096, 1024),
                                     (1000, 8, 4096), (300, 1032, 1040), (16, 6144, 4096),
                                     # Ping-pong consumers: 34 x 64 tiles, odd row tiles.
                                     (4248, 8192, 1024),
                                     # 2x1 clusters (>= 4 waves, a long K): 20 x 32 tiles.
                                     (2560, 8192, 7296),
                                     # The widths that fit the waves (C in 64 x 32
                                     # chunks): 224 whole and partial, 160 and 96
                                     # partial in N, 160 split along K.
                                     (512, 7168, 2048), (384, 9000, 1024), (1000, 5000, 2048),
                                     (256, 4096, 4096), (256, 2560, 16384)])
@pytest.mark.parametrize("rowwise", [False, True])
def test_fp8_matches_float32_reference(torch_cuda, m, n, k, rowwise):
    """Per-tensor and row-wise scales, bf16 C, against the float32 product of
    the same FP8 values (and torch._scaled_mm's error on them)."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    a, w = fp8_operands(torch, m, n, k, seed=m + n + k)
    if rowwise:
        sa = torch.rand(m, 1, device="cuda") + 0.5
        sb = torch.rand(1, n, device="cuda") + 0.5
    else:
        sa = torch.tensor(0.75, device="cuda")
        sb = torch.tensor(1.25, device="cuda")
    reference = (a.float() @ w.float().t()) * sa * sb
    c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb)
    c_t = tile.matmul(a, w, transpose_b=True, scale_a=sa, scale_b=sb)
    torch.cuda.synchronize()
    assert c.shape == (m, n) and c.dtype == torch.bfloat16
    assert torch.equal(c, c_t)
    error = relative_error(c, reference)
    assert error < 1e-2
    if n % 16 == 0 and k % 16 == 0:
        theirs = torch._scaled_mm(a, w.t(), scale_a=sa.reshape(-1, 1) if rowwise else sa,
                                  scale_b=sb.reshape(1, -1) if rowwise else sb,
                                  out_dtype=torch.bfloat16)
        # Both round the same f32 sums to bf16: no worse than cuBLAS, within rounding.
        assert error <= 1.5 * relative_error(theirs, reference) + 1e-3


@pytest.mark.parametrize("m, n, k", [(1, 4096, 4096), (13, 600, 7168), (64, 1032, 2048),
                                     (40, 576, 16384), (20, 1032, 2048)])
@pytest.mark.parametrize("rowwise", [False, True])
def test_fp8_decode_kernels_match_float32_reference(torch_cuda, m, n, k, rowwise):
    """M <= 64 on the FP8 decode kernels (C^T = B A^T), whole and partial
    64-column tiles, split along K or not, e4m3 x e5m2 into f16 too."""
    import tile
    from tile.core.operands import operand_of
    from tile.core.devices import device
    from tile.ops.scaled_matmul import plan_scaled_matmul
    from tile.testing import relative_error
    torch = torch_cuda
    a, w = fp8_operands(torch, m, n, k, b_dtype="float8_e5m2" if m == 13 else "float8_e4m3fn",
                        seed=m * n)
    if rowwise:
        sa, sb = torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5
    else:
        sa, sb = torch.tensor(0.75, device="cuda"), torch.tensor(1.25, device="cuda")
    out_dtype = torch.float16 if m == 13 else torch.bfloat16
    p = plan_scaled_matmul(*(operand_of(t) for t in (a, w.t(), sa, sb)), None,
                           str(out_dtype).split(".")[-1], device(a.get_device()))
    assert p.decode is not None
    reference = (a.float() @ w.float().t()) * sa * sb
    for _ in range(2):  # the prepared launch too
        c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=out_dtype)
        assert c.dtype == out_dtype and relative_error(c, reference) < 1e-2


@pytest.mark.parametrize("a_dtype, b_dtype", [("float8_e4m3fn", "float8_e5m2"),
                                              ("float8_e5m2", "float8_e4m3fn"),
                                              ("float8_e5m2", "float8_e5m2")])
def test_fp8_type_pairs_and_f16_out(torch_cuda, a_dtype, b_dtype):
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = 256, 384, 512
    a, w = fp8_operands(torch, m, n, k, a_dtype, b_dtype)
    sa, sb = torch.rand(m, device="cuda") + 0.5, torch.tensor([2.0], device="cuda")
    out = torch.empty(m, n, device="cuda", dtype=torch.float16)
    returned = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb, out=out)
    torch.cuda.synchronize()
    assert returned is out
    reference = (a.float() @ w.float().t()) * sa[:, None] * sb
    assert relative_error(out, reference) < 1e-2


# K blocks in pairs and an odd one (464: 4 blocks, the last partial; 640:
# 5; 1152: 9); 1100 x 2048: a last row tile of 76 rows and a second wave.
@pytest.mark.parametrize("m, n, k", [(256, 512, 1024), (200, 296, 464), (1024, 4096, 2048),
                                     (1100, 2048, 640), (1000, 3000, 1152)])
def test_block_scaled_fp8_is_closer_than_row_wise(torch_cuda, m, n, k):
    """Float32 matrices with outliers quantized per 1x128 / 128x128 block run
    the blockwise kernel (f32 promotion per K block): correct against the
    float32 product of the dequantized values, and closer to the product of
    the original matrices than their row-wise quantization through
    torch._scaled_mm (or tile's row-wise kernel where that is missing)."""
    import tile
    from tile.testing import dequantize_fp8, quantize_fp8, relative_error
    torch = torch_cuda
    generator = torch.Generator(device="cuda").manual_seed(m + k)
    x = torch.randn(m, k, device="cuda", generator=generator)
    y = torch.randn(n, k, device="cuda", generator=generator)
    x[:, :: 97] *= 30  # outlier columns, as activations have
    exact = x @ y.t()
    a, sa = quantize_fp8(x, (1, 128))
    w, sb = quantize_fp8(y, (128, 128))
    c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb)
    dequantized = dequantize_fp8(a, sa, (1, 128)) @ dequantize_fp8(w, sb, (128, 128)).t()
    torch.cuda.synchronize()
    assert relative_error(c, dequantized) < 1e-2
    ar, sar = quantize_fp8(x, (1, k))
    wr, sbr = quantize_fp8(y, (1, k))
    if n % 16 == 0 and k % 16 == 0:
        row_wise = torch._scaled_mm(ar, wr.t(), scale_a=sar, scale_b=sbr.t(),
                                    out_dtype=torch.bfloat16)
    else:
        row_wise = tile.matmul(ar, wr.t(), scale_a=sar, scale_b=sbr)
    assert relative_error(c, exact) <= relative_error(row_wise, exact)


def test_fp8_split_k_tail_and_stream(torch_cuda):
    """14 x 14 192-wide tiles on 132 CTAs split the last 64 along K
    (tile.work_unit split_k, 96 accumulators a thread); on a side stream,
    twice (the counters come back to zero)."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = 1792, 2560, 2048
    a, w = fp8_operands(torch, m, n, k, seed=7)
    sa, sb = torch.rand(m, device="cuda") + 0.5, torch.rand(n, device="cuda") + 0.5
    reference = (a.float() @ w.float().t()) * sa[:, None] * sb
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(2):
            c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb)
    stream.synchronize()
    assert relative_error(c, reference) < 1e-2


def test_strided_row_wise_scales(torch_cuda):
    """A column slice and an expanded scalar as row-wise scales (strides 2
    and 0): the kernels take unit-stride vectors, so tile.matmul copies."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = 256, 512, 256
    a, w = fp8_operands(torch, m, n, k, seed=3)
    pairs = torch.rand(m, 2, device="cuda") + 0.5
    sa = pairs[:, :1]                                        # stride (2, 1)
    sb = torch.tensor([[1.5]], device="cuda").expand(1, n)   # stride (0, 0)
    c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb)
    torch.cuda.synchronize()
    reference = (a.float() @ w.float().t()) * sa * 1.5
    assert relative_error(c, reference) < 1e-2


def test_fp8_errors_on_the_gpu(torch_cuda):
    import tile
    torch = torch_cuda
    a, w = fp8_operands(torch, 64, 64, 64)
    one = torch.ones(1, device="cuda")
    with pytest.raises(MatmulError, match="FP8 operands take scale_a and scale_b"):
        tile.matmul(a, w.t())
    with pytest.raises(MatmulError, match="K-major only"):
        tile.matmul(a, w.t().contiguous(), scale_a=one, scale_b=one)
    with pytest.raises(MatmulError, match="scale_a must be a CUDA tensor"):
        tile.matmul(a, w.t(), scale_a=one.cpu(), scale_b=one)
    with pytest.raises(MatmulError, match="tune= applies to f16/bf16"):
        tile.matmul(a, w.t(), scale_a=one, scale_b=one, tune=True)
    with pytest.raises(MatmulError, match="out_dtype of float16 operands is float8_e4m3fn or "
                                          "float8_e5m2 .C quantized., or their own type"):
        tile.matmul(a.half(), w.half().t(), out_dtype=torch.bfloat16)


def test_kernel_variants_compile_with_their_element_types(tmp_path):
    """Each (A, B, C) variant compiles; its manifest's tensor maps carry the
    8-bit types as u8 (CUtensorMapDataType 0) and C's 16-bit type."""
    from tile.ops.scaled_matmul import FP8
    module = FP8.module(("f8E5M2", "f8E4M3FN", "f16"))
    parameters = module.manifest["kernels"][FP8_KERNEL]["params"]
    maps = [p for p in parameters if p["kind"] == "tensor_map"]
    assert [(m["element"], m["data_type"]) for m in maps] == [
        ("f8E5M2", 0), ("f8E4M3FN", 0), ("f16", 6)]
    assert "m64n256k32.f32.e5m2.e4m3" in module.ptx
