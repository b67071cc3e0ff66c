"""The backward of tile.attention (what autograd runs; tile.library): the
forward variant that saves each query row's log-sum-exp, the fused kernel
of kernels/attention_bwd_fused_sm90.mlir and, deterministic, the two
kernels of kernels/attention_bwd_sm90.mlir.

    o, nlse = forward(torch, q, k, v, kind, scale, enable_gqa)
    dq, dk, dv = backward(torch, grad_o, q, k, v, o, nlse, kind, scale)

P is recomputed from the saved nlse = -(c m + log2 l) (c = scale
log2(e)); the rows' -rowsum(dO * O) come from one kernel reading dO and O
once (attention_backward_rows: both in rows of whole 128-query tiles). Then
FlashAttention-3's fused kernel (attention_bwd_fused_sm90.mlir) streams the
query tiles of a KV head's group past each 128-key block for dK and dV
(GQA: summed over the group) and adds each tile's share of dQ into a
float32 dQ with TMA reductions, whose order varies run to run. The
deterministic mode (`deterministic=True`, or PyTorch's
`torch.use_deterministic_algorithms(True)`) runs FlashAttention-2's two
kernels instead (attention_bwd_sm90.mlir): the same dK/dV and one more
kernel streaming the key blocks past each 128-row query tile for dQ, no
atomics. Each grid starts the tiles with the most work first (causal).
q, k, v, o and dO are (B, H or Hkv, S, D) with D = 64 or 128, f16 or
bf16, any strides with a contiguous D (4-D tensor maps); causal masks
top-left or bottom-right, no window or softcap.

Packed sequences (tile.attention_varlen, flash_attn_varlen_func's layout):

    o, nlse = forward_varlen(torch, q, k, v, cu_q, cu_k, max_q, kind, scale, enable_gqa)
    dq, dk, dv = backward_varlen(torch, grad_o, q, k, v, o, nlse, cu_q, cu_k,
                                 max_q, max_k, kind, scale)

run the same kernels with each sequence's offsets and lengths read on the
GPU: the forward's nlse (H, total_q) as flash_attn_varlen_func's lse,
nlse and ndelta in FlashAttention's varlen rows (H rows of total_q + 128 B
slots at most, each sequence's whole row tiles: attention_backward_rows),
the fused kernel's grid max_k's key blocks a KV head of each
sequence, dK and dV added by TMA reductions into zeroed gradients (a
box's rows past a sequence add exact zeros to the next one's). Rows of dq,
dk and dv outside every sequence are 0. The deterministic mode's two
kernels take them alike (dQ's grid: a CTA per head and query tile of the
varlen layout).
"""
import math
from typing import Callable, Dict, Optional, Tuple

from ..compiler import redefine_aliases
from ..core import devices
from ..core.caches import placeholders
from ..core.elements import BY_TORCH, FLOAT16_TYPES, dtype_name
from ..core.errors import MatmulError
from ..core.operands import cdiv, operand_of, require_cuda_tensors
from ..family import KernelFamily
from ..toolchain import read_kernel
from .attention import (HALVINGS_ALIAS, HEAD_DIMS, PACKED_SWITCH, QUERY_TILE,
                        attention_kernel, check_attention, check_diagonal, check_scale,
                        check_varlen, dense_arguments, packed_batch, paired_units,
                        tma_layout_problem, varlen_arguments, window_edges)
from .attention_backward_rows import (ATTENTION_BACKWARD_ROWS, ROW_TILE, RowsConfig, packed_pitch,
                                      row_pitch, grid as rows_grid)

#: Keys per CTA of the fused and dK/dV kernels (two consumer warpgroups of
#: 64).
KEY_BLOCK = 128
#: The fused kernel's queries a step (its query tile T) at each D:
#: FlashAttention-3's, 64 at D = 128 and 128 at D = 64 (the dK/dV kernel:
#: 64).
FUSED_QUERY_TILE = {128: 64, 64: 128}


def _dkdv_aliases(head_dim: int, qo_stages: int, query_tile: int = 64) -> Dict[str, str]:
    """The aliases the dK/dV and fused kernels share for D = `head_dim`, a
    Q/dO ring of `qo_stages` stages and steps of `query_tile` queries."""
    chunks = head_dim // 64
    return {"!grad": f"vector<{head_dim // 2}xf32>",
            "!tile128": f"memref<1x{chunks}x128x64x!e, 3>",
            "!qo_ring": f"memref<{qo_stages}x{chunks}x{query_tile}x64x!e, 3>",
            "!staging": f"memref<2x{chunks}x64x64x!e, 3>",
            "#scores_t": f"array<i64: 64, {query_tile}, {head_dim}>",
            "#dkv_mma": f"array<i64: 64, {head_dim}, {query_tile}>",
            "#grad_rows": f"array<i64: 64, {head_dim}>",
            "#chunks": f"{chunks} : i32", "#qo_stages": f"{qo_stages} : index",
            "!qobars": f"!tile.mbarrier<count = {qo_stages}>",
            "!rows_ring": f"memref<{qo_stages}x{query_tile}xf32, 3>"}


def head_dim_aliases(head_dim: int) -> Dict[str, str]:
    """The backward kernels' head-dimension aliases for D = `head_dim` (as
    written: 128): 64 KB of K/V stages (two of D = 128, four of 64) and 96
    KB of Q/dO stages (three, six)."""
    chunks = head_dim // 64
    kv_stages = 256 // head_dim
    return {**_dkdv_aliases(head_dim, 384 // head_dim),
            "!ring128": f"memref<{kv_stages}x{chunks}x128x64x!e, 3>",
            "#scores": f"array<i64: 64, 128, {head_dim}>",
            "#dq_mma": f"array<i64: 64, {head_dim}, 128>",
            "#head_dim": f"{head_dim} : index", "#kv_stages": f"{kv_stages} : index",
            "!kvbars": f"!tile.mbarrier<count = {kv_stages}>"}


def _variant_source(file: str, aliases: Callable[[int], Dict[str, str]],
                    variant: Tuple) -> str:
    """The kernels of `file` for (element, D[, packed]): the element and
    `aliases(D)` redefined, the kernels' names ending in _d{D}; the
    packed-sequence switch folded to `packed` (default False)."""
    element, head_dim, *packed = variant
    if head_dim not in HEAD_DIMS:
        raise ValueError(f"attention backward kernels take D = 64 or 128, got {head_dim}")
    text = redefine_aliases(read_kernel(file), {"!e": element, **aliases(head_dim)})
    assert PACKED_SWITCH in text, f"{file}: the switch '{PACKED_SWITCH}' moved"
    fold = "true" if packed and packed[0] else "false"
    text = text.replace(PACKED_SWITCH, f"%packed = arith.constant {fold}")
    return text.replace("_d128(", f"_d{head_dim}(")


def backward_source(variant: Tuple) -> str:
    """@attention_bwd_dq_d{D} and @attention_bwd_dkdv_d{D} for (element,
    D[, packed])."""
    return _variant_source("attention_bwd_sm90.mlir",
                           lambda d: {**head_dim_aliases(d), **HALVINGS_ALIAS}, variant)


#: The backward kernels; a variant is (element, D) or (element, D, True):
#: packed sequences. 32-bit index arithmetic, as the forward's.
ATTENTION_BACKWARD = KernelFamily("attention_bwd_sm90.mlir", backward_source,
                                  options={"index-bitwidth": 32})

#: The fused kernel's Q/dO ring depth: two stages (64 KB at both D: 64
#: queries of D = 128, 128 of D = 64; its dS^T stages and dQ staging take
#: the rest of shared memory).
FUSED_QO_STAGES = 2


def fused_aliases(head_dim: int) -> Dict[str, str]:
    """The fused kernel's aliases for D = `head_dim` (as written: 128) and
    its query tile T there (FUSED_QUERY_TILE). dQ's 64 x D part of 64 query
    rows a warpgroup at T = 128 (the warpgroup's rows), 64 x D / 2 at T =
    64 (its half of the columns), reduced in 32-column boxes through two
    staging buffers."""
    tile = FUSED_QUERY_TILE[head_dim]
    split_rows = tile == 128
    width = head_dim if split_rows else head_dim // 2
    scores = f"vector<{tile // 2}x"
    return {**_dkdv_aliases(head_dim, FUSED_QO_STAGES, tile),
            "#query_tile": f"{tile} : index",
            "!dqo": f"!tile.tma_desc<memref<?x?x?x?x!e>, box = [1, 1, {tile}, 64], "
                    "swizzle = b128>",
            "!scores": scores + "f32>", "!scores_i": scores + "i32>",
            "!scores_b": scores + "i1>", "!scores_e": scores + "!e>",
            "#scores_tile": f"array<i64: 64, {tile}>",
            "#rows_bytes": f"{4 * tile} : i32",
            "!rows_ring": f"memref<{FUSED_QO_STAGES}x128xf32, 3>",
            "!ds_ring": f"memref<2x{tile // 64}x128x64x!e, 3>",
            "!dq_part": f"vector<{width // 2}xf32>",
            "!dq_staging": f"memref<2x{width // 32}x64x32xf32, 3>",
            "#dq_mma": f"array<i64: 64, {width}, 128>",
            "#dq_rows": f"array<i64: 64, {width}>",
            "#dq_cols": f"{0 if split_rows else width} : index",
            "#dq_row_step": f"{64 if split_rows else 0} : index"}


def fused_band(kv_rows: int, key_blocks: int, sms: int) -> int:
    """The KV heads a band of the fused kernel's grid takes key block by key
    block (the last band takes what is left of the `kv_rows` = B Hkv): about
    one wave of CTAs, SMs / key blocks, at least 1. Measured on an H100
    (bench/NOTES.md): at 4k keys (32 blocks) four heads a band ran up to 8%
    faster than one, at 16k (128 blocks) one head was fastest."""
    return max(1, min(kv_rows, round(sms / key_blocks)))


def fused_source(variant: Tuple) -> str:
    """@attention_bwd_fused_d{D} for (element, D[, packed])."""
    return _variant_source("attention_bwd_fused_sm90.mlir", fused_aliases, variant)


#: The fused kernel (dK, dV, and dQ by TMA reductions); a variant is
#: (element, D) or (element, D, True): packed sequences.
ATTENTION_BACKWARD_FUSED = KernelFamily("attention_bwd_fused_sm90.mlir", fused_source,
                                        options={"index-bitwidth": 32})

WHAT = "tile.attention's backward"


def forward(torch, q, k, v, kind: Optional[str], scale: Optional[float],
            enable_gqa: bool) -> tuple:
    """tile.attention's output and nlse ((B H Sq,) float32: each query
    row's -(c m + log2 l), -inf for a row that sees no key) from the
    prefill kernel's variant that saves them (at every Sq: the split-KV
    decode kernels keep no row sums)."""
    index = require_cuda_tensors(torch, WHAT, q=q, k=k, v=v)
    device = devices.device(index)
    batch, heads, kv_heads, sq, sk, d = check_attention(
        *(operand_of(t) for t in (q, k, v)), None, device, bool(enable_gqa))
    scale = check_scale(scale, d)
    check_diagonal(kind, sq, sk)
    out = q.new_empty((batch, heads, sq, d))
    nlse = torch.empty(batch * heads * sq, device=q.device, dtype=torch.float32)
    if out.numel() == 0:
        return out, nlse
    kernel = attention_kernel(BY_TORCH[dtype_name(q.dtype)].name, d, lse=True)
    kernel.launch_on(
        index, dense_arguments(torch, q, k, v, out, (batch, heads, kv_heads, sq, sk),
                               window_edges(kind, (-1, -1)), scale, (0.0, 1.0), kind,
                               paired_units(kind, batch * heads, sq, device.sms), nlse),
        (device.sms, 1, 1))
    return out, nlse


def _tma_ready(torch, x):
    """x, or a contiguous copy where a TMA map cannot take it (a gradient
    may be an expanded or permuted view: zero strides, or the rules of
    tma_layout_problem)."""
    if min(x.stride()[:-1], default=1) > 0 and tma_layout_problem("dO", operand_of(x)) is None:
        return x
    return x.contiguous()


def backward(torch, grad_o, q, k, v, out, nlse, kind: Optional[str],
             scale: Optional[float], deterministic: Optional[bool] = None) -> tuple:
    """(dq, dk, dv) of tile.attention(q, k, v) = out for the loss gradient
    grad_o; nlse from forward. `deterministic` (default: whether PyTorch's
    deterministic algorithms are on) takes the two-kernel path, whose dQ has
    the same bits run to run."""
    if deterministic is None:
        deterministic = torch.are_deterministic_algorithms_enabled()
    index = require_cuda_tensors(torch, WHAT, grad_o=grad_o, q=q, k=k, v=v, out=out, nlse=nlse)
    batch, heads, sq, d = q.shape
    kv_heads, sk = k.shape[1], k.shape[2]
    if dtype_name(q.dtype) not in FLOAT16_TYPES:
        raise MatmulError(f"{WHAT}: f16 or bf16, got {q.dtype}")
    scale = check_scale(scale, d)
    grad_o = _tma_ready(torch, grad_o.to(q.dtype))
    out = _tma_ready(torch, out)
    dq = torch.empty((batch, heads, sq, d), device=q.device, dtype=q.dtype)
    dk = torch.empty((batch, kv_heads, sk, d), device=q.device, dtype=q.dtype)
    dv = torch.empty_like(dk)
    if batch * heads * sq == 0 or sk == 0:
        return dq.zero_(), dk.zero_(), dv.zero_()
    element = BY_TORCH[dtype_name(q.dtype)].name
    # Each row's nlse and -rowsum(dO * O) (f32) in rows of whole row tiles,
    # -inf and 0 past Sq: the kernels copy a query tile's values into shared
    # memory (bulk copies of 256 or 512 bytes from 16-byte aligned
    # addresses); one kernel reads dO and O once (attention_backward_rows).
    pitch = row_pitch(sq)
    nlse_rows, ndelta_rows = (torch.empty(batch * heads * pitch, device=q.device,
                                          dtype=torch.float32) for _ in range(2))
    cu = placeholders(torch, q.device, torch.int32)[1]
    _launch_rows(torch, index, element, grad_o, out, nlse, nlse_rows, ndelta_rows,
                 (batch, heads, sq, pitch), False, cu)
    group = heads // kv_heads
    scalars = _scalars((heads, group, sq, sk, pitch), scale, kind)
    variant = (element, d)
    if not deterministic:
        # dQ's float32 sum, zero before the reductions.
        dq_acc = torch.zeros((batch, heads, sq, d), device=q.device, dtype=torch.float32)
        _launch_fused(index, variant, (q, k, v, grad_o, dk, dv, dq_acc, nlse_rows, ndelta_rows)
                      + scalars, (False, cu, cu, 0, 0), batch * kv_heads, sk)
        return dq.copy_(dq_acc), dk, dv
    _launch_deterministic(index, variant, (q, k, v, grad_o), (dq, dk, dv),
                          (nlse_rows, ndelta_rows) + scalars, (False, cu, cu, 0, 0),
                          (batch, heads, kv_heads, sq, sk))
    return dq, dk, dv


def _scalars(shape: Tuple[int, int, int, int, int], scale: float, kind: Optional[str]) -> tuple:
    """The backward kernels' scalars after their tensors: `shape` (H, the
    group, Sq, Sk, the rows' pitch), the scale times log2(e) and as is, and
    the causal flags."""
    return shape + (scale * math.log2(math.e), scale, kind is not None, kind == "bottom_right")


def _launch_rows(torch, index, element: str, grad_o, out, nlse, nlse_rows, ndelta_rows,
                 shape: Tuple[int, int, int, int], varlen: bool, cu_q) -> None:
    """attention_backward_rows's kernel: nlse and ndelta into rows of whole
    row tiles for `shape` (B, H, Sq or the packed sequences' length bound,
    pitch); dO and O 4-D. The slots: B H pitch, packed H pitch."""
    batch, heads, sq, pitch = shape
    rows = RowsConfig(element, grad_o.shape[-1])
    ATTENTION_BACKWARD_ROWS.kernel(rows, "attention_bwd_rows").launch_on(
        index, (grad_o, out, nlse, nlse_rows, ndelta_rows, pitch, batch, sq, varlen, cu_q),
        rows_grid(rows, (1 if varlen else batch) * heads * pitch))


def _launch_fused(index, variant: Tuple, arguments: tuple, sequence: tuple,
                  kv_rows: int, sk: int) -> None:
    """The fused kernel over the key blocks of Sk (or the longest packed
    sequence's keys) of `kv_rows` (B Hkv) KV heads, in bands of KV heads
    key block by key block: the CTAs that run together reduce into a few
    heads' dQ rows, which stay in L2. `sequence`: the packed sequences'
    parameters (varlen, cu_q, cu_k, total_q, total_k)."""
    blocks = cdiv(sk, KEY_BLOCK)
    band = fused_band(kv_rows, blocks, devices.device(index).sms)
    ATTENTION_BACKWARD_FUSED.kernel(variant, f"attention_bwd_fused_d{variant[1]}").launch_on(
        index, arguments + (band,) + sequence, (blocks * kv_rows, 1, 1))


def _launch_deterministic(index, variant: Tuple, inputs: tuple, grads: tuple,
                          rows_and_scalars: tuple, sequence: tuple,
                          shape: Tuple[int, int, int, int, int],
                          packed_tiles: Optional[int] = None) -> None:
    """The deterministic mode's two kernels: dQ with heads along x and
    query tiles along y, dK/dV with KV heads along x and key blocks along y
    (the tiles with the most work, causal, start first). `inputs` (q, k, v,
    dO) and `grads` (dq, dk, dv) as tensor maps; `sequence` the packed
    sequences' (varlen, cu_q, cu_k, total_q, total_k); `shape` (B, H, Hkv,
    Sq, Sk), the longest sequence's for packed ones, whose dQ grid is the
    heads x `packed_tiles`, the queries' row tiles (packed_pitch /
    ROW_TILE; the kernel places each CTA)."""
    batch, heads, kv_heads, sq, sk = shape
    d = variant[1]
    dq, dk, dv = grads
    dq_grid = ((heads, packed_tiles, 1) if packed_tiles is not None
               else (batch * heads, cdiv(sq, QUERY_TILE), 1))
    ATTENTION_BACKWARD.kernel(variant, f"attention_bwd_dq_d{d}").launch_on(
        index, inputs + (dq,) + rows_and_scalars + sequence, dq_grid)
    ATTENTION_BACKWARD.kernel(variant, f"attention_bwd_dkdv_d{d}").launch_on(
        index, inputs + (dk, dv) + rows_and_scalars + sequence,
        (batch * kv_heads, cdiv(sk, KEY_BLOCK), 1))


def _check_rows(what: str, heads: int, pitch: int) -> None:
    """MatmulError where the packed sequences' H pitch slots of nlse and
    ndelta (packed_pitch) pass the kernels' 32-bit offsets."""
    if heads * pitch >= 2 ** 31:
        raise MatmulError(f"{what}: {heads} heads x {pitch} slots (the packed queries and "
                          f"{ROW_TILE} a sequence) of row statistics pass the kernels' 32-bit "
                          "offsets (2^31): split the batch")


def forward_varlen(torch, q, k, v, cu_q, cu_k, max_q: int, kind: Optional[str],
                   scale: Optional[float], enable_gqa: bool) -> tuple:
    """tile.attention_varlen's output (total_q, H, D) and nlse ((H,
    total_q) float32, flash_attn_varlen_func's lse layout: sequence b's
    query i of head h at h total_q + cu_q[b] + i; rows outside every
    sequence unwritten) from the prefill kernel's variant that saves them."""
    what = "tile.attention_varlen"
    index = require_cuda_tensors(torch, what, q=q, k=k, v=v, cu_seqlens_q=cu_q,
                                 cu_seqlens_k=cu_k)
    device = devices.device(index)
    batch, heads, kv_heads, d = check_varlen(
        *(operand_of(t) for t in (q, k, v, cu_q, cu_k)), device, bool(enable_gqa))
    scale = check_scale(scale, d)
    if max_q < 0:
        raise MatmulError(f"{what}: max_seqlen_q must be >= 0, got {max_q}")
    out = q.new_empty((q.shape[0], heads, d))
    nlse = torch.empty((heads, q.shape[0]), device=q.device, dtype=torch.float32)
    if batch == 0 or max_q == 0 or out.numel() == 0:
        return out, nlse
    kernel = attention_kernel(BY_TORCH[dtype_name(q.dtype)].name, d, lse=True, packed=True)
    kernel.launch_on(index, varlen_arguments(torch, q, k, v, out, cu_q, cu_k,
                                             (batch, heads, kv_heads),
                                             window_edges(kind, (-1, -1)), scale, (0.0, 1.0),
                                             kind, nlse.view(-1)), (device.sms, 1, 1))
    return out, nlse


def backward_varlen(torch, grad_o, q, k, v, out, nlse, cu_q, cu_k, max_q: int,
                    max_k: Optional[int], kind: Optional[str], scale: Optional[float],
                    deterministic: Optional[bool] = None) -> tuple:
    """(dq, dk, dv) of tile.attention_varlen(q, k, v, ...) = out for the
    loss gradient grad_o (total_q, H, D); nlse from forward_varlen.
    `max_k` must bound every sequence's keys (None: read from cu_k on the
    host, one synchronisation)."""
    what = "tile.attention_varlen's backward"
    if deterministic is None:
        deterministic = torch.are_deterministic_algorithms_enabled()
    index = require_cuda_tensors(torch, what, grad_o=grad_o, q=q, k=k, v=v, out=out, nlse=nlse,
                                 cu_seqlens_q=cu_q, cu_seqlens_k=cu_k)
    if dtype_name(q.dtype) not in FLOAT16_TYPES:
        raise MatmulError(f"{what}: f16 or bf16, got {q.dtype}")
    total_q, heads, d = q.shape
    total_k, kv_heads = k.shape[:2]
    batch = cu_q.shape[0] - 1
    scale = check_scale(scale, d)
    sq = row_pitch(max_q)
    pitch = packed_pitch(total_q, max(batch, 0))
    _check_rows(what, heads, pitch)
    if max_k is None:
        max_k = int((cu_k[1:] - cu_k[:-1]).max()) if batch > 0 else 0
    # dQ's float32 sum (the fused kernel's reductions) or dQ itself; every
    # gradient zero first: the kernels add into them.
    dq_acc = torch.zeros((total_q, heads, d), device=q.device,
                         dtype=q.dtype if deterministic else torch.float32)
    dk = torch.zeros((total_k, kv_heads, d), device=q.device, dtype=q.dtype)
    dv = torch.zeros_like(dk)
    # No sequence has more keys than are packed.
    max_k = min(max_k, total_k)
    if batch <= 0 or sq == 0 or max_k <= 0 or total_q * heads == 0:
        return dq_acc.to(q.dtype), dk, dv
    element = BY_TORCH[dtype_name(q.dtype)].name
    grad_o = grad_o.to(q.dtype).contiguous()
    out = out.contiguous()
    nlse_rows, ndelta_rows = (torch.empty(heads * pitch, device=q.device,
                                          dtype=torch.float32) for _ in range(2))
    inputs = tuple(packed_batch(t) for t in (q, k, v, grad_o))
    grads = tuple(packed_batch(t) for t in (dq_acc, dk, dv))  # dq, dk, dv
    _launch_rows(torch, index, element, inputs[3], packed_batch(out), nlse.reshape(-1),
                 nlse_rows, ndelta_rows, (batch, heads, sq, pitch), True, cu_q)
    scalars = _scalars((heads, heads // kv_heads, sq, max_k, pitch), scale, kind)
    sequence = (True, cu_q, cu_k, total_q, total_k)
    if deterministic:
        _launch_deterministic(index, (element, d, True), inputs, grads,
                              (nlse_rows, ndelta_rows) + scalars, sequence,
                              (batch, heads, kv_heads, sq, max_k), pitch // ROW_TILE)
        return dq_acc, dk, dv
    _launch_fused(index, (element, d, True),
                  inputs + (grads[1], grads[2], grads[0], nlse_rows, ndelta_rows) + scalars,
                  sequence, batch * kv_heads, max_k)
    return dq_acc.to(q.dtype), dk, dv


__all__ = ["forward", "backward", "forward_varlen", "backward_varlen", "row_pitch", "packed_pitch",
           "ATTENTION_BACKWARD", "ATTENTION_BACKWARD_FUSED", "head_dim_aliases", "fused_aliases"]
