"""Scaled FP8 matrix products from PyTorch on python/tile/kernels/gemm_sm90_fp8.mlir.

    c = tile.matmul(a, b, scale_a=sa, scale_b=sb)            # bf16 C
    c = tile.matmul(a, w, transpose_b=True, scale_a=sa, scale_b=sb,
                    out_dtype=torch.float16)

C = diag(scale_a) (A B) diag(scale_b) with f32 accumulation, as
torch._scaled_mm computes it: A (M x K) and B (K x N) float8_e4m3fn or
float8_e5m2 (in any pair), `scale_a` float32 with one element (per-tensor) or
M (row-wise, one per row of A), `scale_b` with one or N (one per column of
B), C bfloat16 (default) or float16. Block scales (DeepSeek-V3's
fine-grained FP8): `scale_a` (M, ceil(K / 128)), one per row and 128-wide K
block of A, and `scale_b` (ceil(N / 128), ceil(K / 128)), one per 128 x 128
block of B (any strides); each K block's product is then promoted into an
f32 accumulator with its scales (@gemm_fp8_nt_blockwise, 128 x 128 tiles, or
where its whole waves take less time @gemm_fp8_nt_blockwise_m192, 192 x 128 tiles
on three consumer warpgroups), as DeepGEMM does, instead of accumulating all of K in the tensor cores'
reduced precision. FP8 wgmma reads both operands K-major
(T-WGMMA-3), so B must be the transpose of a row-major N x K matrix (w.t()
of an N x K weight, or `transpose_b=True` with w) — torch._scaled_mm's
layout; a row-major K x N B is an error, not a silent copy. TMA needs rows of
16-byte multiples (T-TMA-9/10): K a multiple of 16, N of 8. Where the
128 x 256 tiles make at least two waves on the SMs, the kernel runs in 2x1
clusters that multicast B (@gemm_fp8_nt_multicast: an FP8 stage is
consumed twice as fast as an f16 one, and halving B's L2 reads measured
3-8% faster); otherwise the persistent kernel of tile.matmul (@gemm_fp8_nt:
one CTA per SM, split-K tail, workspace per stream). On the current stream
(or `stream`), without waiting.
"""
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from .matmul import (TMA_ALIGNMENT, Device, MatmulError, MatmulPlan, Operand, _cdiv, _lru,
                     _columns_contiguous, _operand, _rows_contiguous, _split_k_buffers,
                     _torch_stream, device_of, require_cuda_tensors)

#: The kernel's source; its element types are the aliases !ea, !eb, !ec.
FP8_SOURCE = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90_fp8.mlir"
FP8_KERNEL = "gemm_fp8_nt"
FP8_MULTICAST_KERNEL = "gemm_fp8_nt_multicast"
FP8_BLOCKWISE_KERNEL = "gemm_fp8_nt_blockwise"
FP8_BLOCKWISE_M192_KERNEL = "gemm_fp8_nt_blockwise_m192"
#: How much faster the three-warpgroup 192 x 128 block-scaled kernel runs
#: a full wave than the 128 x 128 one (8192^3 on an H200: 10-14%;
#: bench/NOTES.md).
M192_SPEEDUP = 1.12
#: K (and B's N) extent of one block scale (DeepSeek-V3's 1x128 / 128x128).
SCALE_BLOCK = 128
#: Waves of 128 x 256 tiles from which the multicast kernel runs.
MULTICAST_MIN_WAVES = 2


def multicast_pays(m: int, n: int, sms: int) -> bool:
    """Whether the 2x1-cluster kernel runs C (M x N): at least
    MULTICAST_MIN_WAVES waves of tiles, and a last wave that @gemm_fp8_nt
    would not split along K — its split-K tail engages where the last wave
    leaves at least half the SMs idle (0 < 2 (tiles mod SMs) <= SMs,
    T-TILE-7), and then beats the clusters' whole idle wave (2048x7168x4096
    on an H200: 0.88-0.90 of cuBLAS in clusters; bench/NOTES.md)."""
    tiles = _cdiv(m, 128) * _cdiv(n, 256)
    tail = tiles % sms
    return tiles >= MULTICAST_MIN_WAVES * sms and not 0 < 2 * tail <= sms
#: PyTorch dtype names -> tile IR element types.
FP8_ELEMENTS = {"float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2"}
OUT_ELEMENTS = {"bfloat16": "bf16", "float16": "f16"}


@dataclass(frozen=True)
class ScaledPlan:
    """One FP8 launch: the persistent launch (`launch`: kernel, grid and, for
    @gemm_fp8_nt, the workspace of tile.matmul's persistent kernels) and the
    kernel variant's element types (A, B, C)."""
    launch: MatmulPlan
    elements: Tuple[str, str, str]

    @property
    def multicast(self) -> bool:
        return self.launch.kernel == FP8_MULTICAST_KERNEL

    @property
    def blockwise(self) -> bool:
        return self.launch.kernel in (FP8_BLOCKWISE_KERNEL, FP8_BLOCKWISE_M192_KERNEL)

    def arguments(self, a, b, c, scale_a, scale_b, split_k=None):
        p = self.launch
        if self.multicast or self.blockwise:
            return (a, b, c, p.m, p.n, p.k, scale_a, scale_b)
        workspace, counters = split_k
        return (a, b, c, p.m, p.n, p.k, scale_a, scale_b, workspace, counters)


def blockwise_tile_rows(m: int, n: int, sms: int) -> int:
    """The rows of the block-scaled kernel's tiles for C (M x N): 192 (three
    consumer warpgroups) where its whole waves, each 1.5x the work of a
    128-row wave but M192_SPEEDUP faster per tile, take less time than the
    128 x 128 kernel's, else 128 (e.g. 4096^3: 6 waves of 192-row tiles
    against 8 of 128-row ones)."""
    n_tiles = _cdiv(n, SCALE_BLOCK)
    waves = {rows: _cdiv(_cdiv(m, rows) * n_tiles, sms) for rows in (128, 192)}
    return 192 if waves[192] * 192 / M192_SPEEDUP < waves[128] * 128 else 128


def is_fp8(dtype_name: str) -> bool:
    return dtype_name in FP8_ELEMENTS


def plan_scaled_matmul(a: Operand, b: Operand, scale_a: Operand, scale_b: Operand,
                       out: Optional[Operand], out_dtype: str, device: Device,
                       shared_bytes: Optional[int] = None) -> ScaledPlan:
    """The launch for C = diag(scale_a) A B diag(scale_b) with A (M x K) and
    the logical B (K x N); raises MatmulError for what the kernel cannot
    take (on plain shapes, strides and addresses: no PyTorch, no GPU)."""
    for name, operand in (("A", a), ("B", b)) + ((("out", out),) if out else ()):
        if len(operand.shape) != 2:
            raise MatmulError(f"tile.matmul: {name} must be a matrix, got shape "
                              f"{tuple(operand.shape)}")
    for name, operand in (("A", a), ("B", b)):
        if not is_fp8(operand.dtype):
            raise MatmulError(f"tile.matmul with scales takes float8_e4m3fn or float8_e5m2 "
                              f"operands, got {name} of {operand.dtype}")
    if out_dtype not in OUT_ELEMENTS:
        raise MatmulError(f"tile.matmul: an FP8 product is stored as bfloat16 or float16, "
                          f"got out_dtype {out_dtype}")
    m, k = a.shape
    if b.shape[0] != k:
        raise MatmulError(f"tile.matmul: A is {m} x {k} but B, as K x N, is "
                          f"{b.shape[0]} x {b.shape[1]}")
    n = b.shape[1]
    k_blocks, n_blocks = _cdiv(k, SCALE_BLOCK), _cdiv(n, SCALE_BLOCK)
    # Block scales: A's (M, K blocks), B's (N blocks, K blocks); where both
    # have one block (K, N <= 128) they are row-wise scales.
    blockwise = (tuple(scale_a.shape) == (m, k_blocks)
                 and tuple(scale_b.shape) == (n_blocks, k_blocks) and k_blocks * n_blocks > 1)
    for name, scale, count, what in (("scale_a", scale_a, m, "row of A"),
                                     ("scale_b", scale_b, n, "column of B")):
        elements = 1
        for extent in scale.shape:
            elements *= extent
        if scale.dtype != "float32" or not (blockwise or elements in (1, count)):
            raise MatmulError(f"tile.matmul: {name} must be float32 with 1 element (per "
                              f"tensor) or {count} (one per {what}), or scale_a ({m}, "
                              f"{k_blocks}) and scale_b ({n_blocks}, {k_blocks}) (one per "
                              f"1x{SCALE_BLOCK} block of A and {SCALE_BLOCK}x{SCALE_BLOCK} block "
                              f"of B), got {scale.dtype} of shape {tuple(scale.shape)}")
    if out is not None:
        if tuple(out.shape) != (m, n):
            raise MatmulError(f"tile.matmul: out must be {m} x {n}, got "
                              f"{out.shape[0]} x {out.shape[1]}")
        if out.dtype != out_dtype:
            raise MatmulError(f"tile.matmul: out is {out.dtype}, out_dtype {out_dtype}")
        if not _rows_contiguous(out):
            raise MatmulError(f"tile.matmul: out must be row-major with contiguous rows, got "
                              f"strides {tuple(out.strides)}")
    operands = (a, b, scale_a, scale_b) + ((out,) if out else ())
    devices = {operand.device for operand in operands}
    if len(devices) != 1:
        raise MatmulError(f"tile.matmul: operands on different devices: {sorted(devices)}")
    if device.capability != (9, 0):
        raise MatmulError("tile.matmul runs Hopper kernels (sm_90a: H100, H200); this GPU is "
                          f"sm_{device.capability[0]}{device.capability[1]}")
    if not _rows_contiguous(a):
        raise MatmulError(f"tile.matmul: A must be row-major with contiguous rows, got "
                          f"strides {tuple(a.strides)}; pass A.contiguous()")
    if not _columns_contiguous(b):
        raise MatmulError(f"tile.matmul: FP8 wgmma reads B K-major only (T-WGMMA-3): B (K x N "
                          f"= {k} x {n}) must be the transpose of a row-major N x K matrix "
                          f"(w.t() of an N x K w, or transpose_b=True with w), got strides "
                          f"{tuple(b.strides)}")
    c = out or Operand((m, n), (n, 1), out_dtype, 0, a.device)
    for name, operand, pitch, bytes_ in (("A", a, a.strides[0], 1), ("B", b, b.strides[1], 1),
                                         ("out" if out else "C", c, c.strides[0], 2)):
        if operand.address % TMA_ALIGNMENT or pitch * bytes_ % TMA_ALIGNMENT:
            raise MatmulError(
                f"tile.matmul: {name}'s rows ({pitch} elements of {bytes_} byte"
                f"{'s' if bytes_ > 1 else ''} from 0x{operand.address:x}) are not 16-byte "
                "aligned: TMA needs 16-byte aligned addresses and row strides (T-TMA-9, "
                "T-TMA-10), so an FP8 K must be a multiple of 16 and N of 8")
    if blockwise:
        # 192 x 128 or 128 x 128 tiles, one CTA per SM or fewer tiles.
        rows = blockwise_tile_rows(m, n, device.sms)
        tiles = _cdiv(m, rows) * n_blocks
        launch = MatmulPlan(FP8_BLOCKWISE_M192_KERNEL if rows == 192 else FP8_BLOCKWISE_KERNEL,
                            FP8_ELEMENTS[a.dtype], m, n, k, (min(tiles, device.sms), 1, 1), True)
    elif multicast_pays(m, n, device.sms):
        # 2x1 clusters on pairs of row tiles, one CTA per SM.
        clusters = min(_cdiv(m, 256) * _cdiv(n, 256), device.sms // 2)
        launch = MatmulPlan(FP8_MULTICAST_KERNEL, FP8_ELEMENTS[a.dtype], m, n, k,
                            (2 * clusters, 1, 1), True)
    else:
        # One CTA per SM, as tile.matmul's persistent kernels (tile.work_unit).
        launch = MatmulPlan(FP8_KERNEL, FP8_ELEMENTS[a.dtype], m, n, k, (device.sms, 1, 1),
                            True)
    if shared_bytes is not None and device.shared_optin is not None \
            and shared_bytes > device.shared_optin:
        raise MatmulError(f"tile.matmul: @{launch.kernel} needs {shared_bytes} bytes of shared "
                          f"memory, the GPU gives a block at most {device.shared_optin}")
    return ScaledPlan(launch, (FP8_ELEMENTS[a.dtype], FP8_ELEMENTS[b.dtype],
                               OUT_ELEMENTS[out_dtype]))


# --- PyTorch -----------------------------------------------------------------

_MODULES: Dict[Tuple[str, str, str], object] = {}


def fp8_module(elements: Tuple[str, str, str]):
    """The compiled FP8 kernel with A, B and C of `elements`."""
    if elements not in _MODULES:
        from .compiler import compile, redefine_aliases
        text = redefine_aliases(FP8_SOURCE.read_text(),
                                dict(zip(("!ea", "!eb", "!ec"), elements)))
        _MODULES[elements] = compile(text, chip="sm_90a")
    return _MODULES[elements]


#: Plans by shapes, strides, dtypes, devices and alignments, most recent last.
_PLANS: "OrderedDict[tuple, ScaledPlan]" = OrderedDict()


def scaled_matmul(torch, a, b, scale_a, scale_b, *, out=None, out_dtype=None,
                  transpose_b: bool = False, stream=None):
    """tile.matmul's FP8 path (see the module's documentation)."""
    require_cuda_tensors(torch, "tile.matmul", a=a, b=b, scale_a=scale_a, scale_b=scale_b,
                         out=out)
    if out_dtype is None:
        out_dtype = out.dtype if out is not None else torch.bfloat16
    out_name = str(out_dtype).split(".")[-1]
    logical_b = b.t() if transpose_b else b
    key = tuple((t.shape, t.stride(), t.dtype, t.device, t.data_ptr() % TMA_ALIGNMENT)
                for t in (a, logical_b, scale_a, scale_b) + ((out,) if out is not None else ()))
    key += (out_name,)

    def make():
        operands = [_operand(t) for t in (a, logical_b, scale_a, scale_b)]
        # The kernel variant (and its shared memory) follows from the types.
        probe = plan_scaled_matmul(*operands, _operand(out) if out is not None else None,
                                   out_name, device_of(torch, a))
        manifest = fp8_module(probe.elements).manifest["kernels"][probe.launch.kernel]
        return plan_scaled_matmul(*operands, _operand(out) if out is not None else None,
                                  out_name, device_of(torch, a),
                                  manifest["dynamic_shared_bytes"])
    plan = _lru(_PLANS, 256, key, make)
    launch = plan.launch
    launch_stream = _torch_stream(torch, stream)
    if not plan.blockwise:
        # Per-tensor and row-wise scales as the kernels take them: unit-
        # stride vectors (memref<?xf32>; a copy only where a scale is
        # strided, e.g. a column slice or an expanded scalar), copied on the
        # launch's stream so that the kernel reads them after the copy and
        # their memory outlives it.
        with torch.cuda.stream(launch_stream):
            scale_a = scale_a.reshape(-1).contiguous()
            scale_b = scale_b.reshape(-1).contiguous()
    if out is None:
        out = torch.empty((launch.m, launch.n), device=a.device, dtype=out_dtype)
        if stream is not None and launch_stream != torch.cuda.current_stream():
            out.record_stream(launch_stream)  # allocated here, written there
    if launch.m == 0 or launch.n == 0 or launch.k == 0:
        if launch.k == 0:
            with torch.cuda.stream(launch_stream):
                out.zero_()
        return out
    kernel = _kernel(plan.elements, launch.kernel)
    split_k = None if plan.multicast or plan.blockwise else _split_k_buffers(
        launch, out, None if stream is None else launch_stream)
    kernel(*plan.arguments(a, logical_b.t(), out, scale_a, scale_b, split_k),
           grid=launch.grid, stream=stream)
    return out


_KERNELS: Dict[Tuple[Tuple[str, str, str], str], object] = {}


def _kernel(elements: Tuple[str, str, str], name: str):
    """A launchable kernel, loaded once per variant."""
    key = (elements, name)
    if key not in _KERNELS:
        _KERNELS[key] = fp8_module(elements).kernel(name)
    return _KERNELS[key]
