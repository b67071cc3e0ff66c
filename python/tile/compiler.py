"""tile.compile: tile IR -> lowered module, PTX and kernel manifest through
tile-opt's named pipelines, cached on disk, failures as CompileError with the
diagnostics."""
import hashlib
import json
import os
import re
import shlex
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Union

from .core.errors import CompileError
from .launch import Kernel
from .toolchain import Toolchain, cache_root, find_toolchain

_DIAGNOSTIC = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<column>\d+): "
    r"(?P<severity>error|warning|note|remark): (?P<message>.*)$")


@dataclass
class Diagnostic:
    """One compiler diagnostic, located in the input IR."""

    file: str
    line: int
    column: int
    severity: str
    message: str
    notes: List["Diagnostic"] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"


def parse_diagnostics(text: str) -> List[Diagnostic]:
    """Diagnostics in MLIR's `file:line:col: severity: message` form; notes
    attach to the diagnostic before them."""
    result: List[Diagnostic] = []
    for line in text.splitlines():
        match = _DIAGNOSTIC.match(line)
        if not match:
            continue
        diagnostic = Diagnostic(match["file"], int(match["line"]),
                                int(match["column"]), match["severity"],
                                match["message"])
        if diagnostic.severity == "note" and result:
            result[-1].notes.append(diagnostic)
        else:
            result.append(diagnostic)
    return result


@dataclass
class CompiledModule:
    """A compiled module: the lowered MLIR (host code and gpu.binary), the
    kernels' PTX, their manifest (`tile-translate --kernel-manifest`: each
    kernel's parameters and launch shapes), and where they are cached."""

    source: str
    lowered: str
    ptx: str
    manifest: dict
    directory: Path
    command: str

    @property
    def kernels(self) -> List[str]:
        """The kernels' names."""
        return sorted(self.manifest["kernels"])

    def kernel(self, name: str, runtime=None):
        """The kernel `name`, ready to launch (needs a CUDA GPU; it loads on
        each device it runs on, see tile.launch)."""
        return Kernel(self, name, runtime)


def redefine_aliases(ir: str, aliases: Dict[str, str]) -> str:
    """`ir` with each type alias of `aliases` ("!e" -> "f16") redefined: the
    first line that starts with "!e =" becomes "!e = f16" (how the examples'
    element types are chosen)."""
    for alias, value in aliases.items():
        default = next((line for line in ir.splitlines() if line.startswith(alias + " =")),
                       None)
        if default is None:
            raise ValueError(f"the IR defines no type alias {alias} to redefine")
        ir = ir.replace(default, f"{alias} = {value}", 1)
    return ir


def _pipeline_argument(pipeline: str, options: Dict[str, object]) -> str:
    if not options:
        return f"--{pipeline}"
    text = " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                    for k, v in sorted(options.items()))
    return f"--{pipeline}={text}"


def compile(ir: Union[str, os.PathLike], chip: str = "sm_90a",
            pipeline: str = "tile-to-ptx-pipeline",
            options: Optional[Dict[str, object]] = None,
            cache: bool = True, toolchain: Optional[Toolchain] = None) -> CompiledModule:
    """Lowers `ir` (IR text, or a path to a .mlir file) with tile-opt's
    `pipeline` for `chip` (plus pipeline `options`, e.g. {"opt-level": 2})
    and extracts the kernels' PTX with tile-translate. The result is cached
    under $TILE_CACHE_DIR (default ~/.cache/tile), keyed by the IR, the
    pipeline, its options and the tools (version, size, modification
    time); every failure raises
    CompileError with the diagnostics and the tile-opt command that
    reproduces it."""
    tools = toolchain or find_toolchain()
    if isinstance(ir, os.PathLike) or (isinstance(ir, str) and "\n" not in ir
                                       and ir.endswith(".mlir") and Path(ir).is_file()):
        ir = Path(ir).read_text()
    options = dict(options or {})
    if pipeline == "tile-to-ptx-pipeline":
        options.setdefault("chip", chip)
    argument = _pipeline_argument(pipeline, options)
    key = hashlib.sha256("\0".join([ir, argument, tools.version]).encode()).hexdigest()[:32]
    directory = (cache_root() if cache else Path(tempfile.mkdtemp(prefix="tile-"))) / key
    directory.mkdir(parents=True, exist_ok=True)
    source, lowered, ptx, manifest = (directory / "input.mlir", directory / "lowered.mlir",
                                      directory / "kernels.ptx", directory / "manifest.json")
    command = [str(tools.tile_opt), str(source), argument, "-o", str(lowered)]
    if not (cache and lowered.is_file() and ptx.is_file() and manifest.is_file()):
        source.write_text(ir)
        _run(command, source)
        _run([str(tools.tile_translate), "--extract-ptx", str(lowered), "-o", str(ptx)], source)
        _run([str(tools.tile_translate), "--kernel-manifest", str(lowered), "-o",
              str(manifest)], source)
    return CompiledModule(ir, lowered.read_text(), ptx.read_text(),
                          json.loads(manifest.read_text()), directory, shlex.join(command))


def _run(command: List[str], source: Path) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 0:
        return
    diagnostics = parse_diagnostics(done.stderr)
    errors = [d for d in diagnostics if d.severity == "error"] or diagnostics
    lines = done.stderr.strip().splitlines()
    first = str(errors[0]) if errors else (lines[-1] if lines else "failed")
    raise CompileError(f"{Path(command[0]).name} failed: {first}\n"
                       f"  reproduce: {shlex.join(command)}", errors,
                       shlex.join(command), source)
