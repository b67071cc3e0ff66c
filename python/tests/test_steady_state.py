"""The ops' steady state: a call like an earlier one (shapes, strides, dtypes,
alignment, device, options) on the same stream packs only its tensors into
the launch prepared for it (Kernel.prepare). The results must be those of
the new tensors, whatever their addresses, views or streams."""
import pytest

import tile
from tile.ops import attention as attention_op
from tile.ops import kvcache, matmul as matmul_op


def close(torch, got, expected, tolerance=2e-2):
    scale = max(expected.float().abs().max().item(), 1e-6)
    return (got.float() - expected.float()).abs().max().item() / scale < tolerance


@pytest.mark.parametrize("m", [16, 256])
def test_matmul_steady_state_new_addresses_views_and_streams(torch_cuda, m):
    torch = torch_cuda
    matmul_op.PLANS.clear()
    results = []
    for i in range(4):
        a = torch.randn(m, 512, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(384, 512, device="cuda", dtype=torch.bfloat16)
        out = torch.empty(m, 384, device="cuda", dtype=torch.bfloat16)
        expected = a.float() @ w.float().t()
        assert close(torch, tile.matmul(a, w.t()), expected)
        tile.matmul(a, w, out=out, transpose_b=True)
        assert close(torch, out, expected)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            c = tile.matmul(a, w.t())
        side.synchronize()
        results.append(close(torch, c, expected))
    assert all(results)
    # One plan per call form, each with its launches by stream.
    assert all(planned.launches for planned in matmul_op.PLANS._values.values())


@pytest.mark.parametrize("shape", [(77, 111, 33), (300, 111, 72), (200, 64, 33)])
def test_matmul_steady_state_staged_operands(torch_cuda, shape):
    """Rows TMA cannot address are staged: later calls copy into the same
    staging buffers (tile.ops.staging's kernel for rows of any pitch,
    PyTorch's copy for an M-major A) and take their own operands' values."""
    torch = torch_cuda
    m, n, k = shape
    for _ in range(3):
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
        assert close(torch, tile.matmul(a, b), a.float() @ b.float())
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        assert close(torch, tile.matmul(a, w, transpose_b=True), a.float() @ w.float().t())
        # An M-major A (a transposed view) staged too: PyTorch's copy.
        a_mn = torch.randn(k, m, device="cuda", dtype=torch.bfloat16).t()
        assert close(torch, tile.matmul(a_mn, b), a_mn.float() @ b.float())


def test_attention_steady_state_prefill_and_decode_routes(torch_cuda):
    torch = torch_cuda
    F = torch.nn.functional
    attention_op.READY.clear()
    for sq in (1, 128, 1024):  # the decode kernels (direct and combined), the prefill kernel
        for _ in range(3):
            q = torch.randn(2, 16, sq, 128, device="cuda", dtype=torch.bfloat16)
            k, v = (torch.randn(2, 4, 1024, 128, device="cuda", dtype=torch.bfloat16)
                    for _ in range(2))
            expected = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                      enable_gqa=True)
            assert close(torch, tile.attention(q, k, v, enable_gqa=True), expected)
            out = torch.empty_like(q)
            tile.attention(q, k, v, enable_gqa=True, out=out)
            assert close(torch, out, expected)
    assert len(attention_op.READY) == 6


def test_kvcache_steady_state_appends_and_lengths(torch_cuda):
    """Decode steps with appends, as a serving loop makes them: each step's
    new K and V land at its length, and the next step sees them."""
    torch = torch_cuda
    F = torch.nn.functional
    kvcache.READY.clear()
    b, hkv, h, d, capacity = 2, 8, 32, 128, 1024
    k_cache, v_cache = (torch.randn(b, capacity, hkv, d, device="cuda", dtype=torch.bfloat16)
                        for _ in range(2))
    lengths = torch.tensor([300, 517], device="cuda", dtype=torch.int32)
    for step in range(4):
        q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(b, 1, hkv, d, device="cuda", dtype=torch.bfloat16)
                for _ in range(2))
        out = tile.attention_with_kvcache(q, k_cache, v_cache, k=k, v=v, cache_seqlens=lengths)
        for i in range(b):
            n = int(lengths[i]) + 1
            assert torch.equal(k_cache[i, n - 1], k[i, 0]) and torch.equal(v_cache[i, n - 1],
                                                                             v[i, 0])
            expected = F.scaled_dot_product_attention(
                q[i:i + 1].transpose(1, 2).float(), k_cache[i:i + 1, :n].transpose(1, 2).float(),
                v_cache[i:i + 1, :n].transpose(1, 2).float(), enable_gqa=True)
            assert close(torch, out[i:i + 1].transpose(1, 2), expected), (step, i)
        lengths += 1
        # One length for all, given as an int, on the same plan's launches.
        n = 700 + step
        out = tile.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=n)
        expected = F.scaled_dot_product_attention(
            q.transpose(1, 2).float(), k_cache[:, :n].transpose(1, 2).float(),
            v_cache[:, :n].transpose(1, 2).float(), enable_gqa=True)
        assert close(torch, out.transpose(1, 2), expected), step
    assert len(kvcache.READY) == 2


def test_grouped_steady_state(torch_cuda):
    torch = torch_cuda
    for _ in range(3):
        a = torch.randn(256, 256, device="cuda", dtype=torch.bfloat16)
        # G x K x N with K contiguous (each group's N x K rows).
        b = torch.randn(4, 128, 256, device="cuda", dtype=torch.bfloat16).transpose(-2, -1)
        offsets = torch.tensor([64, 100, 200, 256], device="cuda", dtype=torch.int32)
        got = tile.grouped_matmul(a, b, offsets)
        starts = [0, 64, 100, 200]
        for g in range(4):
            rows = slice(starts[g], int(offsets[g]))
            assert close(torch, got[rows], a[rows].float() @ b[g].float())


@pytest.mark.parametrize("m, n, k", [(16, 384, 512), (1792, 2560, 1024), (4096, 4096, 512)])
def test_fp8_steady_state_new_addresses_scales_and_streams(torch_cuda, m, n, k):
    """FP8 calls like an earlier one (narrow, 192-wide split and multicast
    kernels) take their prepared launch: new operands and new scales by
    address, per-tensor scalars and row-wise (M, 1) / (1, N) scales alike; a
    strided scale is copied and never prepared."""
    from tile.ops import scaled_matmul
    torch = torch_cuda
    scaled_matmul.PLANS.clear()
    for i in range(3):
        a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        w = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        product = a.float() @ w.float().t()
        sa, sb = torch.rand(m, 1, device="cuda") + 0.5, torch.rand(1, n, device="cuda") + 0.5
        assert close(torch, tile.matmul(a, w.t(), scale_a=sa, scale_b=sb), product * sa * sb)
        scalar_a, scalar_b = torch.tensor(0.5 + i, device="cuda"), torch.tensor(2.0, device="cuda")
        got = tile.matmul(a, w, transpose_b=True, scale_a=scalar_a, scale_b=scalar_b)
        assert close(torch, got, product * scalar_a * scalar_b)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.float16)
        side.synchronize()
        assert c.dtype == torch.float16 and close(torch, c, product * sa * sb)
        strided = (torch.rand(n, 2, device="cuda") + 0.5)[:, 1]
        got = tile.matmul(a, w.t(), scale_a=sa, scale_b=strided)
        assert close(torch, got, product * sa * strided)
    prepared = [planned for planned in scaled_matmul.PLANS._values.values() if planned.launches]
    assert len(prepared) == 3 and len(scaled_matmul.PLANS._values) == 4


def test_prepared_launches_keep_their_buffers(torch_cuda):
    """A prepared launch keeps the buffers whose addresses it holds: the
    decode workspace replaced by a larger one, split-K and staging buffers
    evicted from the scratch cache by other shapes, and the first calls
    still right afterwards."""
    torch = torch_cuda
    F = torch.nn.functional
    from tile.ops import persistent
    k_cache, v_cache = (torch.randn(32, 1024, 8, 128, device="cuda", dtype=torch.bfloat16)
                        for _ in range(2))

    def decode(batch):
        q = torch.randn(batch, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
        lengths = torch.full((batch,), 1000, device="cuda", dtype=torch.int32)
        out = tile.attention_with_kvcache(q, k_cache[:batch], v_cache[:batch],
                                          cache_seqlens=lengths, num_splits=8)
        expected = F.scaled_dot_product_attention(
            q.transpose(1, 2).float(), k_cache[:batch, :1000].transpose(1, 2).float(),
            v_cache[:batch, :1000].transpose(1, 2).float(), enable_gqa=True)
        return close(torch, out.transpose(1, 2), expected)

    assert decode(1) and decode(32)  # the stream's workspace grows
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    assert decode(1)  # still its own buffer
    # A split-K decode GEMM, then enough staged shapes to evict its buffers.
    a, w = (torch.randn(16, 8192, device="cuda", dtype=torch.bfloat16),
            torch.randn(512, 8192, device="cuda", dtype=torch.bfloat16))
    assert close(torch, tile.matmul(a, w.t()), a.float() @ w.float().t())
    for k in range(9, 9 + 2 * persistent.SCRATCH.entries, 2):
        x, y = (torch.randn(130, k, device="cuda", dtype=torch.bfloat16),
                torch.randn(k, 40, device="cuda", dtype=torch.bfloat16))
        assert close(torch, tile.matmul(x, y), x.float() @ y.float())
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    for _ in range(2):
        assert close(torch, tile.matmul(a, w.t()), a.float() @ w.float().t())
