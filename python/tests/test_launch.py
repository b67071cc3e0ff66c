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
    unread = (unread, unread.view(torch.int32))  # no FP8 C: not read (C's rows: C's)
    kernel = module.kernel(f"gemm_{layout}")
    want = a.float() @ (b.t() if layout == "nt" else b).float()
    for _ in range(2):  # the counters are back at zero after a launch
        c.fill_(float("nan"))
        kernel(a, b, c, m, n, k, workspace, counters, c, c, *unread, c, grid=(grid, 1, 1),
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
    unread = (unread, unread.view(torch.int32))  # no FP8 C: not read (C's rows: C's)
    with pytest.raises(TileRuntimeError, match="T-TMA-9"):
        kernel(a, b, c, 200, 300, 200, workspace, counters, c, c, *unread, c, grid=(1, 1, 1),
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


# A producer that spins before it writes and a consumer that reads what it
# wrote: both wait for the grid before them (tile.grid_dependency_wait) and
# then let the next kernel start (tile.launch_dependents), so each runs
# beside the one before it and still sees its writes.
DEPENDENT_CHAIN = """
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @produce(%out: memref<?xf32>, %value: f32, %spins: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      tile.grid_dependency_wait
      tile.launch_dependents
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c256 = arith.constant 256 : index
      %one = arith.constant 1.0 : f32
      %growth = arith.constant 1.0000001 : f32
      %huge = arith.constant 1.0e30 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %acc = scf.for %s = %c0 to %spins step %c1 iter_args(%a = %one) -> f32 {
        %g = arith.mulf %a, %growth : f32
        scf.yield %g : f32
      }
      %big = arith.cmpf ogt, %acc, %huge : f32
      %extra = arith.select %big, %one, %value : f32
      %written = arith.addf %extra, %value : f32
      memref.store %written, %out[%i] : memref<?xf32>
      gpu.return
    }
    gpu.func @consume(%in: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      tile.grid_dependency_wait
      tile.launch_dependents
      %c256 = arith.constant 256 : index
      %one = arith.constant 1.0 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c256 : index
      %i = arith.addi %base, %tid : index
      %x = memref.load %in[%i] : memref<?xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %out[%i] : memref<?xf32>
      gpu.return
    }
  }
}
"""


def test_dependent_launch_manifest():
    module = tile.compile(DEPENDENT_CHAIN, chip="sm_90a")
    assert module.manifest["kernels"]["produce"]["dependent_launch"] is True
    assert module.manifest["kernels"]["consume"]["dependent_launch"] is True
    kernel = module.kernel("consume")
    assert kernel._dependent == int(tile.launch.DEPENDENT_LAUNCH)


def test_dependent_launches_see_the_grid_before(torch_cuda):
    """Each consumer reads the producer launched just before it on the
    stream, which triggers its launch early (a consumer without the wait
    would read the buffer while the producer still spins)."""
    torch = torch_cuda
    module = tile.compile(DEPENDENT_CHAIN, chip="sm_90a")
    produce, consume = module.kernel("produce"), module.kernel("consume")
    n = 132 * 8 * 256
    buffer = torch.zeros(n, device="cuda")
    results = [torch.zeros(n, device="cuda") for _ in range(8)]
    for round_, result in enumerate(results):
        produce(buffer, float(round_), 2000, grid=(n // 256, 1, 1))
        consume(buffer, result, grid=(n // 256, 1, 1))
    torch.cuda.synchronize()
    for round_, result in enumerate(results):
        assert torch.equal(result, torch.full_like(result, 2.0 * round_ + 1.0)), round_


def test_tile_kernels_wait_for_the_grid_before():
    """The kernels of a decode step (the decode GEMM, its gated and split-K
    forms, decode attention and its combine, the cache append, RMSNorm,
    RoPE, the gated activation, the staging copy) are dependent launches,
    and so are the persistent GEMMs (bf16, FP8, grouped), attention and its
    backward."""
    from tile.ops.cache_append import CACHE_APPEND, CacheAppendConfig
    from tile.ops.decode import DECODE, DecodeConfig
    from tile.ops.decode_attention import DECODE_ATTENTION, DecodeAttentionConfig
    from tile.ops.epilogue import Epilogue
    from tile.ops.gated_activation import GATED_ACTIVATION, GatedActivationConfig
    from tile.ops.matmul import GEMM
    from tile.ops.rms_norm import RMS_NORM, config_for
    from tile.ops.rope import ROPE, RopeConfig
    from tile.ops.staging import STAGE_ROWS, StageRowsConfig
    gated = DecodeConfig("nt", 16, 4, "bf16", columns=128,
                         epilogue=Epilogue(gated=True, activation="silu"))
    families = [(DECODE, DecodeConfig("nt", 8, 6, "bf16", spans=2, split_k=True)),
                (DECODE, gated),
                (DECODE_ATTENTION, DecodeAttentionConfig("bf16", 128, 16)),
                (CACHE_APPEND, CacheAppendConfig("bf16", 128)),
                (RMS_NORM, config_for("bf16", 4096, True)),
                (ROPE, RopeConfig("bf16", 128, True)),
                (GATED_ACTIVATION, GatedActivationConfig()),
                (STAGE_ROWS, StageRowsConfig())]
    for family, variant in families:
        kernels = family.module(variant).manifest["kernels"]
        for name, entry in kernels.items():
            assert entry["dependent_launch"] is True, (family.name, name)
    from tile.ops.attention import ATTENTION
    from tile.ops.attention_backward import (ATTENTION_BACKWARD,
                                             ATTENTION_BACKWARD_FUSED)
    from tile.ops.grouped import GROUPED
    from tile.ops.scaled_matmul import FP8
    persistent = [(GEMM, ("bf16",)), (FP8, ("f8E4M3FN", "f8E4M3FN", "bf16")),
                  (GROUPED, ("bf16",)),
                  (ATTENTION, ("bf16", False, 128, None, False)),
                  (ATTENTION_BACKWARD, ("bf16", 128)),
                  (ATTENTION_BACKWARD_FUSED, ("bf16", 128))]
    for family, variant in persistent:
        kernels = family.module(variant).manifest["kernels"]
        assert kernels and all(entry["dependent_launch"]
                               for entry in kernels.values()), family.name
