"""The exceptions of the tile package."""
from typing import List


class TileError(Exception):
    """The base of every error tile raises."""


class CompileError(TileError):
    """tile-opt or tile-translate rejected the input. `diagnostics` holds the
    errors (tile.compiler.Diagnostic, with their notes), `command` the command
    line that reproduces it, `input` the IR file it ran on."""

    def __init__(self, message: str, diagnostics: List[object], command: str, input):
        super().__init__(message)
        self.diagnostics = diagnostics
        self.command = command
        self.input = input


class TileRuntimeError(TileError, RuntimeError):
    """libtile_runtime reported a failure (CUDA error, bad launch, bad tensor
    map, a watchdog timeout)."""


class OperandError(TileError, ValueError):
    """Operands (or a device) an op cannot take, and why: the message names
    the rule and the values."""


#: The name tile.matmul's errors had first; the same class.
MatmulError = OperandError
