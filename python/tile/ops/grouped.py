"""Grouped matrix products (mixture-of-experts layers) from PyTorch on
kernels/gemm_sm90_grouped.mlir: one persistent launch for all groups.

    c = tile.grouped_matmul(x, w.transpose(-2, -1), offsets)   # contiguous
    c = tile.grouped_matmul(x3, w.transpose(-2, -1), valid=counts)  # masked
    c = tile.grouped_matmul(x8, w8.transpose(-2, -1), offsets,  # FP8
                            scale_a=sx, scale_b=sw)

Contiguous (torch._grouped_mm's layout): `a` (M x K) holds the groups' rows
stacked, group g the rows [offsets[g - 1], offsets[g]) (offsets: int32
running ends on the GPU, offsets[-1] <= M); C (M x N) gets each group's rows
of A times its B[g] (K x N); rows past offsets[-1] are not written. Masked:
`a` (G x capacity x K), group g's first valid[g] rows; C (G x capacity x N)
gets those rows, the others are not written. `b` (G x K x N) must be the
transpose view of G row-major N x K matrices (w.transpose(-2, -1) of a
contiguous G x N x K w): the kernel reads them K-major as one (G N) x K
matrix. f16 or bf16, f32 accumulation, C in the operands' type. FP8
(@grouped_gemm_fp8_nt): float8_e4m3fn or float8_e5m2 in any pair, with
float32 `scale_a` of one element (per tensor) or one per row of A (M, or G x
capacity masked) and `scale_b` of one or one per column of each group's
product (G x N, torch._scaled_grouped_mm's row-wise scales); C =
diag(scale_a) A B diag(scale_b) in `out_dtype` (bfloat16, default, or
float16). Block scales (DeepSeek-V3's, DeepGEMM's grouped layouts):
`scale_a` one per row and 128-wide K block of A (M x ceil(K / 128), or G x
capacity x ceil(K / 128) masked) and `scale_b` one per 128 x 128 block of
each group's B (G x ceil(N / 128) x ceil(K / 128)), any strides; each K
block's product is promoted into f32 with its scales
(@grouped_gemm_fp8_nt_blockwise: 128 x 128 tiles, as tile.matmul's
block-scaled kernel); a 3-D `scale_b` other than G x N x 1 (row-wise) is
block scales and must have exactly these shapes. TMA needs 16-byte rows: K
and N multiples of 8 (K of 16 for FP8). One CTA per SM takes the tiles of
all groups as tile.matmul's persistent kernels take a matrix's (a mostly
idle last wave split along K; the block-scaled kernel, and FP8 groups of
at most NARROW_MAX_ROWS rows on average, or NARROW_MAX_CAPACITY of
capacity masked, take whole 128x128 tiles round-robin), on the current
stream (or `stream`), without waiting; the offsets are read by the
kernel, not the host.
"""
from typing import Optional, Tuple

from ..core import devices, streams
from ..core.caches import LruCache, PreparedCalls
from ..core.elements import BY_TORCH, FLOAT16_TYPES, dtype_name
from ..core.errors import MatmulError
from ..family import KernelFamily
from ..core.operands import TMA_ALIGNMENT, cdiv, require_cuda_tensors, signature
from ..core.streams import new_output
from . import persistent
from .scaled_matmul import FP8_ELEMENTS, OUT_ELEMENTS, SCALE_BLOCK
from ..core.routing import no_backward, operators, routed

#: The kernels: @grouped_gemm_nt with element type !e (a variant ("bf16",)),
#: @grouped_gemm_fp8_nt with !ea, !eb, !ec (a variant of A's, B's and C's
#: element types).
GROUPED = KernelFamily.from_package("gemm_sm90_grouped.mlir", ("!e",))
GROUPED_FP8 = KernelFamily.from_package("gemm_sm90_grouped.mlir", ("!ea", "!eb", "!ec"))
GROUPED_KERNEL = "grouped_gemm_nt"
GROUPED_FP8_KERNEL = "grouped_gemm_fp8_nt"
GROUPED_FP8_BLOCKWISE_KERNEL = "grouped_gemm_fp8_nt_blockwise"
GROUPED_FP8_NARROW_KERNEL = "grouped_gemm_fp8_nt_narrow"
#: Rows per group (on average: M / G) up to which contiguous FP8 groups with
#: row-wise or per-tensor scales run @grouped_gemm_fp8_nt_narrow (128x128
#: tiles round-robin): NVIDIA H200, against @grouped_gemm_fp8_nt, 256 x 128
#: rows 2.1-2.5x, 64 x 512 1.3-1.4x, 32 x 256 (N 7168) 1.04-1.07x faster,
#: 16 x 1024 0.99-1.02x, 8 x 2048 and 8 x 4096 0.96-0.99x (bench/NOTES.md).
NARROW_MAX_ROWS = 512
#: The masked layout's capacity up to which its FP8 groups run
#: @grouped_gemm_fp8_nt_narrow (the valid counts are the device's, unknown
#: here): NVIDIA H200, 256 x 128 with random counts 2.4x, 64 x 256 1.25x,
#: 32 x 256 full 1.06x faster; 32 x 512 and 8 x 1024 random 0.92-0.94x,
#: capacities of 2048-8192 0.97-1.03x (bench/NOTES.md).
NARROW_MAX_CAPACITY = 256
#: Element types (PyTorch dtype names) of the 16-bit kernels.
ELEMENTS = FLOAT16_TYPES


def check_grouped(a_shape, a_strides, b_shape, b_strides, dtype: str, masked: bool,
                  device: devices.Device,
                  b_dtype: Optional[str] = None) -> Tuple[int, int, int, int, int]:
    """(groups, rows of A as a matrix, N, K, capacity) of a grouped product
    of A's `dtype` and B's `b_dtype` (default: A's), or MatmulError for what
    the kernel cannot take (plain shapes and strides in elements: no
    PyTorch, no GPU)."""
    b_dtype = b_dtype or dtype
    fp8 = dtype in FP8_ELEMENTS
    if not (dtype in ELEMENTS and b_dtype == dtype or fp8 and b_dtype in FP8_ELEMENTS):
        raise MatmulError(f"tile.grouped_matmul takes float16 or bfloat16 operands (both the "
                          f"same) or float8_e4m3fn / float8_e5m2 ones (any pair), got a of "
                          f"{dtype} and b of {b_dtype}")
    devices.require_hopper("tile.grouped_matmul", device)
    if len(b_shape) != 3:
        raise MatmulError(f"tile.grouped_matmul: b must be G x K x N, got shape {tuple(b_shape)}")
    groups, k, n = b_shape
    if masked:
        if len(a_shape) != 3 or a_shape[0] != groups or a_shape[2] != k:
            raise MatmulError(f"tile.grouped_matmul (masked): a must be {groups} x capacity x "
                              f"{k}, got shape {tuple(a_shape)}")
        capacity = a_shape[1]
        if tuple(a_strides) != (capacity * k, k, 1):
            raise MatmulError("tile.grouped_matmul (masked): a must be contiguous")
        rows = groups * capacity
    else:
        if len(a_shape) != 2 or a_shape[1] != k:
            raise MatmulError(f"tile.grouped_matmul: a must be M x {k}, got shape "
                              f"{tuple(a_shape)}")
        if a_strides[1] != 1 or a_strides[0] < k:
            raise MatmulError(f"tile.grouped_matmul: a must be row-major with contiguous rows, "
                              f"got strides {tuple(a_strides)}")
        capacity, rows = 0, a_shape[0]
    if tuple(b_strides) != (n * k, 1, k):
        raise MatmulError(f"tile.grouped_matmul: b (G x K x N = {groups} x {k} x {n}) must be "
                          "w.transpose(-2, -1) of a contiguous G x N x K w (the kernel reads "
                          f"each B[g] K-major, T-WGMMA-1), got strides {tuple(b_strides)}")
    # Rows of A and B hold K elements of the operands' type, rows of C N of
    # a 16-bit type.
    for name, extent, bytes_ in (("K", k, BY_TORCH[dtype].bytes), ("N", n, 2)):
        if extent * bytes_ % TMA_ALIGNMENT:
            raise MatmulError(f"tile.grouped_matmul: {name} = {extent}: TMA needs 16-byte rows "
                              f"(T-TMA-9), so {name} must be a multiple of "
                              f"{TMA_ALIGNMENT // bytes_}")
    return groups, rows, n, k, capacity


#: check_grouped's answers by shapes, strides, dtype, layout, alignment and
#: device.
CHECKS = LruCache(256)
#: (device, out's shape, prepared launches by stream) of f16/bf16 calls by
#: the tensors' signatures: a call like an earlier one on the same stream
#: packs its tensors only.
READY = PreparedCalls()


def grouped_matmul(a, b, offsets=None, *, valid=None, scale_a=None, scale_b=None, out=None,
                   out_dtype=None, stream=None):
    """See the module's documentation.

    Under torch.compile, and where autograd records it, it runs as the
    operator tile::grouped_matmul (tile.library; f16/bf16 products have a
    derivative, FP8 ones are an error there)."""
    import torch
    if routed(torch, a, b):
        if scale_a is not None or scale_b is not None:
            no_backward(torch, "tile.grouped_matmul with FP8 operands", a, b)
        ops = operators(torch, "tile.grouped_matmul", stream)
        if scale_a is not None and out_dtype is None and out is not None:
            out_dtype = out.dtype  # as the eager call: an FP8 product in out's type
        result = ops.grouped_matmul(a, b, offsets, valid, scale_a, scale_b, out_dtype)
        return result if out is None else out.copy_(result)
    plain = scale_a is None and scale_b is None
    try:
        ready_key = (signature(a), signature(b), signature(offsets), signature(valid),
                     signature(out), out_dtype)
    except (AttributeError, TypeError):  # not tensors: the checks say why
        ready_key = None
    ready = READY.find(ready_key, stream) if plain else None
    if ready is not None:
        launch, index, shape = ready
        out = new_output(torch, shape, a, stream, index) if out is None else out
        launch(a, b, out, out, offsets if valid is None else valid)
        return out
    if (offsets is None) == (valid is None):
        raise MatmulError("tile.grouped_matmul: give offsets (contiguous groups) or valid "
                          "(masked groups), not both")
    bounds = offsets if valid is None else valid
    index = require_cuda_tensors(torch, "tile.grouped_matmul", a=a, b=b, out=out,
                                 scale_a=scale_a, scale_b=scale_b,
                                 **{"offsets" if valid is None else "valid": bounds})
    if len(b.shape) != 3:
        raise MatmulError(f"tile.grouped_matmul: b must be G x K x N, got shape {tuple(b.shape)}")
    if bounds.dtype != torch.int32 or bounds.dim() != 1 or bounds.shape[0] != b.shape[0] \
            or not bounds.is_contiguous():
        raise MatmulError(f"tile.grouped_matmul: {'offsets' if valid is None else 'valid'} must "
                          f"be a contiguous int32 vector of one entry per group "
                          f"({b.shape[0]}), got {bounds.dtype} of shape {tuple(bounds.shape)}")
    dtype, b_dtype = (dtype_name(t.dtype) for t in (a, b))
    fp8 = dtype in FP8_ELEMENTS
    if a.dtype != b.dtype and not fp8:
        raise MatmulError(f"tile.grouped_matmul: a is {a.dtype} but b is {b.dtype}")
    if fp8 and (scale_a is None or scale_b is None):
        raise MatmulError("tile.grouped_matmul: FP8 operands take scale_a and scale_b (float32 "
                          "scales)")
    if not fp8 and (scale_a is not None or scale_b is not None):
        raise MatmulError(f"tile.grouped_matmul: scale_a and scale_b are for float8 operands; "
                          f"a is {a.dtype}")
    if not fp8 and out_dtype not in (None, a.dtype):
        raise MatmulError(f"tile.grouped_matmul: a {a.dtype} product is stored as "
                          f"{a.dtype}, got out_dtype {out_dtype}")
    masked = valid is not None
    key = (tuple(a.shape), a.stride(), tuple(b.shape), b.stride(), dtype, b_dtype, masked,
           a.device, a.data_ptr() % TMA_ALIGNMENT, b.data_ptr() % TMA_ALIGNMENT)
    groups, rows, n, k, capacity = CHECKS.get(
        key, lambda: check_grouped(a.shape, a.stride(), b.shape, b.stride(), dtype, masked,
                                   devices.device(index), b_dtype))
    shape = (groups, capacity, n) if masked else (rows, n)
    c_dtype = (out_dtype or (out.dtype if out is not None else torch.bfloat16)) if fp8 \
        else a.dtype
    # The launch's stream as a torch stream, for the copies around the kernel
    # (None: the device's current one, where the tensors' ops go anyway).
    launch_stream = None if stream is None else streams.torch_stream(torch, stream, index)
    # Block scales: a 3-D scale_b but the row-wise G x N x 1.
    blockwise = fp8 and scale_b.dim() == 3 and tuple(scale_b.shape[1:]) != (b.shape[2], 1)
    if fp8:
        if dtype_name(c_dtype) not in OUT_ELEMENTS:
            raise MatmulError(f"tile.grouped_matmul: an FP8 product is stored as bfloat16 or "
                              f"float16, got {c_dtype}")
        if blockwise:
            # Views where the strides allow, else copies on the launch's
            # stream (read by the kernel after them).
            with streams.running_on(torch, launch_stream):
                scale_a, scale_b = _block_scales(torch, scale_a, scale_b, groups, rows, n, k,
                                                 capacity if masked else None)
        else:
            # Strided scales are copied on the launch's stream, so the kernel
            # reads them after the copy and their memory outlives the kernel.
            with streams.running_on(torch, launch_stream):
                scale_a, scale_b = (_scales(torch, name, scale, (1, count), what)
                                    for name, scale, count, what in (
                                        ("scale_a", scale_a, rows, "row of A"),
                                        ("scale_b", scale_b, groups * n,
                                         "column of each group's C")))
    if out is None:
        out = new_output(torch, shape, a, stream, index, c_dtype)
    elif tuple(out.shape) != shape or out.dtype != c_dtype or not out.is_contiguous():
        raise MatmulError(f"tile.grouped_matmul: out must be a contiguous {c_dtype} tensor of "
                          f"shape {shape}, got {out.dtype} {tuple(out.shape)}")
    if a.data_ptr() % TMA_ALIGNMENT or b.data_ptr() % TMA_ALIGNMENT \
            or out.data_ptr() % TMA_ALIGNMENT:
        raise MatmulError("tile.grouped_matmul: a, b and out must start 16-byte aligned "
                          "(T-TMA-10)")
    if groups == 0 or rows == 0 or n == 0:
        return out
    if k == 0:
        raise MatmulError("tile.grouped_matmul: K = 0 (nothing to multiply; the groups' rows "
                          "of C would be zero)")
    a2 = a.reshape(rows, k) if masked else a
    b2 = b.transpose(-2, -1).reshape(groups * n, k)  # a view: checked contiguous
    c2 = out.reshape(rows, n)
    # One CTA per SM over all groups' tiles (tile.work_unit split_k), with
    # the persistent kernels' split-K workspace (per stream), or whole
    # 128x128 tiles round-robin (whole_tiles_kernel).
    grid = (devices.device(index).sms, 1, 1)
    whole_tiles = whole_tiles_kernel(fp8, blockwise, rows, groups,
                                     capacity if masked else None)
    # The FP8 kernels' variant: the element types of A, B and C.
    variant = tuple(BY_TORCH[dtype_name(t)].name for t in (a.dtype, b.dtype, c_dtype)) \
        if fp8 else None
    if whole_tiles is not None:
        GROUPED_FP8.kernel(variant, whole_tiles).launch_on(
            index, (a2, b2, c2, c2, bounds, capacity, groups, n, k, scale_a, scale_b), grid,
            stream)
        return out
    workspace, counters = persistent.split_k_buffers(
        torch, persistent.split_k_workspace_shape(grid[0]), index,
        launch_stream)
    if fp8:
        GROUPED_FP8.kernel(variant, GROUPED_FP8_KERNEL).launch_on(
            index, (a2, b2, c2, c2, bounds, capacity, groups, n, k, scale_a, scale_b, workspace,
                    counters), grid, stream)
    else:
        # Prepared for this call shape and stream: the next such call packs
        # a, b, out and the bounds only (by address: the views' bases).
        launch = GROUPED.kernel((BY_TORCH[dtype].name,), GROUPED_KERNEL).prepare(
            index, (a2, b2, c2, c2, bounds, capacity, groups, n, k, workspace, counters), grid,
            stream, varying=(0, 1, 2, 3, 4))
        if ready_key is not None:
            READY.keep(ready_key, index, shape, stream, launch)
        launch()
    return out


def whole_tiles_kernel(fp8: bool, blockwise: bool, rows: int, groups: int,
                       capacity: Optional[int]) -> Optional[str]:
    """The kernel that takes whole 128x128 tiles round-robin for a grouped
    product of `rows` rows in `groups` groups (`capacity` a group in the
    masked layout, None contiguous), or None for the 128x256 kernels with a
    split tail: the block-scaled kernel, and FP8 groups of at most
    NARROW_MAX_ROWS rows on average (contiguous) or NARROW_MAX_CAPACITY
    rows of capacity (masked)."""
    if blockwise:
        return GROUPED_FP8_BLOCKWISE_KERNEL
    if not fp8:
        return None
    small = (rows <= NARROW_MAX_ROWS * groups if capacity is None
             else capacity <= NARROW_MAX_CAPACITY)
    return GROUPED_FP8_NARROW_KERNEL if small else None


def _scales(torch, name: str, scale, counts, what: str):
    """`scale` as the unit-stride float32 vector the FP8 kernel reads (a copy
    only where it is strided), or MatmulError unless it has one of `counts`
    elements."""
    if scale.dtype != torch.float32 or scale.numel() not in counts:
        raise MatmulError(f"tile.grouped_matmul: {name} must be float32 with 1 element (per "
                          f"tensor) or {counts[1]} (one per {what}), got {scale.dtype} of "
                          f"shape {tuple(scale.shape)}")
    return scale.reshape(-1).contiguous()


def _block_scales(torch, scale_a, scale_b, groups: int, rows: int, n: int, k: int,
                  capacity: Optional[int]):
    """The block scales as the kernel reads them, A's (rows x K blocks) and
    B's ((G N blocks) x K blocks), as views where the strides allow (else a
    copy), or MatmulError for other shapes and types."""
    k_blocks, n_blocks = cdiv(k, SCALE_BLOCK), cdiv(n, SCALE_BLOCK)
    a_shape = (groups, capacity, k_blocks) if capacity is not None else (rows, k_blocks)
    b_shape = (groups, n_blocks, k_blocks)
    if scale_a.dtype != torch.float32 or scale_b.dtype != torch.float32 \
            or tuple(scale_a.shape) != a_shape or tuple(scale_b.shape) != b_shape:
        raise MatmulError(f"tile.grouped_matmul: block scales are float32 scale_a {a_shape} "
                          f"(one per row and 128-wide K block of A) and scale_b {b_shape} (one "
                          f"per 128 x 128 block of each group's B), got {scale_a.dtype} "
                          f"{tuple(scale_a.shape)} and {scale_b.dtype} {tuple(scale_b.shape)}")
    return scale_a.reshape(rows, k_blocks), scale_b.reshape(groups * n_blocks, k_blocks)


def held_rows(torch, a, offsets, valid):
    """A boolean mask, broadcastable against A (M x K, or G x capacity x K
    masked), of the rows some group holds: below offsets[-1], or group g's
    first valid[g]. The rows of C and of dA that the others leave out."""
    if valid is None:
        rows = torch.arange(a.shape[0], device=a.device)
        if offsets.shape[0] == 0:  # no groups: no rows
            return torch.zeros_like(rows, dtype=torch.bool).unsqueeze(-1)
        return (rows < offsets[-1]).unsqueeze(-1)
    rows = torch.arange(a.shape[1], device=a.device)
    return (rows.unsqueeze(0) < valid.unsqueeze(-1)).unsqueeze(-1)


def weight_grad(torch, a, grad, offsets, valid):
    """dB (G x K x N) of a 16-bit grouped product C = A B: dB[g] = A_g^T
    dC_g over group g's rows, one tile.matmul a group with A_g^T as the
    M-major view it is, zero for a group without rows. The groups' row
    counts are read on the host (one synchronisation: this derivative
    cannot be captured in a CUDA graph)."""
    from .matmul import matmul
    bounds = offsets if valid is None else valid
    out = a.new_zeros((bounds.shape[0], a.shape[-1], grad.shape[-1]))
    start = 0
    for g, end in enumerate(bounds.tolist()):
        if valid is None:
            x, dy, start = a[start:end], grad[start:end], end
        else:
            x, dy = a[g, :end], grad[g, :end]
        if x.shape[0]:
            matmul(x.t(), dy, out=out[g])
    return out
