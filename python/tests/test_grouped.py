"""tile.grouped_matmul: the checks on plain shapes (no GPU), and results
against per-group torch products and torch._grouped_mm on the GPU."""
import pytest

from tile.core.devices import Device
from tile.core.errors import MatmulError
from tile.ops.grouped import (GROUPED_FP8_BLOCKWISE_KERNEL, GROUPED_FP8_KERNEL,
                              GROUPED_FP8_NARROW_KERNEL, GROUPED_KERNEL,
                              NARROW_MAX_CAPACITY, NARROW_MAX_ROWS, check_grouped,
                              whole_tiles_kernel)

H100 = Device(sms=132, capability=(9, 0), shared_optin=232448)


def nk_transposed(groups, k, n):
    """Strides of w.transpose(-2, -1) for a contiguous G x N x K w."""
    return (n * k, 1, k)


def test_contiguous_and_masked_shapes():
    assert check_grouped((1000, 256), (256, 1), (4, 256, 512), nk_transposed(4, 256, 512),
                         "bfloat16", False, H100) == (4, 1000, 512, 256, 0)
    assert check_grouped((4, 96, 256), (96 * 256, 256, 1), (4, 256, 512),
                         nk_transposed(4, 256, 512), "float16", True, H100) == (4, 384, 512, 256, 96)
    # FP8 in any pair; K and N multiples of 16.
    assert check_grouped((1000, 256), (256, 1), (4, 256, 512), nk_transposed(4, 256, 512),
                         "float8_e4m3fn", False, H100, "float8_e5m2") == (4, 1000, 512, 256, 0)


def test_whole_tiles_kernel():
    """Block scales always, and FP8 groups of few rows (on average
    contiguous, by capacity masked), run on whole 128x128 tiles; 16-bit and
    larger FP8 groups on the 128x256 kernels."""
    assert whole_tiles_kernel(True, True, 8 * 4096, 8, None) == GROUPED_FP8_BLOCKWISE_KERNEL
    assert whole_tiles_kernel(True, True, 8 * 4096, 8, 4096) == GROUPED_FP8_BLOCKWISE_KERNEL
    assert whole_tiles_kernel(False, False, 256 * 128, 256, None) is None
    small, large = NARROW_MAX_ROWS * 64, NARROW_MAX_ROWS * 64 + 1
    assert whole_tiles_kernel(True, False, small, 64, None) == GROUPED_FP8_NARROW_KERNEL
    assert whole_tiles_kernel(True, False, large, 64, None) is None
    # Masked: the capacity decides (the valid counts are on the device).
    assert whole_tiles_kernel(True, False, 64 * NARROW_MAX_CAPACITY, 64,
                              NARROW_MAX_CAPACITY) == GROUPED_FP8_NARROW_KERNEL
    assert whole_tiles_kernel(True, False, 64 * (NARROW_MAX_CAPACITY + 8), 64,
                              NARROW_MAX_CAPACITY + 8) is None


@pytest.mark.parametrize("args, message", [
    (((64, 64), (64, 1), (2, 64, 64), nk_transposed(2, 64, 64), "float32", False, H100),
     "takes float16 or bfloat16 operands .* got a of float32"),
    (((64, 64), (64, 1), (2, 64, 64), nk_transposed(2, 64, 64), "float16", False, H100,
      "float8_e4m3fn"), "got a of float16 and b of float8_e4m3fn"),
    (((64, 200), (200, 1), (2, 200, 64), nk_transposed(2, 200, 64), "float8_e4m3fn", False,
      H100), r"K = 200: .* K must be a multiple of 16"),
    (((64, 64), (64, 1), (2, 64, 64), (64 * 64, 64, 1), "float16", False, H100),
     r"must be w.transpose\(-2, -1\) of a contiguous G x N x K w"),
    (((64, 60), (60, 1), (2, 60, 64), nk_transposed(2, 60, 64), "float16", False, H100),
     r"K = 60: TMA needs 16-byte rows \(T-TMA-9\), so K must be a multiple of 8"),
    (((64, 64), (64, 1), (2, 64, 12), nk_transposed(2, 64, 12), "float16", False, H100),
     "N = 12"),
    (((64, 32), (32, 1), (2, 64, 64), nk_transposed(2, 64, 64), "float16", False, H100),
     "a must be M x 64"),
    (((64, 64), (1, 64), (2, 64, 64), nk_transposed(2, 64, 64), "float16", False, H100),
     "a must be row-major"),
    (((3, 8, 64), (512, 64, 1), (2, 64, 64), nk_transposed(2, 64, 64), "float16", True, H100),
     r"a must be 2 x capacity x 64"),
    (((64, 64), (64, 1), (2, 64, 64), nk_transposed(2, 64, 64), "float16", False,
      Device(108, (8, 0))), "tile.grouped_matmul runs Hopper kernels"),
])
def test_errors(args, message):
    with pytest.raises(MatmulError, match=message):
        check_grouped(*args)


# --- On the GPU -----------------------------------------------------------------

def grouped_reference(torch, a, w, starts, counts):
    """C rows of each group: A rows times w[g]^T, in float32."""
    reference = torch.full((a.shape[0], w.shape[1]), float("nan"), device="cuda")
    for g, (start, count) in enumerate(zip(starts, counts)):
        rows = slice(start, start + count)
        reference[rows] = a[rows].float() @ w[g].float().t()
    return reference


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_contiguous_groups_match_torch(torch_cuda, dtype):
    """Groups of 0 to 300 rows (partial row tiles, an empty group), N not a
    multiple of the 256-column tile; rows past the last group untouched."""
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    dtype = getattr(torch, dtype)
    counts = [111, 0, 27, 286, 256, 1, 130]
    groups, n, k = len(counts), 296, 200
    starts = [sum(counts[:g]) for g in range(groups)]
    m = sum(counts) + 5
    a = torch.randn(m, k, device="cuda", dtype=dtype) / k ** 0.25
    w = torch.randn(groups, n, k, device="cuda", dtype=dtype) / k ** 0.25
    offsets = torch.tensor([s + c for s, c in zip(starts, counts)], device="cuda",
                           dtype=torch.int32)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
    returned = tile.grouped_matmul(a, w.transpose(-2, -1), offsets, out=out)
    torch.cuda.synchronize()
    assert returned is out
    reference = grouped_reference(torch, a, w, starts, counts)
    assert relative_error(out[:-5], reference[:-5]) < 1e-2
    assert torch.isnan(out[-5:]).all()
    if dtype == torch.bfloat16 and hasattr(torch, "_grouped_mm"):
        theirs = torch._grouped_mm(a[:-5], w.transpose(-2, -1), offs=offsets)
        assert relative_error(out[:-5], theirs.float()) < 1e-2


@pytest.mark.parametrize("fp8", [False, True])
def test_many_groups_walked_by_each_cta(torch_cuda, fp8):
    """70 groups (some empty, up to 900 rows): a CTA's tiles span several
    groups, which it finds by walking on from its previous tile's group."""
    import tile
    from tile.testing import quantize_fp8, relative_error
    torch = torch_cuda
    generator = torch.Generator(device="cuda").manual_seed(7)
    counts = (torch.rand(70, generator=generator, device="cuda") * 900).long()
    counts[::9] = 0
    counts = counts.tolist()
    groups, n, k = len(counts), 520, 192
    starts = [sum(counts[:g]) for g in range(groups)]
    m = sum(counts)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16) / k ** 0.25
    w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.25
    offsets = torch.tensor([s + c for s, c in zip(starts, counts)], device="cuda",
                           dtype=torch.int32)
    if fp8:
        a8, sa = quantize_fp8(a, (1, k))
        w8, sw = quantize_fp8(w.reshape(groups * n, k), (1, k))
        out = tile.grouped_matmul(a8, w8.reshape(groups, n, k).transpose(-2, -1), offsets,
                                  scale_a=sa, scale_b=sw)
        a = (a8.float() * sa).bfloat16()
        w = (w8.float() * sw).reshape(groups, n, k).bfloat16()
    else:
        out = tile.grouped_matmul(a, w.transpose(-2, -1), offsets)
    torch.cuda.synchronize()
    assert relative_error(out, grouped_reference(torch, a, w, starts, counts)) < 1e-2


def test_masked_groups_and_a_side_stream(torch_cuda):
    import tile
    from tile.testing import relative_error
    torch = torch_cuda
    groups, capacity, n, k = 5, 200, 512, 256
    # The last count exceeds the capacity: its group's slot is filled, no more.
    valid = torch.tensor([200, 0, 17, 129, 250], device="cuda", dtype=torch.int32)
    a = torch.randn(groups, capacity, k, device="cuda", dtype=torch.bfloat16) / k ** 0.25
    w = torch.randn(groups, n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.25
    stream = torch.cuda.Stream()
    out = torch.full((groups, capacity, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    with torch.cuda.stream(stream):
        tile.grouped_matmul(a, w.transpose(-2, -1), valid=valid, out=out)
    stream.synchronize()
    for g, count in enumerate(min(v, capacity) for v in valid.tolist()):
        reference = a[g, :count].float() @ w[g].float().t()
        assert relative_error(out[g, :count], reference) < 1e-2
        assert torch.isnan(out[g, count:]).all()


def test_errors_on_the_gpu(torch_cuda):
    import tile
    torch = torch_cuda
    a = torch.randn(64, 64, device="cuda", dtype=torch.float16)
    w = torch.randn(2, 64, 64, device="cuda", dtype=torch.float16)
    offsets = torch.tensor([32, 64], device="cuda", dtype=torch.int32)
    with pytest.raises(MatmulError, match="give offsets .* or valid"):
        tile.grouped_matmul(a, w.transpose(-2, -1))
    with pytest.raises(MatmulError, match="contiguous int32 vector of one entry per group"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets.long())
    with pytest.raises(MatmulError, match="must be w.transpose"):
        tile.grouped_matmul(a, w, offsets)
    with pytest.raises(MatmulError, match="a is torch.float16 but b is torch.bfloat16"):
        tile.grouped_matmul(a, w.bfloat16().transpose(-2, -1), offsets)


def test_kernel_compiles_for_both_types():
    """Both element types compile (no GPU needed) with the kernel's manifest,
    and the FP8 kernels beside them."""
    from tile.ops.grouped import GROUPED
    for element in ("f16", "bf16"):
        module = GROUPED.module((element,))
        assert module.manifest["kernels"][GROUPED_KERNEL]["dynamic_shared_bytes"] == 229376
        assert f"m64n256k16.f32.{element}.{element}" in module.ptx
    assert module.manifest["kernels"][GROUPED_FP8_KERNEL]["dynamic_shared_bytes"] == 229376
    assert "m64n256k32.f32.e4m3.e4m3" in module.ptx
    # The block-scaled kernel and the 128x128 one: a 6-stage ring of
    # 128x128 A and B tiles.
    for name in (GROUPED_FP8_BLOCKWISE_KERNEL, GROUPED_FP8_NARROW_KERNEL):
        assert module.manifest["kernels"][name]["dynamic_shared_bytes"] == 229376
    assert "m64n128k32.f32.e4m3.e4m3" in module.ptx


@pytest.mark.parametrize("masked, capacity", [(False, 300), (True, 300),
                                              (True, NARROW_MAX_CAPACITY)])
def test_fp8_groups_match_the_dequantized_product(torch_cuda, masked, capacity):
    """FP8 groups (e4m3 x e5m2 too) with row-wise and per-tensor scales, bf16
    and f16 C: against the float32 product of the dequantized operands, and
    torch._scaled_grouped_mm where PyTorch has it (contiguous, row-wise).
    Masked with a capacity of 300 on the 128x256 kernel, of
    NARROW_MAX_CAPACITY on 128x128 tiles; contiguous on 128x128 tiles (116
    rows a group on average)."""
    import tile
    from tile.testing import quantize_fp8, relative_error
    torch = torch_cuda
    counts = [min(count, capacity) for count in (111, 0, 27, 286, 256, 1, 130)]
    groups, n, k = len(counts), 304, 208
    starts = [g * capacity if masked else sum(counts[:g]) for g in range(groups)]
    m = groups * capacity if masked else sum(counts) + 5
    x = torch.randn(m, k, device="cuda")
    y = torch.randn(groups, n, k, device="cuda")
    a, sa = quantize_fp8(x, (1, k))
    for b_dtype, out_dtype in ((torch.float8_e4m3fn, torch.bfloat16),
                               (torch.float8_e5m2, torch.float16)):
        w, sw = quantize_fp8(y.reshape(groups * n, k), (1, k), dtype=b_dtype)
        w = w.reshape(groups, n, k)
        sw = sw.reshape(groups, n)
        bounds = torch.tensor(counts if masked else [s + c for s, c in zip(starts, counts)],
                              device="cuda", dtype=torch.int32)
        layout = {"valid": bounds} if masked else {"offsets": bounds}
        a_in = a.reshape(groups, capacity, k) if masked else a
        sa_in = sa.reshape(groups, capacity) if masked else sa
        # C starts as NaN: the rows outside every group must stay so.
        c_in = torch.full((groups, capacity, n) if masked else (m, n), float("nan"),
                          device="cuda", dtype=out_dtype)
        c = tile.grouped_matmul(a_in, w.transpose(-2, -1), scale_a=sa_in, scale_b=sw,
                                out=c_in, **layout).reshape(m, n)
        one = tile.grouped_matmul(a_in, w.transpose(-2, -1), scale_a=sa.max().reshape(1),
                                  scale_b=sw.max().reshape(1), out_dtype=out_dtype,
                                  **layout).reshape(m, n)
        torch.cuda.synchronize()
        assert c.dtype == out_dtype
        written = torch.zeros(m, dtype=torch.bool, device="cuda")
        for g, (start, count) in enumerate(zip(starts, counts)):
            rows = slice(start, start + count)
            written[rows] = True
            product = a[rows].float() @ w[g].float().t()
            assert relative_error(c[rows], product * sa[rows] * sw[g]) < 1e-2
            assert relative_error(one[rows], product * sa.max() * sw.max()) < 1e-2
        assert torch.isnan(c[~written].float()).all()
        if not masked and b_dtype == torch.float8_e4m3fn and hasattr(torch, "_scaled_grouped_mm"):
            theirs = torch._scaled_grouped_mm(a[:-5], w.transpose(-2, -1), sa[:-5].reshape(-1),
                                              sw, offs=bounds, out_dtype=torch.bfloat16)
            assert relative_error(c[:-5], theirs.float()) < 1e-2


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("n, k, strided", [(304, 208, False), (304, 640, False),
                                           (2048, 128, True)])
def test_block_scaled_fp8_groups(torch_cuda, masked, n, k, strided):
    """FP8 groups with DeepSeek-V3's block scales (1 x 128 of A, 128 x 128 of
    each group's B; N = 304 ends inside a 128-column block, K = 208 inside a
    K block, 640 is five: pairs and an odd one, 128 one; N = 2048 makes 160
    tiles, more than the SMs, so CTAs walk on from group to group; strided:
    M-major scales, as DeepGEMM lays them out): against the float32 product
    of the dequantized operands, closer to the unquantized product than
    row-wise scales (with more than one K block), and the rows outside every
    group untouched."""
    import tile
    from tile.testing import dequantize_fp8, quantize_fp8, relative_error
    torch = torch_cuda
    counts = [111, 0, 27, 286, 256, 1, 130]
    groups, capacity = len(counts), 300
    starts = [g * capacity if masked else sum(counts[:g]) for g in range(groups)]
    m = groups * capacity if masked else sum(counts) + 5
    generator = torch.Generator(device="cuda").manual_seed(k)
    x = torch.randn(m, k, device="cuda", generator=generator)
    x[:, ::97] *= 30  # outlier columns, as activations have
    y = torch.randn(groups, n, k, device="cuda", generator=generator)
    a, sa = quantize_fp8(x, (1, 128))
    blocks = [quantize_fp8(y[g], (128, 128)) for g in range(groups)]
    w = torch.stack([q for q, _ in blocks])
    sw = torch.stack([s for _, s in blocks])  # G x ceil(N / 128) x ceil(K / 128)
    bounds = torch.tensor(counts if masked else [s + c for s, c in zip(starts, counts)],
                          device="cuda", dtype=torch.int32)
    layout = {"valid": bounds} if masked else {"offsets": bounds}
    a_in = a.reshape(groups, capacity, k) if masked else a
    sa_in = sa.reshape(groups, capacity, -1) if masked else sa
    sw_in = sw
    if strided:
        sa_in = sa_in.transpose(-2, -1).contiguous().transpose(-2, -1)
        sw_in = sw.transpose(-2, -1).contiguous().transpose(-2, -1)
    c_in = torch.full((groups, capacity, n) if masked else (m, n), float("nan"), device="cuda",
                      dtype=torch.bfloat16)
    c = tile.grouped_matmul(a_in, w.transpose(-2, -1), scale_a=sa_in, scale_b=sw_in, out=c_in,
                            **layout).reshape(m, n)
    torch.cuda.synchronize()
    dequantized_a = dequantize_fp8(a, sa, (1, 128))
    written = torch.zeros(m, dtype=torch.bool, device="cuda")
    ours, exact, row_wise = [], [], []
    for g, (start, count) in enumerate(zip(starts, counts)):
        rows = slice(start, start + count)
        written[rows] = True
        if count == 0:
            continue
        dequantized_w = dequantize_fp8(w[g], sw[g], (128, 128))
        error = relative_error(c[rows], dequantized_a[rows] @ dequantized_w.t())
        assert error < 1e-2, (g, error)
        ar, sar = quantize_fp8(x[rows], (1, k))
        wr, swr = quantize_fp8(y[g], (1, k))
        ours.append(c[rows].float())
        exact.append(x[rows] @ y[g].t())
        row_wise.append((ar.float() * sar) @ (wr.float() * swr).t())
    ours, exact, row_wise = (torch.cat(v) for v in (ours, exact, row_wise))
    errors = relative_error(ours, exact), relative_error(row_wise, exact)
    # With one K block, A's block scales are its row-wise ones and B's are
    # coarser: nothing to gain.
    assert k <= 128 or errors[0] <= errors[1], errors
    assert torch.isnan(c[~written].float()).all()


def test_block_scale_errors(torch_cuda):
    import tile
    torch = torch_cuda
    a = torch.randn(64, 256, device="cuda").to(torch.float8_e4m3fn)
    w = torch.randn(2, 136, 256, device="cuda").to(torch.float8_e4m3fn)
    offsets = torch.tensor([32, 64], device="cuda", dtype=torch.int32)
    sa = torch.ones(64, 2, device="cuda")
    with pytest.raises(MatmulError, match=r"block scales are float32 scale_a \(64, 2\) .* and "
                                          r"scale_b \(2, 2, 2\) .* got torch.float32 \(64, 2\) "
                                          r"and torch.float32 \(2, 1, 2\)"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets, scale_a=sa,
                            scale_b=torch.ones(2, 1, 2, device="cuda"))
    with pytest.raises(MatmulError, match="block scales are float32"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets, scale_a=sa.half(),
                            scale_b=torch.ones(2, 2, 2, device="cuda"))
    # One scale per row of A with block scales of B: no mix.
    with pytest.raises(MatmulError, match=r"block scales are float32 scale_a \(64, 2\)"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets, scale_a=torch.ones(64, device="cuda"),
                            scale_b=torch.ones(2, 2, 2, device="cuda"))
    # Masked: A's scales per group, capacity and K block.
    a3 = a.reshape(2, 32, 256)
    valid = torch.tensor([32, 7], device="cuda", dtype=torch.int32)
    with pytest.raises(MatmulError, match=r"scale_a \(2, 32, 2\)"):
        tile.grouped_matmul(a3, w.transpose(-2, -1), valid=valid, scale_a=sa,
                            scale_b=torch.ones(2, 2, 2, device="cuda"))
    # G x N x 1 stays row-wise scales (one per output column of each group).
    c = tile.grouped_matmul(a, w.transpose(-2, -1), offsets, scale_a=torch.ones(64, device="cuda"),
                            scale_b=torch.ones(2, 136, 1, device="cuda"))
    torch.cuda.synchronize()
    assert c.shape == (64, 136)


def test_fp8_scale_errors(torch_cuda):
    import tile
    torch = torch_cuda
    a = torch.randn(64, 64, device="cuda").to(torch.float8_e4m3fn)
    w = torch.randn(2, 64, 64, device="cuda").to(torch.float8_e4m3fn)
    offsets = torch.tensor([32, 64], device="cuda", dtype=torch.int32)
    one = torch.ones(1, device="cuda")
    with pytest.raises(MatmulError, match="FP8 operands take scale_a and scale_b"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets)
    with pytest.raises(MatmulError, match=r"scale_b must be float32 with 1 element .* or 128"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets, scale_a=one,
                            scale_b=torch.ones(64, device="cuda"))
    with pytest.raises(MatmulError, match="stored as bfloat16 or float16"):
        tile.grouped_matmul(a, w.transpose(-2, -1), offsets, scale_a=one, scale_b=one,
                            out_dtype=torch.float32)
    with pytest.raises(MatmulError, match="scale_a and scale_b are for float8 operands"):
        tile.grouped_matmul(a.half(), w.half().transpose(-2, -1), offsets, scale_a=one,
                            scale_b=one)
    with pytest.raises(MatmulError, match="scale_a and scale_b are for float8 operands"):
        tile.grouped_matmul(a.half(), w.half().transpose(-2, -1), offsets, scale_b=one)
    with pytest.raises(MatmulError, match="is stored as torch.float16, got out_dtype"):
        tile.grouped_matmul(a.half(), w.half().transpose(-2, -1), offsets,
                            out_dtype=torch.float32)
