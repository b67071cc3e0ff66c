"""tile: compile tile-dialect kernels with tile-opt's named pipelines and
launch them through libtile_runtime (ctypes), from any Python 3.9+.

    import tile
    module = tile.compile(open("examples/cp_async_copy.mlir").read(), chip="sm_90a")
    print(module.ptx)                                    # the kernels' PTX
    kernel = module.kernel("copy")                       # needs a GPU
    kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1))  # torch CUDA tensors,
                                                         # on their device's current stream
    tile.synchronize()                                   # waits, with a watchdog
    c = tile.matmul(a, b)                                # f16/bf16 GEMM on an H100/H200
    c = tile.matmul(a8, b8, scale_a=sa, scale_b=sb)      # FP8 (e4m3/e5m2), scaled
    c = tile.grouped_matmul(x, w.transpose(-2, -1), offs)  # grouped (MoE) GEMM
    o = tile.attention(q, k, v, causal=True)             # fused attention (SDPA)
    o = tile.attention_with_kvcache(q, k_cache, v_cache, cache_seqlens=lens)  # decode
    c = tile.matmul(x, w, transpose_b=True, bias=b, activation="gelu", residual=r)  # fused
    y = tile.gated_mlp(x, tile.interleave_gate_up(w_gate, w_up), w_down, residual=x)  # SwiGLU
    y, h = tile.rms_norm(x, weight, 1e-6, residual=r)    # h = x + r, y = RMSNorm(h) * weight
    tile.rope(q, k, cos, sin)                            # rotary embedding, in place
    @tile.autotune(configs=[tile.Config(stages=4), ...], key=["n"])  # tune a kernel

The layout: `tile.core` (what everything shares: errors, element types,
devices, operands, streams, caches), `tile.compiler`, `tile.builder` (IR
from Python), `tile.launch` and `tile.runtime` (kernels on any device),
`tile.family` (a kernel source's compiled variants), `tile.ops` (matmul,
scaled FP8, grouped, attention, RMSNorm, RoPE), `tile.kernels` (their sources, package
data), `tile.library` (the ops as PyTorch operators: torch.compile and
autograd), `tile.autotuner`, `tile.testing`. `python -m tile`
says where the tools, the runtime and the kernels were found; `python -m
tile lit PATH...` runs lit on your own tests (`tile.lit_runner`).

No extension module: the package drives the tools (found in $TILE_BIN_DIR,
the build tree or PATH) and the runtime library (ctypes), so one install
serves every Python version.
"""
import sys as _sys

from .autotuner import AutotuneError, Autotuner, Config, autotune
from .compiler import CompiledModule, Diagnostic, compile
from .core.errors import (CompileError, MatmulError, OperandError, TileError,
                          TileRuntimeError)
from .ops.attention import attention, attention_varlen
from .ops.kvcache import attention_with_kvcache
from .ops.grouped import grouped_matmul
from .ops.epilogue import interleave_gate_up
from .ops.matmul import matmul
from .ops.mlp import gated_mlp
from .ops.rms_norm import rms_norm
from .ops.rope import rope
from .runtime import synchronize
from .toolchain import Toolchain, find_toolchain
from . import library

_torch = _sys.modules.get("torch")
if hasattr(getattr(_torch, "library", None), "custom_op"):
    library.register(_torch)  # imported after torch: its operators now (tile.library)

__all__ = ["compile", "CompiledModule", "CompileError", "Diagnostic", "TileError",
           "TileRuntimeError", "OperandError", "MatmulError", "synchronize", "matmul",
           "gated_mlp", "interleave_gate_up", "grouped_matmul", "attention",
           "attention_varlen", "attention_with_kvcache", "rms_norm", "rope", "Toolchain",
           "find_toolchain", "autotune", "Autotuner", "AutotuneError", "Config"]
