"""Locating tile-opt, tile-translate and libtile_runtime."""
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

# The build tree this package sits in (python/tile/ -> build/).
_REPO = Path(__file__).resolve().parents[2]


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
        return _version(str(self.tile_opt)) + " ".join(stamps)


@lru_cache(maxsize=None)
def _version(tile_opt: str) -> str:
    out = subprocess.run([tile_opt, "--version"], capture_output=True, text=True)
    return out.stdout + out.stderr


def _candidates():
    if os.environ.get("TILE_BIN_DIR"):
        yield Path(os.environ["TILE_BIN_DIR"])
    yield _REPO / "build" / "bin"
    found = shutil.which("tile-opt")
    if found:
        yield Path(found).parent


def find_toolchain() -> Toolchain:
    """The first directory with both tools: $TILE_BIN_DIR, the repository's
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
