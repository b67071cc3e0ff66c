"""Launching tile kernels on PyTorch CUDA tensors (skipped without a GPU)."""
import pytest

import tile
from tile import TileRuntimeError
from tile.testing import relative_error



def test_copy_through_shared_memory(torch_cuda, examples):
    torch = torch_cuda
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    dst = torch.full_like(src, float("nan"))
    kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1))
    assert torch.equal(dst, src)


@pytest.mark.parametrize("layout", ["nt", "nn"])
@pytest.mark.parametrize("shape, ctas, schedule", [
    ((256, 512, 512), 132, "split_k"), ((200, 296, 200), 132, "split_k"),
    ((1024, 1024, 4096), 132, "split_k"),
    # Split tiles (tile.work_unit): 4 tiles on 3 CTAs (split_k: the last
    # tile in 3 K ranges; stream_k: all shared, ranges of 5, 5 and 6 of 16
    # K slices) and 32 tiles of 64 slices on 5 CTAs (split_k: the last 2
    # tiles in 2 ranges; stream_k: the last 7 shared); 1 tile on 132 CTAs
    # (split_k: 8 ranges of 8 slices).
    ((200, 296, 200), 3, "split_k"), ((1024, 1024, 4096), 5, "split_k"),
    ((128, 256, 4096), 132, "split_k"),
    ((200, 296, 200), 3, "stream_k"), ((1024, 1024, 4096), 5, "stream_k")])
def test_hopper_gemm_matches_torch(torch_cuda, kernels, layout, shape, ctas, schedule):
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("needs sm_90a")
    m, n, k = shape
    text = (kernels / "gemm_sm90.mlir").read_text()
    module = tile.compile(text.replace("work_count split_k", f"work_count {schedule}")
                          .replace("of split_k", f"of {schedule}"), chip="sm_90a")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    if layout == "nn":
        b = b.t().contiguous()  # K x N, row-major
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    grid = ctas
    # The split tiles' workspace and counters: stream_k needs the most, at
    # most grid + grid / 2 tiles of two halves, two slots of 128 rows each
    # (T-TILE-7; 1024 rows a CTA leave room to spare).
    workspace = torch.empty((grid * 1024, 128), device="cuda", dtype=torch.float32)
    counters = torch.zeros(grid * 4, device="cuda", dtype=torch.int32)
    unread = torch.zeros(1, device="cuda", dtype=torch.float32)
    unread = (unread, unread.view(torch.int32))  # no FP8 C: not read
    kernel = module.kernel(f"gemm_{layout}")
    want = a.float() @ (b.t() if layout == "nt" else b).float()
    for _ in range(2):  # the counters are back at zero after a launch
        c.fill_(float("nan"))
        kernel(a, b, c, m, n, k, workspace, counters, c, c, *unread, grid=(grid, 1, 1),
               block=(384, 1, 1))
        assert not c.isnan().any()
        assert relative_error(c, want) < 2e-3
    assert not counters.any()


def test_ampere_gemm_matches_torch(torch_cuda, examples):
    torch = torch_cuda
    m, n, k = 256, 384, 320
    kernel = tile.compile(examples / "hgemm_sm80.mlir", chip="sm_80").kernel("hgemm_nn")
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
    kernel(a, b, c, grid=(n // 128, m // 128, 1), block=(128, 1, 1), shared=65536)
    assert relative_error(c, a @ b) < 2e-3


def test_tma_precondition_raises(torch_cuda, kernels):
    torch = torch_cuda
    kernel = tile.compile(kernels / "gemm_sm90.mlir", chip="sm_90a").kernel("gemm_nn")
    a = torch.zeros(200, 200, device="cuda", dtype=torch.float16)
    b = torch.zeros(200, 300, device="cuda", dtype=torch.float16)  # 600-byte rows
    c = torch.zeros(200, 300, device="cuda", dtype=torch.float16)
    workspace = torch.zeros(1024, 128, device="cuda", dtype=torch.float32)
    counters = torch.zeros(4, device="cuda", dtype=torch.int32)
    unread = torch.zeros(1, device="cuda", dtype=torch.float32)
    unread = (unread, unread.view(torch.int32))  # no FP8 C: not read
    with pytest.raises(TileRuntimeError, match="T-TMA-9"):
        kernel(a, b, c, 200, 300, 200, workspace, counters, c, c, *unread, grid=(1, 1, 1),
               block=(384, 1, 1))


class FakeCudaArray:
    """An array that says it is on the GPU (`__cuda_array_interface__`) at an
    address nothing reads: enough to reach the tensor-map encoder, whose
    rule checks run before the driver is called (and fail first here)."""

    def __init__(self, shape, typestr="<f2", address=0x7f0000000000):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": None,
                                         "data": (address, False), "version": 3}


def test_tensor_map_rules_from_python_without_a_gpu(kernels):
    """Python's tensor maps go through the runtime's memref encoder, the one
    lowered host code calls: a broken rule is the contract's message (with
    memref dimension numbers), raised before the launch, GPU or not."""
    kernel = tile.compile(kernels / "gemm_sm90.mlir", chip="sm_90a").kernel("gemm_nn")
    a = FakeCudaArray((200, 200))   # 400-byte rows: fine
    b = FakeCudaArray((200, 300))   # 600-byte rows: not a multiple of 16
    with pytest.raises(TileRuntimeError,
                       match=r"the stride of dimension 0 is 600 bytes.*\(T-TMA-9\); rank 2, f16, "
                             r"dims \[200, 300\]"):
        kernel(b, a, b, 200, 300, 200, *[None] * 7, grid=(1, 1, 1))
    unaligned = FakeCudaArray((200, 200), address=0x7f0000000008)
    with pytest.raises(TileRuntimeError, match=r"global address 0x7f0000000008 is not 16-byte "
                                               r"aligned \(T-TMA-10\)"):
        kernel(unaligned, a, a, 200, 200, 200, *[None] * 7, grid=(1, 1, 1))


def test_launch_error_raises(torch_cuda, examples):
    torch = torch_cuda
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    src = torch.zeros(256, 64, device="cuda", dtype=torch.float16)
    with pytest.raises(TileRuntimeError, match="shared memory"):
        kernel(src, src, grid=(4, 1, 1), block=(128, 1, 1), shared=1 << 20)


def test_wrong_arguments_raise(torch_cuda, examples):
    torch = torch_cuda
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    src = torch.zeros(256, 64, device="cuda", dtype=torch.float32)
    with pytest.raises(TypeError, match="expected elements f16"):
        kernel(src, src, grid=(4, 1, 1), block=(128, 1, 1))
    with pytest.raises(TypeError, match="takes 2 arguments"):
        kernel(src, grid=(4, 1, 1), block=(128, 1, 1))
    narrow = torch.zeros(256, 32, device="cuda", dtype=torch.float16)
    with pytest.raises(tile.OperandError, match=r"got shape \(256, 32\)"):
        kernel(narrow, narrow, grid=(4, 1, 1), block=(128, 1, 1))  # memref<?x64xf16>


def test_numpy_host_arrays_without_copies(torch_cuda, examples):
    np = pytest.importorskip("numpy")
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    src = np.random.default_rng(0).standard_normal((256, 64)).astype(np.float16)
    dst = np.full_like(src, np.nan)
    kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1))
    assert np.array_equal(dst, src)


class _DLPackOnly:
    """Exposes only __dlpack__ (as JAX arrays do)."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__()

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_dlpack_arrays_without_copies(torch_cuda, examples):
    torch = torch_cuda
    kernel = tile.compile(examples / "cp_async_copy.mlir").kernel("copy_tile")
    src = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    dst = torch.full_like(src, float("nan"))
    kernel(_DLPackOnly(src), _DLPackOnly(dst), grid=(4, 1, 1), block=(128, 1, 1))
    assert torch.equal(dst, src)
    with pytest.raises(TypeError, match="expected elements f16"):
        kernel(_DLPackOnly(src.float()), _DLPackOnly(dst), grid=(4, 1, 1), block=(128, 1, 1))
