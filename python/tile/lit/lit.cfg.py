# -*- Python -*-
# The lit configuration of a kernel author's own tests, run by
# `python -m tile lit PATH...` (tile.lit_runner). The site configuration that
# tool writes sets the test_source_root, test_exec_root, llvm_tools_dir,
# tile_tools_dir, tile_kernels, tile_ptxas and tile_gpu_features values used
# here; the substitutions and features are those of the project's own suite
# (test/lit.cfg.py), so a test moves between the two unchanged.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "tile"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.local.cfg", "lit.site.cfg.py"]

# FileCheck, `| not`, `| count` and %python from LLVM's tools (and `not`,
# `count`, `split-file` at a line's start through PATH).
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# tile-opt, tile-translate and, where built, tile-run.
tools = ["tile-opt", "tile-translate"]
if os.path.exists(os.path.join(config.tile_tools_dir, "tile-run")):
    tools.append("tile-run")
    config.available_features.add("tile-run")
llvm_config.add_tool_substitutions(tools, [config.tile_tools_dir])

# The package's kernels (tile/kernels), e.g. %tile_kernels/gemm_sm90.mlir.
config.substitutions.append(("%tile_kernels", config.tile_kernels))

# ptxas: %ptxas, `ptxas` through PATH (also for format=bin), and the feature
# for `%if ptxas %{ ... %}`.
if config.tile_ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.tile_ptxas))
    llvm_config.with_environment("PATH", os.path.dirname(config.tile_ptxas),
                                 append_path=True)
else:
    lit_config.note("ptxas not found (set TILE_PTXAS or CUDA_HOME): "
                    "RUN lines guarded by %if ptxas are skipped")
    config.substitutions.append(("%ptxas", "false"))

# cuda-gpu (and two-gpus) where the CUDA driver reports GPUs.
config.available_features.update(config.tile_gpu_features)
