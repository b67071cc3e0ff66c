"""tile: compile tile-dialect kernels with tile-opt's named pipelines and
launch them through libtile_runtime (ctypes), from any Python 3.9+.

    import tile
    module = tile.compile(open("examples/cp_async_copy.mlir").read(), chip="sm_90a")
    print(module.ptx)                                    # the kernels' PTX
    kernel = module.kernel("copy")                       # needs a GPU
    kernel(src, dst, grid=(4, 1, 1), block=(128, 1, 1))  # torch CUDA tensors,
                                                         # on the current stream
    tile.synchronize()                                   # waits, with a watchdog
    c = tile.matmul(a, b)                                # f16/bf16 GEMM on an H100/H200
    c = tile.matmul(a8, b8, scale_a=sa, scale_b=sb)      # FP8 (e4m3/e5m2), scaled
    c = tile.grouped_matmul(x, w.transpose(-2, -1), offs)  # grouped (MoE) GEMM
    o = tile.attention(q, k, v, causal=True)             # fused attention (SDPA)
    @tile.autotune(configs=[tile.Config(stages=4), ...], key=["n"])  # tune a kernel

No extension module: the package drives the tools (found in $TILE_BIN_DIR,
the build tree or PATH) and the runtime library (ctypes), so one install
serves every Python version.
"""
from .autotune import AutotuneError, Autotuner, Config, autotune
from .compiler import CompiledModule, CompileError, Diagnostic, compile
from .launch import TileRuntimeError, synchronize
from .attention import attention
from .grouped import grouped_matmul
from .matmul import MatmulError, matmul
from .tools import Toolchain, find_toolchain

__all__ = ["compile", "CompiledModule", "CompileError", "Diagnostic",
           "TileRuntimeError", "synchronize", "matmul", "grouped_matmul", "attention",
           "MatmulError", "Toolchain", "find_toolchain", "autotune", "Autotuner",
           "AutotuneError", "Config"]
