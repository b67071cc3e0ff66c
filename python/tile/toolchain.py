"""Where the package finds what it runs: tile-opt and tile-translate, the
runtime library, its kernels (package data) and its caches.

Tools: $TILE_BIN_DIR, the build tree of a source checkout (build/bin beside
python/), then PATH. The runtime: $TILE_RUNTIME_LIB, else lib/ beside the
tools' bin/. Kernels: the `kernels` folder of the installed package
(importlib.resources). Caches: $TILE_CACHE_DIR, default ~/.cache/tile.
"""
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import List, Optional

# A source checkout's build tree: python/tile/ -> build/ (absent when the
# package is installed elsewhere).
_CHECKOUT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Toolchain:
    """The tools a compilation runs and the runtime a launch loads."""

    tile_opt: Path
    tile_translate: Path
    runtime: Optional[Path]

    @property
    def version(self) -> str:
        """tile-opt's version text and both tools' size and modification
        time: part of every cache key, so a rebuilt tool recompiles."""
        stamps = [f"{p.stat().st_size}:{p.stat().st_mtime_ns}"
                  for p in (self.tile_opt.resolve(), self.tile_translate.resolve())]
        return tool_banner(str(self.tile_opt)) + " ".join(stamps)


@lru_cache(maxsize=None)
def tool_banner(tile_opt: str) -> str:
    """`tile-opt --version`'s text."""
    out = subprocess.run([tile_opt, "--version"], capture_output=True, text=True)
    return out.stdout + out.stderr


def _candidates():
    if os.environ.get("TILE_BIN_DIR"):
        yield Path(os.environ["TILE_BIN_DIR"])
    yield _CHECKOUT / "build" / "bin"
    found = shutil.which("tile-opt")
    if found:
        yield Path(found).parent


def find_toolchain() -> Toolchain:
    """The first directory with both tools: $TILE_BIN_DIR, the checkout's
    build/bin, then PATH. The runtime: $TILE_RUNTIME_LIB, else lib/ beside
    the tools' bin/."""
    for directory in _candidates():
        opt, translate = directory / "tile-opt", directory / "tile-translate"
        if opt.is_file() and translate.is_file():
            runtime = os.environ.get("TILE_RUNTIME_LIB")
            lib = Path(runtime) if runtime else directory.parent / "lib" / "libtile_runtime.so"
            return Toolchain(opt, translate, lib if lib.is_file() else None)
    raise FileNotFoundError(
        "tile-opt and tile-translate not found: build the project "
        "(scripts/build.sh), set TILE_BIN_DIR, or put them on PATH")


def tool_version() -> str:
    """The version of the tools found (see Toolchain.version)."""
    return find_toolchain().version


def kernels_directory():
    """The package's kernel sources (a Traversable: a folder of the installed
    package)."""
    return resources.files(__package__) / "kernels"


def kernel_files() -> List[str]:
    """The names of the package's kernel sources."""
    return sorted(entry.name for entry in kernels_directory().iterdir()
                  if entry.name.endswith(".mlir"))


def read_kernel(name: str) -> str:
    """The text of the package's kernel source `name` ("gemm_sm90.mlir")."""
    return (kernels_directory() / name).read_text()


def cache_root() -> Path:
    """Where compilations and tuning results are cached."""
    root = os.environ.get("TILE_CACHE_DIR")
    if root:
        return Path(root)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tile"
