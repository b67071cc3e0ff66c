"""Fused attention from PyTorch on kernels/attention_sm90.mlir: one
persistent launch for all batches and heads.

    o = tile.attention(q, k, v)                 # softmax(q k^T / sqrt(D)) v
    o = tile.attention(q, k, v, causal=True)    # query i sees keys j <= i
    o = tile.attention(x.transpose(1, 2), ...)  # a (B, S, H, D) x, read in place

What torch.nn.functional.scaled_dot_product_attention(q, k, v,
is_causal=causal, scale=scale) computes (no mask tensor, no dropout): q (B, H,
Sq, D), k and v (B, H, Sk, D); out a contiguous (B, H, Sq, D) of their type.
float16 or bfloat16 (all three the same), f32 scores, softmax and
accumulation; `scale` (positive, finite) defaults to 1 / sqrt(D), D is 64 or 128. `causal` is
SDPA's is_causal, aligned at the top left whatever Sq and Sk: query i sees
keys j <= i (with Sq > Sk, the rows from Sk on see every key). Any sequence
lengths (TMA clips a head's last tiles); an empty q gives an empty out, Sk = 0
is an error. The operands need not be contiguous: the kernel's 4-D tensor
maps take their strides, so a (B, S, H, D) tensor's .transpose(1, 2) is read
as it is. TMA needs a unit innermost stride, the others multiples of 8
elements (16 bytes, T-TMA-9), and 16-byte aligned addresses (T-TMA-10). One
CTA per SM takes the (batch, head, query tile) work of the whole call, on the
current stream (or `stream`), without waiting; the GPU must be an sm_90
(H100, H200).
"""
import math
from typing import Optional, Tuple

from ..core import devices, streams
from ..core.caches import LruCache
from ..core.elements import BY_TORCH, dtype_name
from ..core.errors import MatmulError
from ..family import KernelFamily
from ..core.operands import TMA_ALIGNMENT, Operand, operand_of, require_cuda_tensors

#: The kernels @attention_d64 and @attention_d128; a variant is (element,).
#: 32-bit index arithmetic: the kernels' loop state takes half the
#: registers (their coordinates are TMA's 32-bit ones anyway).
ATTENTION = KernelFamily.from_package("attention_sm90.mlir", ("!e",),
                                      options={"index-bitwidth": 32})
#: Head dimensions the kernels are built for: @attention_d64, @attention_d128.
HEAD_DIMS = (64, 128)
#: Element types (PyTorch dtype names) of q, k, v and out.
ELEMENTS = ("float16", "bfloat16")


def check_attention(q: Operand, k: Operand, v: Operand, out: Optional[Operand],
                    device: devices.Device) -> Tuple[int, int, int, int, int]:
    """(B, H, Sq, Sk, D) of the attention of q, k and v into `out` (None: a
    new tensor), or MatmulError for what the kernel cannot take (plain
    shapes, strides and addresses: no PyTorch, no GPU)."""
    if q.dtype not in ELEMENTS or not q.dtype == k.dtype == v.dtype:
        raise MatmulError(f"tile.attention takes float16 or bfloat16 q, k and v (all the "
                          f"same), got q {q.dtype}, k {k.dtype} and v {v.dtype}")
    devices.require_hopper("tile.attention", device)
    for name, operand in (("q", q), ("k", k), ("v", v)):
        if len(operand.shape) != 4:
            raise MatmulError(f"tile.attention: {name} must be 4-D (batch, heads, sequence, "
                              f"head dim), got shape {tuple(operand.shape)}")
    batch, heads, sq, d = q.shape
    if tuple(k.shape) != tuple(v.shape):
        raise MatmulError(f"tile.attention: k and v must have the same shape, got k "
                          f"{tuple(k.shape)} and v {tuple(v.shape)}")
    if (k.shape[0], k.shape[1], k.shape[3]) != (batch, heads, d):
        raise MatmulError(f"tile.attention: k and v must be ({batch}, {heads}, Sk, {d}) for q "
                          f"of shape {tuple(q.shape)}, got {tuple(k.shape)}")
    if d not in HEAD_DIMS:
        raise MatmulError(f"tile.attention: head dim D = {d}; the kernels take D = 64 or 128")
    shape = (batch, heads, sq, d)
    if out is not None and (tuple(out.shape) != shape or out.dtype != q.dtype
                            or tuple(out.strides) != (heads * sq * d, sq * d, d, 1)):
        raise MatmulError(f"tile.attention: out must be a contiguous {q.dtype} tensor of shape "
                          f"{shape}, got {out.dtype} {tuple(out.shape)} with strides "
                          f"{tuple(out.strides)}")
    pitch = TMA_ALIGNMENT // BY_TORCH[q.dtype].bytes
    for name, operand in (("q", q), ("k", k), ("v", v)):
        strides = tuple(operand.strides)
        if strides[-1] != 1 or any(s % pitch for s in strides[:-1]):
            raise MatmulError(f"tile.attention: {name} has strides {strides}; TMA needs the "
                              f"innermost stride 1 and the others multiples of {pitch} "
                              "elements (16 bytes, T-TMA-9)")
    for name, operand in (("q", q), ("k", k), ("v", v), ("out", out)):
        if operand is not None and operand.address % TMA_ALIGNMENT:
            raise MatmulError(f"tile.attention: {name} starts at {operand.address:#x}; TMA "
                              "needs 16-byte aligned addresses (T-TMA-10)")
    sk = k.shape[2]
    if sk == 0 and batch * heads * sq:
        raise MatmulError("tile.attention: Sk = 0: no keys to attend to")
    return batch, heads, sq, sk, d


def attention_kernel(element: str, head_dim: int):
    """The kernel for "f16" or "bf16" elements and a head dim of HEAD_DIMS."""
    return ATTENTION.kernel((element,), f"attention_d{head_dim}")


#: check_attention's answers by shapes, strides, dtypes, alignment and device.
CHECKS = LruCache(256)


def attention(q, k, v, causal: bool = False, scale: Optional[float] = None, *, out=None,
              stream=None):
    """softmax(q k^T scale) v, as torch.nn.functional.scaled_dot_product_attention
    (q, k, v, is_causal=causal, scale=scale); into `out` when given. Returns
    at once: the kernel runs on `stream` (default: PyTorch's current one on
    the operands' device).
    See the module's documentation."""
    import torch
    index = require_cuda_tensors(torch, "tile.attention", q=q, k=k, v=v, out=out)
    tensors = tuple(t for t in (q, k, v, out) if t is not None)
    key = tuple((tuple(t.shape), t.stride(), t.dtype, t.data_ptr() % TMA_ALIGNMENT)
                for t in tensors) + (index,)
    device = devices.device(index)
    batch, heads, sq, sk, d = CHECKS.get(key, lambda: check_attention(
        *(operand_of(t) for t in (q, k, v)), None if out is None else operand_of(out), device))
    scale = 1 / math.sqrt(d) if scale is None else float(scale)
    if not (scale > 0 and math.isfinite(scale)):
        raise MatmulError(f"tile.attention: scale must be positive and finite (the kernel's "
                          f"softmax subtracts the maximum of the unscaled scores), got {scale}")
    if out is None:
        out = torch.empty((batch, heads, sq, d), device=q.device, dtype=q.dtype)
        if stream is not None:
            launch_stream = streams.torch_stream(torch, stream, index)
            if launch_stream != torch.cuda.current_stream(index):
                out.record_stream(launch_stream)  # allocated here, written there
    if out.numel() == 0:
        return out
    kernel = attention_kernel(BY_TORCH[dtype_name(q.dtype)].name, d)
    # The kernel's softmax takes exp2: the scores' scale comes times log2(e).
    kernel.launch_on(index, (q, k, v, out, batch, heads, sq, sk, scale * math.log2(math.e),
                             bool(causal)), (device.sms, 1, 1), stream)
    return out
