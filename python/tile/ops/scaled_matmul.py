"""Scaled FP8 matrix products from PyTorch on kernels/gemm_sm90_fp8.mlir.

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
f32 accumulator with its scales (@gemm_fp8_nt_blockwise: 128 x 128 tiles, one
K block's promotion under the next one's wgmmas), as DeepGEMM does, instead
of accumulating all of K in the tensor cores' reduced precision. FP8 wgmma reads both operands K-major
(T-WGMMA-3), so B must be the transpose of a row-major N x K matrix (w.t()
of an N x K weight, or `transpose_b=True` with w) — torch._scaled_mm's
layout; a row-major K x N B is an error, not a silent copy. TMA needs rows of
16-byte multiples (T-TMA-9/10): K a multiple of 16, N of 8. Per-tensor and
row-wise products of M <= FP8_DECODE_MAX_M run the decode kernels of
tile.ops.decode with 8-bit operands (C^T = B A^T: the weight streamed once
by many CTAs, split along K where they are few). Larger ones run the
persistent kernel of tile.matmul (@gemm_fp8_nt: one CTA per SM, split-K
tail, workspace per stream) in the tile width persistent.tile_width picks
with FP8's slice costs, or, where its 128 x 256 tiles make at least
MULTICAST_MIN_WAVES waves on the SMs, in 2x1 clusters that multicast B
(@gemm_fp8_nt_multicast: an FP8 stage is consumed twice as fast as an f16
one, and halving B's L2 reads measured 3-8% faster in per-tensor
products; with fewer waves it measured slower). A call like an
earlier one on the same stream packs its tensors and scales (by address)
into the launch prepared for it. On the current stream (or `stream`),
without waiting.
"""
from dataclasses import dataclass, replace
from typing import Dict, Optional, Tuple

from ..core import devices, streams
from ..core.caches import LruCache
from ..core.elements import BY_TORCH, dtype_name
from ..core.errors import MatmulError
from ..compiler import redefine_aliases
from ..family import KernelFamily
from ..core.operands import (TMA_ALIGNMENT, Operand, cdiv, columns_contiguous, operand_of,
                             require_cuda_tensors, require_one_device, rows_contiguous,
                             signature)
from ..toolchain import read_kernel
from . import persistent
from .decode import DECODE, FP8_SLICE, DecodeConfig, decode_config, decode_grid

def fp8_width_aliases(tile_n: int) -> Dict[str, str]:
    """The aliases of kernels/gemm_sm90_fp8.mlir that make @gemm_fp8_nt's
    tiles `tile_n` (one of persistent.FP8_TILE_WIDTHS) columns wide: their
    16-bit C in chunks of 64 x 64 or, for widths no multiple of 64, 64 x 32
    (one swizzle span a row)."""
    return {**persistent.width_aliases(tile_n, 128, "!ea", "!eb", "!ring_bars"),
            **persistent.store_aliases(tile_n, "!ec", 2, "!dc_nt")}


def fp8_pingpong_aliases(tile_n: int) -> Dict[str, str]:
    """The aliases of kernels/gemm_sm90_fp8.mlir that give @gemm_fp8_nt's
    consumer warpgroups every other tile `tile_n` (one of
    persistent.FP8_PINGPONG_WIDTHS) columns wide, all 128 rows of it
    (#pingpong, as gemm_sm90.mlir's): 128 x tile_n / 128 accumulators a
    thread, the wgmma and store shapes of 128 rows, the staging buffers
    and the split-K workspace's columns."""
    return persistent.pingpong_aliases(tile_n, FP8_SLICE, tile_n, "!ec",
                                       persistent.FP8_PINGPONG_WIDTHS)


def fp8_source(variant: Tuple) -> str:
    """kernels/gemm_sm90_fp8.mlir for a variant: the element types of A, B
    and C (aliases !ea, !eb, !ec), and @gemm_fp8_nt's tile width where it
    is not 256, then persistent.PINGPONG for its ping-pong consumers."""
    text = redefine_aliases(read_kernel("gemm_sm90_fp8.mlir"),
                            dict(zip(("!ea", "!eb", "!ec"), variant[:3])))
    if len(variant) == 3:
        return text
    text = redefine_aliases(text, fp8_width_aliases(variant[3]))
    if variant[4:] == (persistent.PINGPONG,):
        text = redefine_aliases(text, fp8_pingpong_aliases(variant[3]))
    return text


#: The kernels; a variant is the element types of A, B and C, e.g.
#: ("f8E4M3FN", "f8E4M3FN", "bf16"), and @gemm_fp8_nt's tile width where
#: it is not 256 (ScaledPlan.variant).
FP8 = KernelFamily("gemm_sm90_fp8.mlir", fp8_source)
FP8_KERNEL = "gemm_fp8_nt"
FP8_MULTICAST_KERNEL = "gemm_fp8_nt_multicast"
FP8_BLOCKWISE_KERNEL = "gemm_fp8_nt_blockwise"
#: K (and B's N) extent of one block scale (DeepSeek-V3's 1x128 / 128x128).
SCALE_BLOCK = 128
#: Waves of 128 x 256 tiles from which the multicast kernel runs (NVIDIA
#: H200, row-wise scales, one process: below four it ran 3-7% slower than
#: @gemm_fp8_nt at 3.88 waves, 4096 x 4096 x 8192 / 14336 and 2048 x 8192 x
#: 7296, and 3% at 2.91, 3072 x 4096 x 14336; from about five waves within
#: +-2% run to run, 4096 x 10240 x 8192 1-4% faster; bench/NOTES.md).
MULTICAST_MIN_WAVES = 4
#: M up to which per-tensor and row-wise products run the FP8 decode
#: kernels (tile.ops.decode: C^T = B A^T, B streamed once by many CTAs; H100,
#: kernel time over torch._scaled_mm's: 1.5-3.2x at M <= 64, 1.2-1.7x at
#: M = 96 and 128 with 64 columns a CTA; at 128 x 28672 x 4096 the
#: 128-column kernel ran 0.82x and the persistent one 0.94x, so a decode
#: config of 128 columns runs the persistent kernel instead).
FP8_DECODE_MAX_M = 128


def multicast_pays(m: int, n: int, sms: int) -> bool:
    """Whether the 2x1-cluster kernel runs C (M x N): at least
    MULTICAST_MIN_WAVES waves of tiles, and a last wave that @gemm_fp8_nt
    would not split along K — its split-K tail engages where the last wave
    leaves at least half the SMs idle (0 < 2 (tiles mod SMs) <= SMs,
    T-TILE-7), and then beats the clusters' whole idle wave (2048x7168x4096
    on an H200: 0.88-0.90 of cuBLAS in clusters; bench/NOTES.md)."""
    tiles = cdiv(m, 128) * cdiv(n, 256)
    tail = tiles % sms
    return tiles >= MULTICAST_MIN_WAVES * sms and not 0 < 2 * tail <= sms


#: PyTorch dtype names of the operands and of C.
FP8_ELEMENTS = ("float8_e4m3fn", "float8_e5m2")
OUT_ELEMENTS = ("bfloat16", "float16")


@dataclass(frozen=True)
class ScaledPlan:
    """One FP8 launch: the kernel, the problem, the grid and the kernel
    variant's element types (A, B, C)."""
    kernel: str
    m: int
    n: int
    k: int
    grid: Tuple[int, int, int]
    elements: Tuple[str, str, str]
    #: The CTAs the split-K workspace is sized for (the SM count: one
    #: workspace per stream for every grid; 0: the grid's).
    workspace_ctas: int = 0
    #: @gemm_fp8_nt's tile columns (persistent.tile_width).
    tile_n: int = persistent.TILE[1]
    #: The FP8 decode kernel (M <= FP8_DECODE_MAX_M), else None.
    decode: Optional[DecodeConfig] = None
    #: @gemm_fp8_nt's ping-pong consumers (fp8_pingpong_aliases).
    pingpong: bool = False

    @property
    def variant(self) -> Tuple:
        """The kernel variant: the element types, the tile width where it is
        not 256 and persistent.PINGPONG for ping-pong consumers."""
        if self.pingpong:
            return self.elements + (self.tile_n, persistent.PINGPONG)
        if self.tile_n == persistent.TILE[1]:
            return self.elements
        return self.elements + (self.tile_n,)

    @property
    def multicast(self) -> bool:
        return self.kernel == FP8_MULTICAST_KERNEL

    @property
    def blockwise(self) -> bool:
        return self.kernel == FP8_BLOCKWISE_KERNEL

    @property
    def split_k_shape(self) -> Optional[Tuple[Tuple[int, int], int]]:
        """The split-K workspace of @gemm_fp8_nt (the persistent kernels')
        or of a split decode kernel, None for the others."""
        if self.decode is not None:
            return (self.decode.workspace_shape(*self.grid[:2]) if self.decode.split_k
                    else None)
        if self.multicast or self.blockwise:
            return None
        return persistent.split_k_workspace_shape(self.workspace_ctas or self.grid[0],
                                                  self.tile_n, self.pingpong)

    @property
    def varying(self) -> Tuple[int, ...]:
        """Positions of A, B, C and the scales among the kernel's arguments."""
        if self.decode is None:
            return (0, 1, 2, 6, 7)
        return (0, 1, 2) + ((6, 7) if self.decode.split_k else (4, 5))

    def arguments(self, a, b, c, scale_a, scale_b, split_k=None):
        if self.decode is not None:
            return self.decode.arguments(a, b, c, self.k, split_k, scale_a, scale_b)
        if self.split_k_shape is None:
            return (a, b, c, self.m, self.n, self.k, scale_a, scale_b)
        workspace, counters = split_k
        return (a, b, c, self.m, self.n, self.k, scale_a, scale_b, workspace, counters)


def plan_scaled_matmul(a: Operand, b: Operand, scale_a: Operand, scale_b: Operand,
                       out: Optional[Operand], out_dtype: str, device: devices.Device,
                       shared_bytes: Optional[int] = None) -> ScaledPlan:
    """The launch for C = diag(scale_a) A B diag(scale_b) with A (M x K) and
    the logical B (K x N); raises MatmulError for what the kernel cannot
    take (on plain shapes, strides and addresses: no PyTorch, no GPU)."""
    for name, operand in (("A", a), ("B", b)) + ((("out", out),) if out else ()):
        if len(operand.shape) != 2:
            raise MatmulError(f"tile.matmul: {name} must be a matrix, got shape "
                              f"{tuple(operand.shape)}")
    for name, operand in (("A", a), ("B", b)):
        if operand.dtype not in FP8_ELEMENTS:
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
    k_blocks, n_blocks = cdiv(k, SCALE_BLOCK), cdiv(n, SCALE_BLOCK)
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
        if not rows_contiguous(out):
            raise MatmulError(f"tile.matmul: out must be row-major with contiguous rows, got "
                              f"strides {tuple(out.strides)}")
    require_one_device("tile.matmul", a, b, scale_a, scale_b, out)
    devices.require_hopper("tile.matmul", device)
    if not rows_contiguous(a):
        raise MatmulError(f"tile.matmul: A must be row-major with contiguous rows, got "
                          f"strides {tuple(a.strides)}; pass A.contiguous()")
    if not columns_contiguous(b):
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
    tile_n, pingpong = persistent.TILE[1], False
    decode = (replace(decode_config(m, n, k, True, "bf16", device, slice_k=FP8_SLICE),
                      element=BY_TORCH[a.dtype].name, b_element=BY_TORCH[b.dtype].name,
                      out=BY_TORCH[out_dtype].name)
              if not blockwise and m <= FP8_DECODE_MAX_M and c.strides[0] == n else None)
    if decode is not None and decode.columns != 64:
        decode = None
    if decode is not None:
        # The decode kernels: C^T = B A^T, 128-byte K spans.
        kernel, grid = decode.name, decode_grid(decode, n, k, device)
        shared_bytes = None  # decode_config fits its stages to the device
    elif blockwise:
        # 128 x 128 tiles (one block of B's scales), one CTA per SM or
        # fewer tiles.
        kernel, grid = FP8_BLOCKWISE_KERNEL, (min(cdiv(m, SCALE_BLOCK) * n_blocks,
                                                  device.sms), 1, 1)
    else:
        # The persistent kernel's tile width by tile.matmul's cost model
        # (128-element K-slices); the clusters take 256-wide tiles only.
        # Ping-pong consumers and clusters where they paid before the
        # widths that fit the waves (decided from the other widths'
        # choice), else those widths too.
        cooperative = persistent.tile_width(
            m, n, k, device.sms, persistent.unfitted(persistent.FP8_TILE_WIDTHS), slice_k=128)
        fitted = persistent.tile_width(m, n, k, device.sms, persistent.FP8_TILE_WIDTHS,
                                       slice_k=128)
        pingpong = persistent.pingpong_pays(m, n, k, device.sms, cooperative, fitted)
        multicast = (not pingpong and cooperative == persistent.TILE[1]
                     and multicast_pays(m, n, device.sms))
        if pingpong:
            # 128 x 128 tiles on ping-pong consumers: one warpgroup's
            # epilogue under the other's MMAs (on the grid below).
            tile_n = persistent.NARROW_TILE
        else:
            tile_n = cooperative if multicast else fitted
        if multicast:
            # 2x1 clusters on pairs of row tiles, one CTA per SM.
            clusters = min(cdiv(m, 256) * cdiv(n, 256), device.sms // 2)
            kernel, grid = FP8_MULTICAST_KERNEL, (2 * clusters, 1, 1)
        else:
            # One CTA per SM, or per tile (and split) where there are fewer.
            kernel, grid = FP8_KERNEL, (persistent.persistent_grid(
                m, n, k, device.sms, tile_n, slice_k=128), 1, 1)
    if shared_bytes is not None and device.shared_optin is not None \
            and shared_bytes > device.shared_optin:
        raise MatmulError(f"tile.matmul: @{kernel} needs {shared_bytes} bytes of shared "
                          f"memory, the GPU gives a block at most {device.shared_optin}")
    return ScaledPlan(kernel, m, n, k, grid,
                      tuple(BY_TORCH[name].name for name in (a.dtype, b.dtype, out_dtype)),
                      device.sms, tile_n, decode, pingpong)


def kernel_of(plan: ScaledPlan):
    """The launchable kernel of `plan`."""
    if plan.decode is not None:
        return DECODE.kernel(plan.decode, plan.kernel)
    return FP8.kernel(plan.variant, plan.kernel)


# --- PyTorch -----------------------------------------------------------------

@dataclass
class PlannedScaled:
    """A call shape's plan, the operands' device, and its launches by
    stream (Kernel.prepare: the scalars and split-K buffers packed once; A,
    B, C and the scales per call, by address)."""
    plan: ScaledPlan
    index: int
    launches: Dict[int, object]


#: PlannedScaled by shapes, strides, dtypes, devices, alignments and C's
#: type, most recent last.
PLANS = LruCache(256)


def _key(a, logical_b, scale_a, scale_b, out, out_dtype) -> tuple:
    return tuple(signature(t) for t in (a, logical_b, scale_a, scale_b, out)) + (out_dtype,)


def scaled_matmul(torch, a, b, scale_a, scale_b, *, out=None, out_dtype=None,
                  transpose_b: bool = False, stream=None):
    """tile.matmul's FP8 path (see the module's documentation). A call like
    an earlier one on the same stream (and with scales the kernel reads in
    place: contiguous, or block scales) packs its tensors into the launch
    prepared for it."""
    if out_dtype is None:
        out_dtype = out.dtype if out is not None else torch.bfloat16
    try:
        logical_b = b.t() if transpose_b else b
        key = _key(a, logical_b, scale_a, scale_b, out, out_dtype)
    except (AttributeError, TypeError, RuntimeError):  # not tensors: the checks say why
        key, logical_b = None, None
    planned = PLANS.peek(key)
    if planned is not None:
        launch = planned.launches.get(streams.stream_handle(stream, planned.index) or 0)
        if launch is not None:
            if out is None:
                out = streams.new_output(torch, (planned.plan.m, planned.plan.n), a, stream,
                                         planned.index, out_dtype)
            launch(a, logical_b, out, scale_a, scale_b)
            return out
    index = require_cuda_tensors(torch, "tile.matmul", a=a, b=b, scale_a=scale_a,
                                 scale_b=scale_b, out=out)
    out_name = dtype_name(out_dtype)
    if logical_b is None:
        logical_b = b.t() if transpose_b else b

    def make():
        operands = [operand_of(t) for t in (a, logical_b, scale_a, scale_b)]
        out_operand = operand_of(out) if out is not None else None
        device = devices.device(index)
        # The kernel variant (and its shared memory) follows from the types.
        probe = plan_scaled_matmul(*operands, out_operand, out_name, device)
        if probe.decode is not None:
            return PlannedScaled(probe, index, {})
        return PlannedScaled(plan_scaled_matmul(*operands, out_operand, out_name, device,
                                                FP8.shared_bytes(probe.variant, probe.kernel)),
                             index, {})
    planned = PLANS.get(key, make)
    plan = planned.plan
    in_place = plan.blockwise or (scale_a.is_contiguous() and scale_b.is_contiguous())
    # The launch's stream as a torch stream, for the copies around the kernel
    # (None: the device's current one, where the tensors' ops go anyway).
    launch_stream = None if stream is None else streams.torch_stream(torch, stream, index)
    if not plan.blockwise:
        # Per-tensor and row-wise scales as the kernels take them: unit-
        # stride vectors (memref<?xf32>; a copy only where a scale is
        # strided, e.g. a column slice or an expanded scalar), copied on the
        # launch's stream so that the kernel reads them after the copy and
        # their memory outlives it.
        with streams.running_on(torch, launch_stream):
            scale_a = scale_a.reshape(-1).contiguous()
            scale_b = scale_b.reshape(-1).contiguous()
    if out is None:
        out = torch.empty((plan.m, plan.n), device=a.device, dtype=out_dtype)
        if launch_stream is not None and launch_stream != torch.cuda.current_stream(index):
            out.record_stream(launch_stream)  # allocated here, written there
    if plan.m == 0 or plan.n == 0 or plan.k == 0:
        if plan.k == 0:
            with streams.running_on(torch, launch_stream):
                out.zero_()
        return out
    shape = plan.split_k_shape
    split_k = None if shape is None else persistent.split_k_buffers(
        torch, shape, index, launch_stream)
    arguments = plan.arguments(a, logical_b.t(), out, scale_a, scale_b, split_k)
    kernel = kernel_of(plan)
    if key is None or not in_place:
        kernel.launch_on(index, arguments, plan.grid, stream)
        return out
    # Prepared for this stream: the next such call takes the steady state
    # above (the scales by the address of the tensors given, which the
    # kernel reads in place).
    launch = planned.launches[streams.stream_handle(stream, index) or 0] = kernel.prepare(
        index, arguments, plan.grid, stream, varying=plan.varying)
    launch()
    return out
