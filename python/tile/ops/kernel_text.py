"""The text around a generated kernel's body: the ops that write their
kernels from Python (tile.ops.rms_norm, rope, gated_activation, ...) wrap
their lines in one module of one `gpu.func` of a known block size."""
from typing import List, Sequence

#: The body's indentation inside the kernel.
INDENT = "      "


def kernel_module(header: Sequence[str], name: str, params: Sequence[str], threads: int,
                  body: Sequence[str]) -> str:
    """A module holding kernel @name(params) of `threads` threads a block,
    whose body is `body` (lines, indented here) and a gpu.return, after the
    `header` lines (comments, type aliases). The body starts with
    tile.grid_dependency_wait: the kernel is launched as a programmatic
    dependent of the kernel before it and touches memory only after it."""
    lines = list(header) + [
        "module attributes {gpu.container_module} {",
        "  gpu.module @kernels {",
        f"    gpu.func @{name}({', '.join(params)}) kernel",
        f"        attributes {{known_block_size = array<i32: {threads}, 1, 1>}} {{",
        INDENT + "tile.grid_dependency_wait"]
    lines += [INDENT + line for line in body]
    lines += [INDENT + "gpu.return", "    }", "  }", "}"]
    return "\n".join(lines) + "\n"


def linear_ids() -> List[str]:
    """The lines that number the threads of a 1-D grid: %tid, %bid and
    %gid = %bid x %c_threads + %tid (%c_threads defined before them)."""
    return ["%tid = gpu.thread_id x", "%bid = gpu.block_id x",
            "%first = arith.muli %bid, %c_threads : index",
            "%gid = arith.addi %first, %tid : index"]


def index_constants(**values: int) -> List[str]:
    """`%name = arith.constant value : index` for each keyword, in order."""
    return [f"%{name} = arith.constant {value} : index" for name, value in values.items()]
