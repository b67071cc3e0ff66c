"""tile.matmul: the planner's choices and errors on plain shapes (no GPU),
and results against torch.matmul on the GPU."""
import pytest

from tile.core.devices import Device
from tile.core.errors import MatmulError
from tile.core.operands import Operand, cdiv
from tile.ops.decode import (FP8_SLICE, RESIDENT_STAGES, DecodeConfig, decode_config,
                             decode_cost, decode_grid, decode_source, decode_splits,
                             resident_ctas, rows_for)
from tile.ops.matmul import decode_pays, plan_matmul
from tile.ops.epilogue import Epilogue
from tile.ops.persistent import busiest_slices, persistent_grid, tile_width

H100 = Device(sms=132, capability=(9, 0), shared_optin=232448)


def matrix(rows, cols, dtype="float16", strides=None, address=0x10000, device="cuda:0"):
    return Operand((rows, cols), strides or (cols, 1), dtype, address, device)


def transposed(rows, cols, **kwargs):
    """The rows x cols view of a row-major cols x rows matrix."""
    return matrix(rows, cols, strides=(1, rows), **kwargs)


# --- The planner -------------------------------------------------------------

def test_b_row_major_runs_gemm_nn_on_a_persistent_grid():
    plan = plan_matmul(matrix(4096, 4096), matrix(4096, 4096), None, H100)
    assert (plan.kernel, plan.element, plan.b_transposed) == ("gemm_nn", "f16", False)
    assert plan.grid == (132, 1, 1)  # 32 x 16 tiles, one CTA per SM
    assert (plan.m, plan.n, plan.k) == (4096, 4096, 4096)


def test_b_stored_n_by_k_runs_gemm_nt_on_a_cta_per_tile_where_tiles_are_few():
    plan = plan_matmul(matrix(256, 512), transposed(512, 512, dtype="float16"), None,
                       H100)
    assert (plan.kernel, plan.b_transposed) == ("gemm_nt", True)
    # 4 tiles 256 wide fill few SMs: 16 tiles 64 wide, of 8 K-slices (too
    # short to split), one CTA a tile; the workspace is the SM count's, of
    # the slim tiles' 32 accumulators a thread.
    assert (plan.tile_n, plan.grid) == (64, (16, 1, 1))
    assert plan.split_k_shape == ((2 * 132 * 128, 32), 132)
    assert plan.arguments("a", "b", "c", ("ws", "n")) == ("a", "b", "c", 256, 512, 512, "ws", "n",
                                                          None, None, None, None, "c")


def test_tile_width_picks_the_least_estimated_time_of_every_width():
    assert tile_width(4096, 4096, 4096, 132) == 256
    assert tile_width(1024, 4096, 4096, 132) == 256  # 128 wide tiles: a wave or more
    assert tile_width(4096, 28672, 4096, 132) == 256  # Llama-3-8B's prefill shapes
    assert tile_width(4096, 4096, 14336, 132) == 256
    assert tile_width(512, 4096, 4096, 132) == 128   # 64 wide tiles -> 128 narrow ones
    assert tile_width(256, 4096, 4096, 132) == 128   # 64 x 2 splits against 128 unsplit
    # A few row tiles of a long K: twice the CTAs, split into fewer ranges
    # (DeepSeek-V3's kv_a at 256 and 512 tokens), and small squares.
    assert tile_width(256, 576, 7168, 132) == 64
    assert tile_width(512, 576, 7168, 132) == 64
    assert tile_width(256, 1536, 7168, 132) == 96   # 2 x 16 tiles x 4 splits
    assert tile_width(256, 256, 256, 132) == 64
    assert tile_width(1024, 1024, 1024, 132) == 64
    assert tile_width(16384, 128, 8192, 132) == 128  # N = 128: half of every wide tile idle
    # N = 576 (DeepSeek-V3's kv_a): three 192-wide tiles, no padding; or
    # four 160-wide ones where their 128 tiles fill the SMs.
    assert tile_width(16384, 576, 7168, 132) == 192
    assert tile_width(4096, 576, 7168, 132) == 160
    assert tile_width(512, 6144, 4096, 132) == 192   # 96 wide tiles, 128 of 192
    # Widths that fit the waves: 128 tiles of 224 (112 of 256), of 160 (108
    # of 192), of 96 (96 of 128).
    assert tile_width(512, 7168, 16384, 132) == 224
    assert tile_width(256, 10240, 8192, 132) == 160
    assert tile_width(256, 6144, 4096, 132) == 96
    # Past FIT_MAX_WAVES waves of 256-wide tiles only the others.
    assert tile_width(4096, 32768, 512, 132) == 192
    # A fused epilogue keeps the others (measured on plain products).
    fused = plan_matmul(matrix(512, 2048, "bfloat16"), matrix(2048, 7168, "bfloat16"), None,
                        H100, epilogue=Epilogue(activation="silu"))
    assert fused.tile_n == 256
    # A gated epilogue's output tile is half as wide: 192 and 64 are not
    # offered.
    assert tile_width(4096, 576, 7168, 132, (256, 128)) == 128
    assert busiest_slices(4096, 4096, 4096, 132, 256) == 4 * 64  # 3.9 waves, not split
    # 3.4 waves: the last 52 tiles split in 2 (fixup 12 + 6 x 2 slices).
    assert busiest_slices(512, 28672, 4096, 132, 256) == 3 * 64 + 32 + 24
    assert persistent_grid(512, 4096, 4096, 132, 128) == 128
    assert persistent_grid(256, 4096, 4096, 132, 128) == 128  # 64 tiles x 2 splits
    plan = plan_matmul(matrix(8192, 8192), matrix(8192, 128), None, H100)
    assert (plan.kernel, plan.tile_n, plan.grid) == ("gemm_nn", 128, (128, 1, 1))  # 64 x 2


def test_persistent_grid_splits_few_tiles_only_along_a_long_k():
    # A wave of tiles or more: one CTA per SM (split_k splits the last wave).
    assert persistent_grid(4096, 4096, 4096, 132) == 132
    assert persistent_grid(2048, 2048, 2048, 132) == 128  # 128 tiles, 32 slices: 2 won't fit
    # Few tiles: split in as many ranges of 16 or more K-slices as fit the SMs.
    assert persistent_grid(256, 256, 256, 132) == 2
    assert persistent_grid(1024, 1024, 1024, 132) == 32
    assert persistent_grid(256, 4096, 4096, 132) == 128  # 32 tiles x 4 splits of 16 slices
    assert persistent_grid(512, 4096, 4096, 132) == 128  # 64 tiles x 2
    assert persistent_grid(128, 256, 65536, 132) == 8  # split_k's most splits
    assert persistent_grid(1, 1, 0, 132) == 1


def test_persistent_workspace_is_one_per_device_whatever_the_shape():
    """The grid is the SM count and the workspace holds the split tiles of
    split_k (at most grid / 2 tiles of s splits, s x tiles <= grid), two
    64-row halves each, 128 rows a split: 2 x grid x 128 rows whatever the
    shape, one workspace per stream and tile width (its 64 x width / 128
    accumulators a thread)."""
    plans = [plan_matmul(matrix(m, k), matrix(k, n), None, H100)
             for m, n, k in ((4096, 4096, 64), (8192, 8192, 64), (1792, 2560, 4096),
                             (4096, 576, 7168), (512, 4096, 4096), (256, 576, 7168),
                             (16384, 576, 7168))]
    assert {plan.tile_n for plan in plans} == {256, 192, 160, 128, 64}
    for plan in plans:
        assert plan.split_k_shape == ((2 * 132 * 128, plan.tile_n // 2), 132)


def test_decode_shapes_take_a_decode_kernel_in_either_layout():
    plan = plan_matmul(matrix(16, 4096, "bfloat16"), transposed(4096, 8192, dtype="bfloat16"),
                       None, H100)
    assert (plan.kernel, plan.element) == ("gemm_decode_nt_r16_s6_k2", "bf16")
    assert plan.decode == DecodeConfig("nt", 16, 6, "bf16", 2)
    assert plan.grid == (8192 // 64, 1, 1)
    assert plan.arguments("a", "b", "c") == ("a", "b", "c", 4096)
    # C = A B: B's K x N slices are wgmma's MN-major A operand.
    plan = plan_matmul(matrix(1, 4096), matrix(4096, 8192), None, H100)
    assert (plan.kernel, plan.b_transposed) == ("gemm_decode_nn_r8_s6_k2", False)
    # M = 97 .. 128: wgmma's n = M rounded up to 8 (104 for M = 100) over 128
    # columns of C a CTA, one K span a stage, where the decode kernel is
    # estimated no slower than the persistent kernel; M = 129 is no decode
    # shape.
    assert decode_config(100, 14336, 4096, False, "f16", H100) == DecodeConfig(
        "nn", 104, 6, "f16", 1, columns=128)
    plan = plan_matmul(matrix(100, 4096), matrix(4096, 4096), None, H100)
    assert (plan.kernel, plan.grid) == ("gemm_decode_nn_r104_s5_k2", (64, 1, 1))
    # Where 128 columns a CTA would leave a quarter of the SMs idle: 64
    # columns, two K spans, as many stages as fit (5 of 40 KB); n = 96 for M = 90.
    plan = plan_matmul(matrix(90, 4096), matrix(4096, 8192), None, H100)
    assert (plan.kernel, plan.grid) == ("gemm_decode_nn_r96_s5_k2", (128, 1, 1))
    assert plan_matmul(matrix(129, 4096), matrix(4096, 4096), None, H100).kernel == "gemm_nn"
    # An empty N plans (the call returns its empty C without a launch).
    assert plan_matmul(matrix(16, 64), matrix(64, 0), None, H100).grid == (0, 1, 1)


def test_decode_stages_follow_the_ctas_per_sm():
    """Stages of two K spans (16 KB of B): 6 (96 KB of B in flight) when
    ceil(N / 64) CTAs fit on the SMs at once, 4 each (64 KB) when two CTAs
    share an SM; fewer where shared memory runs out (64 rows of A: 32 KB a
    stage)."""
    assert decode_config(16, 8192, 8192, True, "f16", H100).stages == 6
    assert decode_config(16, 14336, 4096, True, "f16", H100).stages == 4
    assert decode_config(64, 14336, 4096, False, "f16", H100).stages == 3
    assert decode_config(64, 8192, 4096, False, "f16", H100) == DecodeConfig("nn", 64, 6, "f16", 2)
    small = Device(sms=132, capability=(9, 0), shared_optin=100_000)
    assert decode_config(64, 8192, 4096, True, "f16", small).stages == 3


def test_decode_ring_holds_the_whole_grid_where_it_can():
    """RESIDENT_STAGES where the rule's ring would leave CTAs for a second
    round and the shallower one holds them all: 448 CTAs of 4 stages (72
    KB) fit 3 an SM (396), of 3 stages 4 (528); 288 of n = 16 fit 2 an SM
    at 4 stages (80 KB), 3 at 3. Kept: grids that fit already (224 CTAs),
    and those that no ring of RESIDENT_STAGES holds (n = 16 x 28672: 448 CTAs
    of 60 KB, 3 an SM; 57344: 896)."""
    assert RESIDENT_STAGES == 3
    assert resident_ctas(4 * 18432, H100) == 396
    assert resident_ctas(3 * 18432, H100) == 528
    assert decode_config(1, 28672, 4096, True, "bf16", H100).stages == 3
    assert decode_config(1, 28672, 8192, False, "bf16", H100).stages == 3
    assert decode_config(16, 18432, 7168, True, "bf16", H100).stages == 3
    assert decode_config(1, 14336, 4096, True, "bf16", H100).stages == 4
    assert decode_config(16, 28672, 4096, True, "bf16", H100).stages == 4
    assert decode_config(1, 57344, 8192, True, "bf16", H100).stages == 4
    # FP8: 128-element spans of one byte, the same bytes a stage.
    assert decode_config(1, 32768, 512, True, "bf16", H100, slice_k=FP8_SLICE).stages == 3


def test_decode_splits_k_where_the_tiles_leave_sms_idle():
    """N = 4096: 64 tiles, two splits fill 128 SMs; N = 1024: 16 tiles, 8
    splits; never below 8 stages of 128 K a split; none where the tiles
    fill half the SMs."""
    plan = plan_matmul(matrix(16, 4096), transposed(4096, 4096), None, H100)
    assert (plan.kernel, plan.grid) == ("gemm_decode_nt_r16_s6_k2_sk", (64, 2, 1))
    assert plan.split_k_shape == ((64 * 2 * 128, 8), 64)
    assert plan.arguments("a", "b", "c", ("w", "n")) == ("a", "b", "c", 4096, "w", "n")
    assert decode_splits(1024, 8192, H100) == 8
    assert decode_splits(1024, 2048, H100) == 2  # 16 stages of 128: two of 8
    assert decode_splits(1024, 512, H100) == 1
    assert decode_splits(8192, 4096, H100) == 1
    assert not plan_matmul(matrix(16, 4096), transposed(4096, 8192), None, H100).decode.split_k
    # n = 64 and 128 read many partials back: split only in 4 or more.
    assert not plan_matmul(matrix(64, 4096), transposed(4096, 4096), None, H100).decode.split_k
    wide = plan_matmul(matrix(64, 7168), transposed(7168, 576), None, H100)
    assert wide.decode.split_k and wide.grid == (9, 7, 1)
    wide = decode_config(128, 1536, 7168, True, "f16", H100)
    assert wide.split_k and decode_grid(wide, 1536, 7168, H100) == (24, 5, 1)


def test_split_decode_fixups_prefetch_at_n_32_to_64_on_64_columns():
    """The last CTA keeps the next split's loads in flight where a thread
    holds 16-32 accumulators; n = 8 and 16 (a load or two a split) and
    128-column CTAs do not prefetch, nor do unsplit kernels."""
    def text(rows, columns=64, split_k=True):
        config = DecodeConfig("nt", rows, 4, "bf16", 2, split_k, columns)
        return config.prefetches_fixup, decode_source(config)
    for rows in (32, 40, 64):
        prefetches, source = text(rows)
        assert prefetches and "of %splits prefetch" in source, rows
    for rows, columns, split_k in ((16, 64, True), (8, 64, True), (72, 64, True),
                                   (64, 128, True), (64, 64, False)):
        prefetches, source = text(rows, columns, split_k)
        assert not prefetches and "of %splits prefetch" not in source, (rows, columns)
    kv_a = plan_matmul(matrix(64, 7168), transposed(7168, 576), None, H100)
    assert kv_a.decode.prefetches_fixup


def test_the_persistent_kernel_takes_m_97_to_128_where_it_is_estimated_faster():
    """With 128 rows a decode CTA's one consumer warpgroup issues half the
    persistent kernel's MMA work a slice: large products (Mixtral's
    experts at 128 tokens), a few columns of a long K (split 5 and 7 ways
    in the decode kernel) or a short K run the persistent kernel; mid-size
    ones and M <= 96 the decode kernel."""
    def kernel(m, n, k):
        return plan_matmul(matrix(m, k), transposed(k, n), None, H100).kernel
    for n, k in ((28672, 4096), (4096, 14336), (10240, 8192), (576, 7168), (32768, 512)):
        assert kernel(128, n, k) == kernel(97, n, k) == "gemm_nt", (n, k)
        assert kernel(96, n, k).startswith("gemm_decode_nt_r96"), (n, k)
    for n, k in ((7168, 2048), (6144, 4096), (4096, 4096)):
        assert kernel(128, n, k).startswith("gemm_decode_nt_r128"), (n, k)
    # The estimate: 9 x 7 CTAs (576 columns, 7 splits) of 16 K-slices of 64
    # columns each, one a SM, and the split's fixup, 12 + 9 x 7 slices.
    config = decode_config(128, 576, 7168, True, "f16", H100)
    assert decode_grid(config, 576, 7168, H100) == (9, 7, 1)
    assert decode_cost(config, 576, 7168, H100) == (16 + 12 + 9 * 7) * 100
    assert not decode_pays(129, 576, 7168, True, "f16", H100)
    # A C whose rows TMA cannot store (N not a multiple of 8) takes the
    # kernel an aligned one would, unstaged: the persistent kernels then
    # store C with the accumulators' own stores (tma_c), the decode kernels
    # element by element. An out of a padded, aligned pitch, which the
    # decode kernels do not take, runs the persistent kernel where it is
    # estimated faster.
    for m, n, k in ((128, 28676, 4096), (100, 16999, 200), (96, 28676, 4096)):
        odd = plan_matmul(matrix(m, k), transposed(k, n), None, H100)
        even = plan_matmul(matrix(m, k), transposed(k, n + -n % 8), None, H100)
        assert (odd.kernel, odd.tile_n, odd.staged) == (even.kernel, even.tile_n, ()), (m, n)
        assert odd.epilogue.tma_c == (odd.decode is not None), (m, n)
        assert even.epilogue.tma_c
    assert plan_matmul(matrix(128, 4096), transposed(4096, 28672),
                       matrix(128, 28672, strides=(28680, 1)), H100).kernel == "gemm_nt"
    # A decode config given (the autotuner's) is taken as it is.
    config = decode_config(128, 28672, 4096, True, "f16", H100)
    assert plan_matmul(matrix(128, 4096), transposed(4096, 28672), None, H100,
                       decode=config).decode == config


def test_a_short_k_takes_128_columns_a_decode_cta_where_they_fill_the_sms():
    """K <= 512 (DeepSeek-V3's kv_b, 32768 x 512): half the CTAs, each
    streaming twice the B; from K = 768 on, or where 128-column CTAs would
    not fill the SMs, 64 columns (n <= 64)."""
    for m in (1, 16, 64):
        plan = plan_matmul(matrix(m, 512), transposed(512, 32768), None, H100)
        assert (plan.decode.columns, plan.decode.spans, plan.grid) == (128, 1, (256, 1, 1))
    assert plan_matmul(matrix(1, 768), transposed(768, 50257), None, H100).decode.columns == 64
    assert plan_matmul(matrix(1, 512), transposed(512, 16000), None, H100).decode.columns == 64


def test_n64_decode_takes_128_columns_where_they_fill_three_fifths_of_the_sms():
    """M = 33..64 (wgmma n = 64) on 128 columns a CTA where ceil(N / 128)
    CTAs fill 3/5 of the SMs, A B^T: one span a stage where all CTAs fit
    two an SM (four stages each), else two spans on one CTA an SM; 128 KB
    of B in flight an SM either way. 64 columns below that, for A B (not
    measured) and at n <= 32."""
    def decode(m, n, k, b=None):
        return plan_matmul(matrix(m, k), b or transposed(k, n), None, H100).decode
    for m, n, k, spans, grid in ((64, 10240, 8192, 2, 80), (33, 28672, 4096, 1, 224),
                                 (48, 128256, 4096, 2, 1002)):
        config = decode(m, n, k)
        assert (config.rows, config.columns, config.spans, config.stages) == (
            -(-m // 8) * 8, 128, spans, 4)
        assert cdiv(n, config.columns) == grid
        assert config.shared_bytes == 4 * (128 + config.rows) * 64 * 2 * spans
    assert decode(64, 8192, 8192).columns == 64        # 64 CTAs of 128
    assert decode(32, 28672, 4096).columns == 64       # n = 32
    assert decode(64, 28672, 4096, matrix(4096, 28672)).columns == 64   # A B


def test_a_decode_config_must_fit_the_problem():
    with pytest.raises(MatmulError, match="gemm_decode_nt_r8_s4 takes M <= 8 and B N x K; got "
                                          "M = 16 and B N x K"):
        plan_matmul(matrix(16, 64), transposed(64, 64), None, H100,
                    decode=DecodeConfig("nt", 8, 4))


def test_decode_configs_are_validated():
    for bad, message in ((DecodeConfig("tn", 8, 4), "layout"), (DecodeConfig("nt", 12, 4), "rows"),
                         (DecodeConfig("nt", 8, 1), "stages"),
                         (DecodeConfig("nt", 8, 4, "f32"), "element")):
        with pytest.raises(ValueError, match=message):
            decode_source(bad)
    assert rows_for(1) == 8 and rows_for(9) == 16 and rows_for(64) == 64
    assert rows_for(65) == 72 and rows_for(97) == 104 and rows_for(33) == 40
    with pytest.raises(ValueError, match="M <= 128"):
        rows_for(129)
    with pytest.raises(ValueError, match="columns"):
        decode_source(DecodeConfig("nt", 8, 4, columns=96))


def test_the_decode_kernel_needs_a_contiguous_out():
    with pytest.raises(MatmulError, match=r"the decode kernel \(M <= 128\) stores a contiguous out "
                                          r"\(strides \(96, 1\)\), got strides \(104, 1\)"):
        plan_matmul(matrix(8, 64), transposed(64, 96), matrix(8, 96, strides=(104, 1)), H100)


def test_the_grid_follows_the_device():
    h200_like = Device(sms=140, capability=(9, 0))
    assert plan_matmul(matrix(8192, 8192), matrix(8192, 8192), None,
                       h200_like).grid == (140, 1, 1)


@pytest.mark.parametrize("a, b, out, message", [
    (matrix(64, 64, "float32"), matrix(64, 64, "float32"), None,
     "takes float16 or bfloat16 operands (f32 accumulation), got A of float32"),
    (matrix(64, 64), matrix(64, 64, "bfloat16"), None, "A is float16 but B is bfloat16"),
    (matrix(64, 64), matrix(32, 64), None, "A is 64 x 64 but B, as K x N, is 32 x 64"),
    (matrix(64, 64, strides=(128, 2)), matrix(64, 64), None,
     "A (M x K = 64 x 64) must be row-major or the transpose of a row-major K x M matrix, "
     "got strides (128, 2)"),
    (matrix(256, 64, strides=(1, 260)), matrix(64, 64), None,
     "A's rows of 260 elements are 520 bytes, not a multiple of 16"),
    (matrix(64, 64), matrix(64, 64, strides=(128, 2)), None,
     "must be row-major or the transpose of a row-major N x K matrix"),
    (matrix(64, 4095), matrix(4095, 64), None,
     "A's rows of 4095 elements are 8190 bytes, not a multiple of 16: TMA needs 16-byte "
     "aligned row strides (T-TMA-9)"),
    (matrix(64, 64), matrix(64, 100), None,
     "B's rows of 100 elements are 200 bytes"),
    (matrix(64, 64, address=0x10002), matrix(64, 64), None,
     "A starts at an address that is not 16-byte aligned (0x10002): TMA needs 16-byte "
     "aligned global addresses (T-TMA-10)"),
    (matrix(64, 64), matrix(64, 64), matrix(64, 32), "out must be 64 x 64, got 64 x 32"),
    (matrix(64, 64), matrix(64, 64), matrix(64, 64, "bfloat16"),
     "out must be float16 like A and B, got bfloat16"),
    (matrix(64, 64), matrix(64, 64, device="cuda:1"), None,
     "operands on different devices"),
    (matrix(64, 64), matrix(64, 64), matrix(64, 64, strides=(1, 64)),
     "out must be row-major with contiguous rows"),
])
def test_what_the_kernels_cannot_take_is_an_error(a, b, out, message):
    with pytest.raises(MatmulError, match=None) as error:
        plan_matmul(a, b, out, H100)
    assert message in str(error.value)


def test_unaligned_rows_are_staged_on_request():
    # K = 4095: A's and B's rows; the decode kernel stores C element-wise.
    plan = plan_matmul(matrix(16, 4095), transposed(4095, 300), None, H100, stage=True)
    assert (plan.kernel, plan.staged) == ("gemm_decode_nt_r16_s6_k2_sk", ("A", "B"))
    # N = 100 with a row-major K x N B: B's rows; C's the kernel stores
    # without TMA (tma_c), at any element address, but an FP8 C is staged.
    plan = plan_matmul(matrix(256, 64), matrix(64, 100), None, H100, stage=True)
    assert (plan.kernel, plan.staged, plan.n) == ("gemm_nn", ("B",), 100)
    assert not plan.epilogue.tma_c
    odd_out = matrix(256, 100, address=0x10002)
    plan = plan_matmul(matrix(256, 64), matrix(64, 100), odd_out, H100, stage=True)
    assert (plan.staged, plan.epilogue.tma_c) == (("B",), False)
    plan = plan_matmul(matrix(256, 64), transposed(64, 100), None, H100, stage=True,
                       epilogue=Epilogue(out="f8E4M3FN"))
    assert (plan.staged, plan.epilogue.tma_c) == (("C",), True)
    with pytest.raises(MatmulError, match="T-TMA-9"):
        plan_matmul(matrix(256, 64), transposed(64, 100), None, H100,
                    epilogue=Epilogue(out="f8E4M3FN"))
    assert not plan_matmul(matrix(256, 64), transposed(64, 100), None, H100).staged
    assert plan.pitch(100) == 104 and plan.pitch(4095) == 4096
    # A padded pitch needs no staging: TMA reads rows at any aligned pitch.
    plan = plan_matmul(matrix(256, 100, strides=(104, 1)), matrix(100, 256, strides=(1, 104)), None, H100,
                       stage=True)
    assert plan.staged == ()


def test_an_m_major_a_runs_the_a_mn_major_kernels():
    # A backward pass's A^T (the transposed view of a row-major K x M
    # matrix) runs the persistent kernels' M-major variant with B either way.
    for b, kernel in ((matrix(512, 256), "gemm_nn"), (transposed(512, 256), "gemm_nt")):
        plan = plan_matmul(matrix(1024, 512, strides=(1, 1024)), b, None, H100)
        assert (plan.kernel, plan.a_mn_major, plan.staged) == (kernel, True, ())
    assert not plan_matmul(matrix(1024, 512), matrix(512, 256), None, H100).a_mn_major
    # The decode kernels (M <= 128) and rows TMA cannot address (M not a
    # multiple of 8) read a row-major copy of A.
    for a in (matrix(64, 512, strides=(1, 64)), matrix(1001, 512, strides=(1, 1001))):
        plan = plan_matmul(a, matrix(512, 256), None, H100, stage=True)
        assert (plan.a_mn_major, plan.staged) == (False, ("A",))
    with pytest.raises(MatmulError, match=r"the decode kernel \(M <= 128\) reads A row-major"):
        plan_matmul(matrix(64, 512, strides=(1, 64)), matrix(512, 256), None, H100)


def test_other_gpus_and_shared_memory_limits_are_errors():
    ampere = Device(sms=108, capability=(8, 0))
    with pytest.raises(MatmulError, match="runs Hopper kernels .*this GPU is sm_80"):
        plan_matmul(matrix(64, 64), matrix(64, 64), None, ampere)
    small = Device(sms=132, capability=(9, 0), shared_optin=100_000)
    with pytest.raises(MatmulError, match="@gemm_nn needs 229376 bytes of shared memory, the "
                                          "GPU gives a block at most 100000"):
        plan_matmul(matrix(129, 64), matrix(64, 64), None, small, {"gemm_nn": 229376})


# --- On the GPU --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("m, n, k", [(256, 512, 512), (200, 296, 200), (13, 296, 200),
                                     (1, 4096, 1024), (200, 300, 203), (13, 301, 99),
                                     (129, 7, 5)])
def test_matmul_matches_torch(torch_cuda, dtype, m, n, k):
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    dtype = getattr(torch, dtype)
    generator = torch.Generator(device="cuda").manual_seed(m * n + k)
    a = torch.randn(m, k, device="cuda", dtype=dtype, generator=generator) / k ** 0.25
    b_nk = torch.randn(n, k, device="cuda", dtype=dtype, generator=generator) / k ** 0.25
    reference = a.float() @ b_nk.float().t()
    # A B^T from an N x K B, A B from a K x N B, and A B from the K x N view
    # of the N x K B (the same kernel as transpose_b).
    for result in (tile.matmul(a, b_nk, transpose_b=True),
                   tile.matmul(a, b_nk.t().contiguous()),
                   tile.matmul(a, b_nk.t())):
        torch.cuda.synchronize()
        assert result.shape == (m, n) and result.dtype == dtype
        assert relative_error(result, reference) < 1e-2


@pytest.mark.parametrize("m, n, k, dtype", [
    # wgmma n of M rounded up to 8 (8, 16, 24, 32, 40, 56, 64, 96, 104), N
    # not a multiple of 64, K not of the stage (split-K for n <= 32: 16
    # tiles, 2 splits).
    *((m, 1000, 1992, "bfloat16") for m in (1, 8, 9, 20, 32, 33, 50, 64, 90, 100)),
    # 133 CTAs of 128 columns (n = 96; N not a multiple of 8: C stored
    # element by element); N = 300; a short K on 128 columns (n = 16, 256
    # CTAs, N odd).
    (96, 16999, 200, "float16"), (13, 300, 200, "float16"), (16, 32767, 512, "bfloat16"),
    # n = 64 on 128 columns: two spans (80 CTAs), one span (224 CTAs, M = 33).
    (48, 10240, 1000, "bfloat16"), (33, 28672, 520, "bfloat16")])
def test_decode_kernels_match_torch(torch_cuda, m, n, k, dtype):
    """The decode kernels in both layouts against an f32 product."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    dtype = getattr(torch, dtype)
    a = torch.randn(m, k, device="cuda", dtype=dtype) / k ** 0.25
    b = torch.randn(n, k, device="cuda", dtype=dtype) / k ** 0.25
    reference = a.float() @ b.float().t()
    for result in (tile.matmul(a, b, transpose_b=True), tile.matmul(a, b.t().contiguous())):
        torch.cuda.synchronize()
        assert relative_error(result, reference) < 1e-2


def test_matmul_into_out_on_a_stream(torch_cuda):
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    a = torch.randn(128, 256, device="cuda", dtype=torch.float16)
    b = torch.randn(256, 384, device="cuda", dtype=torch.float16)
    out = torch.full((128, 384), float("nan"), device="cuda", dtype=torch.float16)
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        returned = tile.matmul(a, b, out=out, stream=stream)
    stream.synchronize()
    assert returned is out
    assert relative_error(out, a.float() @ b.float()) < 1e-2


def test_matmul_errors_on_the_gpu(torch_cuda):
    import tile
    torch = torch_cuda
    a = torch.randn(64, 4095, device="cuda", dtype=torch.float16)
    b = torch.randn(4095, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(tile.MatmulError, match="T-TMA-9"):
        tile.matmul(a, b, stage=False)
    with pytest.raises(tile.MatmulError, match="must be a CUDA tensor"):
        tile.matmul(a.cpu(), b)
    # Empty problems need no kernel: K = 0 gives zeros, M or N = 0 an
    # empty C (either route).
    zero_k = tile.matmul(torch.empty(8, 0, device="cuda", dtype=torch.float16),
                         torch.empty(0, 16, device="cuda", dtype=torch.float16))
    assert zero_k.shape == (8, 16) and not zero_k.any()
    for m, n in ((16, 0), (0, 16), (200, 0)):
        empty = tile.matmul(torch.randn(m, 64, device="cuda", dtype=torch.float16),
                            torch.randn(64, n, device="cuda", dtype=torch.float16))
        assert empty.shape == (m, n)


@pytest.mark.parametrize("element", ["f16", "bf16"])
def test_the_kernels_compile_and_declare_their_launch(element):
    """The planner's kernels exist in both element types, with the block and
    dynamic shared memory their manifest gives the launch; a decode kernel's
    manifest agrees with its config."""
    from tile import compile
    from tile.ops.matmul import GEMM
    kernels = GEMM.module((element,)).manifest["kernels"]
    assert kernels["gemm_nt"]["block"] == [384, 1, 1]
    assert kernels["gemm_nn"]["dynamic_shared_bytes"] == kernels["gemm_nt"]["dynamic_shared_bytes"]
    for config in (DecodeConfig("nt", 16, 12, element), DecodeConfig("nn", 64, 6, element)):
        entry = compile(decode_source(config), chip="sm_90a").manifest["kernels"][config.name]
        assert entry["block"] == [256, 1, 1]
        assert entry["dynamic_shared_bytes"] == config.shared_bytes


@pytest.mark.parametrize("shape, width", [
    # 128-wide: tiles split along K (the narrow split-K workspace), partial
    # tiles, N = 128.
    ((256, 4096, 4096), 128), ((1000, 1000, 4096), 128), ((3000, 600, 4096), 128),
    ((8192, 128, 4096), 128),
    # 64-wide: whole and partial tiles, a long K split along the SMs (the
    # slim split-K workspace), N = 128.
    ((256, 512, 512), 64), ((300, 200, 4096), 64), ((4096, 128, 4096), 64),
    ((1000, 1000, 72), 64), ((256, 576, 7168), 64),
    # 192-wide: a wave short of the SMs, a last wave split along K (the
    # 96-accumulator workspace rows), and N = 576 with partial tiles in M.
    ((1024, 3072, 1024), 192), ((7424, 4032, 1024), 192), ((5000, 576, 2048), 192),
    # The widths that fit the waves (A B's B in 32-column chunks, C stored
    # in 64 x 32 chunks): whole and partial tiles in N, partial in M, a few
    # tiles split along K (a K that is no multiple of 64; 160 wide: the
    # 80-column workspace).
    ((512, 7168, 2048), 224), ((384, 9000, 1024), 224), ((4096, 576, 7168), 160),
    ((2048, 1152, 1024), 160), ((1792, 2504, 4096), 160), ((3333, 576, 2048), 160),
    ((300, 2000, 4096), 96), ((256, 2040, 7176), 96), ((640, 2048, 72), 96),
    ((256, 5000, 7168), 160)])
@pytest.mark.parametrize("transpose_b", [True, False])
def test_narrow_and_mid_tiles_match_torch(torch_cuda, shape, width, transpose_b):
    """Shapes on the 64-, 128-, 192- and fitted (224, 160, 96) wide tiles,
    B both ways round; on the fitted ones A M-major too (read in place where
    its rows are aligned)."""
    import tile
    from tile.ops.matmul import plan_matmul as plan
    from tile.ops.persistent import FIT_WIDTHS
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    b = w if transpose_b else w.t().contiguous()
    assert plan(matrix(m, k, "bfloat16"), matrix(k, n, "bfloat16"), None,
                H100).tile_n == width
    want = a.float() @ w.float().t()
    for _ in range(2):  # the prepared launch too
        c = tile.matmul(a, b, transpose_b=transpose_b)
        assert relative_error(c, want) < 1e-2
    if width not in FIT_WIDTHS or m % 8:
        return
    assert plan(matrix(m, k, "bfloat16", strides=(1, m)), matrix(k, n, "bfloat16"), None,
                H100).a_mn_major
    a_mn = a.t().contiguous().t()
    assert relative_error(tile.matmul(a_mn, b, transpose_b=transpose_b), want) < 1e-2


@pytest.mark.parametrize("shape, kwargs", [
    ((1000, 1001, 512), dict()),                             # 256-wide, partial tiles
    ((512, 7167, 2048), dict()),                             # a fitted width
    ((300, 301, 4096), dict()),                              # few tiles, split along K
    ((256, 511, 512), dict()),                               # 64-wide
    ((300, 999, 256), dict(transpose_b=False)),              # B K x N (staged rows)
    ((2048, 4097, 1024), dict(activation="gelu")),           # ping-pong consumers
    ((640, 4100, 512), dict(bias=True, residual=True, activation="silu")),
    ((512, 2 * 1024, 512), dict(gated=True, activation="silu", pitch=1031)),
])
def test_c_of_any_row_stride_is_written_in_place(torch_cuda, shape, kwargs):
    """C whose rows TMA cannot write (an odd N, an odd out pitch): the
    persistent kernels store it with the accumulators' own stores, unstaged,
    into each call's own out (the prepared launch takes C's rows, not its
    unused tensor map), and so is an out at an odd element address."""
    import tile
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops.matmul import plan_matmul as plan
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = shape
    kwargs = dict(kwargs)
    transpose_b, pitch = kwargs.pop("transpose_b", True), kwargs.pop("pitch", None)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    b = w if transpose_b else w.t().contiguous()
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16) if kwargs.pop("bias", 0) else None
    n_out = n // 2 if kwargs.get("gated") else n
    residual = (torch.randn(m, n_out, device="cuda", dtype=torch.bfloat16)
                if kwargs.pop("residual", False) else None)
    product = a.float() @ w.float().t() + (0 if bias is None else bias.float())
    if kwargs.get("gated"):
        gate, up = product.view(m, n // 16, 2, 8).unbind(2)
        product = torch.nn.functional.silu(gate.reshape(m, n_out)) * up.reshape(m, n_out)
    elif kwargs.get("activation") == "gelu":
        product = torch.nn.functional.gelu(product)
    elif kwargs.get("activation") == "silu":
        product = torch.nn.functional.silu(product)
    want = product + (0 if residual is None else residual.float())
    outs = [torch.full((m, pitch or n_out), float("nan"), device="cuda",
                       dtype=torch.bfloat16)[:, :n_out] for _ in range(3)]
    rule = plan(operand_of(a), operand_of(w.t() if transpose_b else b), operand_of(outs[0]),
                device(0), stage=True, epilogue=Epilogue(
                    None if bias is None else "column", residual is not None,
                    kwargs.get("activation", "identity"), kwargs.get("gated", False)),
                bias=None if bias is None else operand_of(bias),
                residual=None if residual is None else operand_of(residual))
    assert rule.decode is None and not rule.epilogue.tma_c and "C" not in rule.staged
    for out in outs:  # planned, prepared, then the prepared launch
        c = tile.matmul(a, b, transpose_b=transpose_b, out=out, bias=bias,
                        residual=residual, **kwargs)
        assert c is out
    torch.cuda.synchronize()
    for out in outs:
        assert relative_error(out, want) < 1e-2
    # An out one element past an aligned address, its rows of an odd pitch
    # (n_out + 1), written in place too; the elements around it stay NaN.
    around = torch.full((m * (n_out + 1) + 2,), float("nan"), device="cuda",
                        dtype=torch.bfloat16)
    shifted = around[1:1 + m * (n_out + 1)].view(m, n_out + 1)[:, :n_out]
    shifted_plan = plan(operand_of(a), operand_of(w.t() if transpose_b else b),
                        operand_of(shifted), device(0), stage=True, epilogue=rule.epilogue,
                        bias=None if bias is None else operand_of(bias),
                        residual=None if residual is None else operand_of(residual))
    assert not shifted_plan.epilogue.tma_c and "C" not in shifted_plan.staged
    # The plan's prepared launch then takes another such out, three
    # elements past an aligned address.
    other = torch.full((m * (n_out + 1) + 4,), float("nan"), device="cuda",
                       dtype=torch.bfloat16)[3:3 + m * (n_out + 1)].view(m, n_out + 1)[:, :n_out]
    for out in (shifted, shifted, other):
        tile.matmul(a, b, transpose_b=transpose_b, out=out, bias=bias, residual=residual,
                    **kwargs)
    torch.cuda.synchronize()
    assert relative_error(shifted, want) < 1e-2 and relative_error(other, want) < 1e-2
    assert around[0].isnan() and around[-1].isnan()
    assert around[1:1 + m * (n_out + 1)].view(m, n_out + 1)[:, n_out].isnan().all()


@pytest.mark.parametrize("shape", [(64, 576, 7168), (128, 1544, 16384), (100, 2040, 7176),
                                   (80, 600, 4104)])
def test_wide_split_k_decode_matches_torch(torch_cuda, shape):
    """Decode kernels of n = 64, 96 and 128 split along K (few tiles, long
    K), with partial tiles in N and M."""
    import tile
    from tile.ops.matmul import plan_matmul as plan
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = shape
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    assert plan(matrix(m, k, "bfloat16"), transposed(k, n, dtype="bfloat16"), None,
                H100).decode.split_k
    for _ in range(3):  # the prepared launch too, on counters the last one reset
        c = tile.matmul(a, w, transpose_b=True)
        assert relative_error(c, a.float() @ w.float().t()) < 1e-2
    # With a fused epilogue on the summed tile.
    bias = torch.randn(n, device="cuda", dtype=torch.bfloat16)
    residual = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    c = tile.matmul(a, w, transpose_b=True, bias=bias, residual=residual, activation="silu")
    want = torch.nn.functional.silu(a.float() @ w.float().t() + bias.float()) + residual.float()
    assert relative_error(c, want) < 1e-2


def test_repeated_calls_reuse_their_plan(torch_cuda):
    """The plan is cached by shapes, strides, dtypes and 16-byte alignment:
    a second call like the first plans nothing, an unaligned view of the
    same shape plans anew (and stages)."""
    import tile
    from tile.ops.matmul import PLANS
    from tile.testing import relative_error
    torch = torch_cuda
    PLANS.clear()
    a = torch.randn(8, 264, device="cuda", dtype=torch.float16)
    b = torch.randn(128, 256, device="cuda", dtype=torch.float16)
    tile.matmul(a[:, :256], b, transpose_b=True)
    tile.matmul(a[:, :256], b, transpose_b=True)
    c = tile.matmul(a[:, :256], b, transpose_b=True)
    assert len(PLANS) == 1
    shifted = tile.matmul(a[:, 4:260], b, transpose_b=True)  # 8-byte aligned A
    assert len(PLANS) == 2 and a[:, 4:260].data_ptr() % 16 == 8
    torch.cuda.synchronize()
    assert relative_error(c, a[:, :256].float() @ b.float().t()) < 1e-2
    assert relative_error(shifted, a[:, 4:260].float() @ b.float().t()) < 1e-2


def test_split_k_decode_sums_every_split_and_resets_its_counters(torch_cuda):
    """Split-K decode (N = 256: 4 tiles, 8 splits of K = 8200), launched
    three times on the same counters, and with more splits than stages of K
    (empty splits still count)."""
    import tile
    from dataclasses import replace
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops.matmul import kernel as kernel_of, plan_matmul, split_k_buffers
    from tile.testing import relative_error
    torch = torch_cuda
    a = torch.randn(16, 8200, device="cuda", dtype=torch.float16) / 8200 ** 0.25
    b = torch.randn(256, 8200, device="cuda", dtype=torch.float16) / 8200 ** 0.25
    reference = a.float() @ b.float().t()
    for _ in range(3):
        c = tile.matmul(a, b, transpose_b=True)
        torch.cuda.synchronize()
        assert relative_error(c, reference) < 1e-2
    plan = plan_matmul(operand_of(a), operand_of(b.t()), None, device(a.get_device()))
    assert plan.grid == (4, 8, 1) and plan.decode.split_k
    many = replace(plan, grid=(4, 80, 1))  # 65 stages of K over 80 splits
    c = torch.full((16, 256), float("nan"), device="cuda", dtype=torch.float16)
    kernel = kernel_of(plan)
    for _ in range(2):
        kernel(*many.arguments(a, b, c, split_k_buffers(torch, many, a.get_device())),
               grid=many.grid)
        torch.cuda.synchronize()
        assert relative_error(c, reference) < 1e-2


@pytest.mark.parametrize("m, n, k, nn", [(64, 576, 7168, False), (33, 1000, 9000, False),
                                         (48, 256, 4096, False), (64, 576, 7168, True),
                                         (40, 1000, 5000, True)])
def test_a_prefetching_fixup_gives_the_same_bits(torch_cuda, m, n, k, nn):
    """The split decode kernel whose fixup prefetches (tile.split_k_reduce
    ... prefetch: its own split from registers, the next split's loads in
    flight) against the same kernel text without prefetch: the same sums
    in the same order, so the same bits; three launches each on counters
    the last one reset, and with more splits than the plan's; B N x K (nt)
    or K x N (nn)."""
    from dataclasses import replace
    from tile import compile
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops.matmul import plan_matmul, split_k_buffers
    from tile.testing import relative_error
    torch = torch_cuda
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(*((k, n) if nn else (n, k)), device="cuda", dtype=torch.bfloat16)
    logical_b = b if nn else b.t()
    plan = plan_matmul(operand_of(a), operand_of(logical_b), None, device(a.get_device()))
    assert plan.decode.prefetches_fixup and plan.grid[1] > 1
    assert plan.decode.layout == ("nn" if nn else "nt")
    source = decode_source(plan.decode)
    assert source.count(" prefetch\n") == 1
    kernels = [compile(text).kernel(plan.decode.name)
               for text in (source, source.replace(" prefetch\n", "\n"))]
    reference = a.float() @ logical_b.float()
    for splits in (plan.grid[1], 2 * plan.grid[1] + 1):
        launch = replace(plan, grid=(plan.grid[0], splits, 1))
        outs = []
        for kernel in kernels:
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            buffers = split_k_buffers(torch, launch, a.get_device())
            for _ in range(3):
                kernel(*launch.arguments(a, b, c, buffers), grid=launch.grid)
            torch.cuda.synchronize()
            assert relative_error(c, reference) < 1e-2
            outs.append(c)
        assert torch.equal(outs[0].view(torch.int16), outs[1].view(torch.int16)), splits


@pytest.mark.parametrize("width", [64, 128, 256])
@pytest.mark.parametrize("nn", [True, False])
def test_kernels_launched_in_clusters_read_their_mn_major_chunks(torch_cuda, width, nn):
    """The persistent kernels launched as clusters of two CTAs (their text
    has no cluster op; a launch may still ask for clusters) give the
    unclustered results. A CTA in a cluster has shared addresses with bits
    above the 18 that a wgmma descriptor encodes: before its start address
    was masked (encode(x) = (x & 0x3FFFF) >> 4), they reached the leading
    byte offset, and A B's MN-major B read every 64-column chunk past the
    first from the wrong place (half of C wrong at 128- and 256-wide tiles;
    64-wide tiles have one chunk, and A B^T's K-major B has no leading byte
    offset the hardware reads, so those cases passed before too)."""
    from dataclasses import replace
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops import matmul as matmul_ops
    from tile.testing import relative_error
    torch = torch_cuda
    m, n, k = 256, 1024, 1024
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    kernel_b = b if nn else b.t().contiguous()
    plan = matmul_ops.plan_matmul(operand_of(a), operand_of(b), None, device(a.get_device()))
    # One whole tile a CTA (no split along K), an even grid.
    plan = replace(plan, kernel="gemm_nn" if nn else "gemm_nt", b_transposed=not nn,
                   tile_n=width, pingpong=False, grid=(2 * (n // width), 1, 1))
    kernel = matmul_ops.kernel(plan)
    buffers = matmul_ops.split_k_buffers(torch, plan, a.get_device())
    # The plain epilogue reads no bias, residual, scale or amax: C and two
    # small tensors stand in for them.
    scale = torch.ones(1, device="cuda", dtype=torch.float32)
    amax = torch.zeros(1, device="cuda", dtype=torch.int32)
    want = a.float() @ b.float()
    for cluster in (None, (2, 1, 1)):
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        kernel(*plan.arguments(a, kernel_b, c, buffers, c, c, scale, amax, unused_c=c),
               grid=plan.grid, cluster=cluster)
        torch.cuda.synchronize()
        assert relative_error(c, want) < 1e-2, cluster


@pytest.mark.parametrize("layout", ["gemm_nt", "gemm_nn"])
@pytest.mark.parametrize("m, n, k", [(256, 512, 512), (200, 296, 200), (1024, 768, 2048)])
def test_gpu_a_mn_major_kernels_match_torch(torch_cuda, layout, m, n, k):
    """The persistent kernels with A M-major (tile.ops.matmul.a_mn_major: A
    passed as its transpose, a row-major K x M matrix), launched directly
    on one CTA per SM (few tiles: split along K), against torch in float32."""
    torch = torch_cuda
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs sm_90a")
    from tile.ops.matmul import GEMM, gemm_variant
    kernel = GEMM.kernel(gemm_variant("f16", 256, None, a_mn=True), layout)
    torch.manual_seed(0)
    at = torch.randn(k, m, device="cuda", dtype=torch.float16)  # A^T, row-major
    b = torch.randn(*((n, k) if layout == "gemm_nt" else (k, n)), device="cuda",
                    dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = torch.cuda.get_device_properties(0).multi_processor_count
    workspace = torch.empty((grid * 1024, 128), device="cuda", dtype=torch.float32)
    counters = torch.zeros(grid * 4, device="cuda", dtype=torch.int32)
    unread = torch.zeros(1, device="cuda", dtype=torch.float32)
    kernel(at, b, c, m, n, k, workspace, counters, c, c, unread, unread.view(torch.int32), c,
           grid=(grid, 1, 1), block=(384, 1, 1), synchronize=True)
    logical_b = b.float().t() if layout == "gemm_nt" else b.float()
    expected = at.float().t() @ logical_b
    assert ((c.float() - expected).norm() / expected.norm()).item() < 2e-3


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("m, n, k", [(1024, 768, 2048), (200, 296, 200), (4096, 512, 64),
                                     (13, 296, 200), (1001, 300, 203)])
def test_matmul_of_an_m_major_a_matches_torch(torch_cuda, dtype, m, n, k):
    """tile.matmul(x.t(), b) for a row-major K x M x (a backward pass's
    A^T dC): the M-major kernels, or a row-major copy of A for the decode
    kernels and for M not a multiple of 8; with B either way and with a
    fused epilogue (bias per column, residual)."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    dtype = getattr(torch, dtype)
    generator = torch.Generator(device="cuda").manual_seed(m + n * k)
    x = torch.randn(k, m, device="cuda", dtype=dtype, generator=generator) / k ** 0.25
    b_kn = torch.randn(k, n, device="cuda", dtype=dtype, generator=generator) / k ** 0.25
    bias = torch.randn(n, device="cuda", dtype=dtype, generator=generator)
    residual = torch.randn(m, n, device="cuda", dtype=dtype, generator=generator)
    reference = x.float().t() @ b_kn.float()
    for _ in range(2):  # the first call plans and launches, the second replays
        for result, want in ((tile.matmul(x.t(), b_kn), reference),
                             (tile.matmul(x.t(), b_kn.t().contiguous(), transpose_b=True),
                              reference),
                             (tile.matmul(x.t(), b_kn, bias=bias, residual=residual),
                              reference + bias.float() + residual.float())):
            torch.cuda.synchronize()
            assert result.shape == (m, n) and result.dtype == dtype
            assert relative_error(result, want) < 1e-2


def test_the_staging_kernel_compiles_for_one_and_two_matrices():
    from tile import compile
    from tile.ops.staging import StageRowsConfig, stage_rows_source
    for element in ("f16", "bf16"):
        for count in (1, 2):
            config = StageRowsConfig(element, count)
            entry = compile(stage_rows_source(config), chip="sm_90a").manifest["kernels"][
                config.name]
            assert entry["block"] == [256, 1, 1]
    with pytest.raises(ValueError, match="1 or 2 matrices"):
        stage_rows_source(StageRowsConfig("bf16", 3))


def test_the_staging_kernel_copies_any_strides_bit_for_bit(torch_cuda):
    """tile.ops.staging's copy (a staged call's A and B in one launch): odd
    pitches, a transposed view, rows shorter than a thread's piece and of
    whole pieces, into aligned rows whose padding it leaves alone."""
    from tile.ops.staging import stage_rows_grid, stage_rows_kernel
    torch = torch_cuda
    base = torch.randn(300, 1001, device="cuda", dtype=torch.bfloat16)
    sources = [base[:, 1:334], base[:77, 3:8], base[:16, :16].t(), base[:40, 5:109].t()]
    for first, second in ((0, 1), (2, 3), (3, 0)):
        pairs = []
        for source in (sources[first], sources[second]):
            rows, columns = source.shape
            padded = torch.full((rows, -(-columns // 8) * 8 + 8), float("nan"), device="cuda",
                                dtype=torch.bfloat16)
            pairs.append((source, padded[:, :columns], padded))
        for count in (1, 2):
            for _, _, padded in pairs:
                padded.fill_(float("nan"))
            chosen = pairs[:count]
            stage_rows_kernel("bf16", count).launch_on(
                0, [x for source, view, _ in chosen for x in (source, view)],
                stage_rows_grid([(source, view) for source, view, _ in chosen]))
            torch.cuda.synchronize()
            for source, view, padded in chosen:
                assert torch.equal(view.view(torch.int16), source.view(torch.int16))
                assert padded[:, source.shape[1]:].isnan().all()
