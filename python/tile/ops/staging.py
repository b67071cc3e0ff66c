"""The copy that stages tile.matmul's A and B into rows TMA can address:
one generated elementwise kernel for one or two matrices, so a staged call
launches it once before its GEMM instead of a PyTorch copy per operand.

    kernel = stage_rows_kernel("bf16", 2)
    kernel.launch_on(device, (a, a_view, b, b_view), stage_rows_grid(pairs))

Each pair is a source with contiguous rows at any pitch (an odd K) and a
destination of its shape with contiguous rows (a view of the staging
buffer); both 16-bit. (Other strides are copied correctly but without
coalescing: tile.matmul copies an M-major A with PyTorch.) A thread copies
ELEMENTS consecutive elements of a row, one 2-byte load and store each (the
sources' rows are only 2-byte aligned), a whole piece's loads before its
stores; a 1-D grid of THREADS-thread CTAs covers the first matrix's row
pieces, then the second's.
"""
from dataclasses import dataclass
from typing import Sequence, Tuple

from ..core.operands import cdiv
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module, linear_ids

#: Threads of a CTA.
THREADS = 256
#: Consecutive elements of a row a thread copies.
ELEMENTS = 8


@dataclass(frozen=True)
class StageRowsConfig:
    """One kernel: its element type ("f16"/"bf16") and how many matrices it
    copies (1 or 2)."""
    element: str = "bf16"
    count: int = 2

    @property
    def name(self) -> str:
        return f"stage_rows{self.count}"

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"stage_rows element must be f16 or bf16, got {self.element}")
        if self.count not in (1, 2):
            raise ValueError(f"stage_rows copies 1 or 2 matrices, got {self.count}")


def _copy_piece(put, index: int, piece: str) -> None:
    """Lines copying piece `piece` (row piece / pieces, ELEMENTS columns from
    (piece mod pieces) x ELEMENTS) of pair `index`: a whole piece's loads
    issued together, then its stores; the row's last piece element by
    element within the row."""
    src, dst = f"%src{index}", f"%dst{index}"
    put(f"%row{index} = arith.divui {piece}, %pieces{index} : index")
    put(f"%slot{index} = arith.remui {piece}, %pieces{index} : index")
    put(f"%col{index} = arith.muli %slot{index}, %c_elements : index")
    put(f"%end{index} = arith.addi %col{index}, %c_elements : index")
    put(f"%whole{index} = arith.cmpi ule, %end{index}, %cols{index} : index")
    columns = [f"%col{index}_{j}" for j in range(ELEMENTS)]
    for j, column in enumerate(columns):
        put(f"{column} = arith.addi %col{index}, %c{j} : index")
    put(f"scf.if %whole{index} {{")
    for j, column in enumerate(columns):
        put(f"  %w{index}_{j} = memref.load {src}[%row{index}, {column}] : !src")
    for j, column in enumerate(columns):
        put(f"  memref.store %w{index}_{j}, {dst}[%row{index}, {column}] : !dst")
    put("} else {")
    for j, column in enumerate(columns):
        put(f"  %in{index}_{j} = arith.cmpi ult, {column}, %cols{index} : index")
        put(f"  scf.if %in{index}_{j} {{")
        put(f"    %v{index}_{j} = memref.load {src}[%row{index}, {column}] : !src")
        put(f"    memref.store %v{index}_{j}, {dst}[%row{index}, {column}] : !dst")
        put("  }")
    put("}")


def stage_rows_source(config: StageRowsConfig) -> str:
    """The module holding @stage_rows<count> for `config`."""
    config.validate()
    e = config.element
    body = []
    emit = body.append
    for i in range(config.count):
        emit(f"%rows{i} = memref.dim %src{i}, %c0 : !src")
        emit(f"%cols{i} = memref.dim %src{i}, %c1 : !src")
        emit(f"%pieces{i} = arith.ceildivui %cols{i}, %c_elements : index")
        emit(f"%units{i} = arith.muli %rows{i}, %pieces{i} : index")
    emit("%in_first = arith.cmpi ult, %gid, %units0 : index")
    emit("scf.if %in_first {")
    first = []
    _copy_piece(first.append, 0, "%gid")
    body.extend("  " + line for line in first)
    if config.count == 2:
        emit("} else {")
        emit("  %later = arith.subi %gid, %units0 : index")
        emit("  %in_second = arith.cmpi ult, %later, %units1 : index")
        emit("  scf.if %in_second {")
        second = []
        _copy_piece(second.append, 1, "%later")
        body.extend("    " + line for line in second)
        emit("  }")
    emit("}")
    matrices = "one matrix" if config.count == 1 else "two matrices"
    header = [f"// {config.name}: {matrices} of {e} of any strides copied into "
              f"rows TMA can address (tile.ops.staging),",
              f"// {ELEMENTS} elements of a row a thread, {THREADS} threads a CTA.",
              f"!src = memref<?x?x{e}, strided<[?, ?], offset: ?>>",
              f"!dst = memref<?x?x{e}, strided<[?, 1], offset: ?>>"]
    params = [p for i in range(config.count) for p in (f"%src{i}: !src", f"%dst{i}: !dst")]
    constants = index_constants(c0=0, c1=1, **{f"c{j}": j for j in range(2, ELEMENTS)},
                                c_elements=ELEMENTS, c_threads=THREADS)
    return kernel_module(header, config.name, params, THREADS,
                         constants + linear_ids() + body)


#: The kernels, keyed by StageRowsConfig.
STAGE_ROWS = KernelFamily("stage_rows", stage_rows_source)


def stage_rows_grid(pairs: Sequence[Tuple[object, object]]) -> Tuple[int, int, int]:
    """The grid that copies `pairs` ((source, destination) of equal shapes)."""
    pieces = sum(rows * cdiv(columns, ELEMENTS) for rows, columns in
                 (tuple(source.shape) for source, _ in pairs))
    return (max(1, cdiv(pieces, THREADS)), 1, 1)


def stage_rows_kernel(element: str, count: int):
    """The copy kernel of `count` matrices of `element`."""
    config = StageRowsConfig(element, count)
    return STAGE_ROWS.kernel(config, config.name)
