# -*- Python -*-
# lit configuration of the tile test suite.

import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
tools = ["tile-opt", "tile-translate"]
if config.tile_enable_cuda_runner:
    tools.append("tile-run")
    config.available_features.add("tile-run")
llvm_config.add_tool_substitutions(tools, tool_dirs)
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tile_src_root", config.tile_src_root))
config.substitutions.append(("%tile_obj_root", config.tile_obj_root))
# The build's op reference (docs/CMakeLists.txt), for test/Docs; the GPU
# machine's packed tools (scripts/device-test.sh) come without it.
if os.path.exists(os.path.join(config.tile_obj_root, "docs", "reference", "FILES")):
    config.available_features.add("tile-doc")
# PyTorch, for the GPU tests of the Python entry points (tile.attention).
import importlib.util
if importlib.util.find_spec("torch") is not None:
    config.available_features.add("torch")
# The Python package (kernel generators run by `%python -m tile...`).
llvm_config.with_environment(
    "PYTHONPATH", os.path.join(os.path.dirname(config.test_source_root), "python"),
    append_path=True)
# The product kernels: package data of the Python package (tile/kernels).
config.substitutions.append(
    ("%tile_kernels",
     os.path.join(os.path.dirname(config.test_source_root), "python", "tile", "kernels")))
# The GEMM examples with an f32 C: their `!out` alias becomes
# memref<?x?xf32>, the staged C tile f32 with 4-value (16-byte) rows per
# thread, and the host check reads C without widening it.
config.substitutions.append(
    ("%f32-out",
     "sed -e 's/^!out = memref<?x?x!e>/!out = memref<?x?xf32>/' "
     "-e 's/^!out_tile = memref<128x128x!e, 3>/!out_tile = memref<128x128xf32, 3>/' "
     "-e 's/^#out_values = #tile.layout<(1,8)>/#out_values = #tile.layout<(1,4)>/' "
     "-e 's/%gf = arith.extf %got : !e to f32/%gf = arith.addf %got, %zero : f32/'"))

# mlir-runner: host code lowered to LLVM and run on the CPU (e.g. the
# schedule ops' index arithmetic checked over many shapes).
runner = os.path.join(config.llvm_tools_dir, "mlir-runner")
runner_utils = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib",
                            "libmlir_c_runner_utils.so")
if os.path.exists(runner) and os.path.exists(runner_utils):
    config.available_features.add("mlir-runner")
    config.substitutions.append(("%mlir-runner", runner))
    config.substitutions.append(("%mlir_c_runner_utils", runner_utils))

# libdevice: where tile-to-ptx-pipeline finds it without any environment.
if os.path.exists("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"):
    config.available_features.add("libdevice")

# ptxas: configured by CMake (TILE_PTXAS), else $TILE_PTXAS, else PATH.
ptxas = config.tile_ptxas or os.environ.get("TILE_PTXAS") or shutil.which("ptxas")
if ptxas and os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    # gpu-module-to-binary{format=bin} finds ptxas through PATH.
    llvm_config.with_environment("PATH", os.path.dirname(ptxas), append_path=True)
else:
    lit_config.note("ptxas not found: RUN lines guarded by %if ptxas are skipped "
                    "(configure with -DTILE_PTXAS=... or set TILE_PTXAS)")
    config.substitutions.append(("%ptxas", "false"))


if not config.tile_enable_cuda_runner:
    lit_config.note("tile-run not built (no cuda.h): tile-run tests are UNSUPPORTED")
# cuda-gpu and two-gpus: the detection `python -m tile lit` uses for users'
# tests (one place: tile.lit_runner.gpu_features, from the checkout's python/).
sys.path.insert(0, os.path.join(config.tile_src_root, "python"))
from tile.lit_runner import gpu_features  # noqa: E402
config.available_features.update(gpu_features())
if "cuda-gpu" not in config.available_features:
    lit_config.note("no CUDA GPU/driver: Integration/GPU tests are UNSUPPORTED")
