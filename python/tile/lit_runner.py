"""`python -m tile lit [LIT-OPTION...] [--] PATH...` (also `tile-lit`): LLVM's lit
on a kernel author's own tests with the package's lit configuration
(tile/lit/lit.cfg.py, package data), so that a `.mlir` file anywhere can
FileCheck its lowered IR and PTX as the project's tests do, with no lit
configuration of its own.

lit finds a test suite through its site configuration ("lit - LLVM
Integrated Tester", test discovery). This writes one into a scratch
directory, the suite's exec root (where `%t` files go), whose source root is
the deepest directory holding every PATH, and runs lit on the PATHs'
places in the exec root, which lit maps back to the source root. The site
configuration carries what the package finds: the tools (as
tile.toolchain finds them: $TILE_BIN_DIR, the checkout's build/bin, PATH),
LLVM's FileCheck, not and count, ptxas, the kernels and the GPUs.

lit itself: $TILE_LIT, the `lit` Python module (pip's `lit`), LLVM 22's
(/usr/lib/llvm-22/bin/lit, Debian's llvm-22-tools), then `lit` or
`llvm-lit` on PATH. The lit module and LLVM 22's run in this Python, so that `%python`
in a RUN line is the one that imports this package.
"""
import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence, Set

from .toolchain import find_toolchain, kernels_directory

LLVM_BIN = Path("/usr/lib/llvm-22/bin")
CONFIG = Path(__file__).resolve().parent / "lit" / "lit.cfg.py"


class LitSetupError(Exception):
    """Something the tests need was not found (lit, FileCheck, the tools)."""


def gpu_features() -> Set[str]:
    """The lit features of the CUDA GPUs the driver reports: `cuda-gpu` for
    one or more, `two-gpus` too for two or more; none without a driver or
    with $TILE_DISABLE_GPU_TESTS set. The project's test/lit.cfg.py uses it
    too."""
    if os.environ.get("TILE_DISABLE_GPU_TESTS"):
        return set()
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return set()
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return set()
    features = set()
    if count.value >= 1:
        features.add("cuda-gpu")
    if count.value >= 2:
        features.add("two-gpus")
    return features


def find_lit() -> List[str]:
    """The command that runs lit."""
    explicit = os.environ.get("TILE_LIT")
    if explicit:
        if not shutil.which(explicit):
            raise LitSetupError(f"lit not found: TILE_LIT={explicit} is not an executable")
        return [explicit]
    if importlib.util.find_spec("lit") is not None:
        return [sys.executable, "-c", "import sys; from lit.main import main; "
                "sys.argv[0] = 'lit'; main()"]
    if (LLVM_BIN / "lit").is_file():  # a script that puts its lit on sys.path
        return [sys.executable, str(LLVM_BIN / "lit")]
    for name in ("lit", "llvm-lit"):
        found = shutil.which(name)
        if found:
            return [found]
    raise LitSetupError("lit not found: install LLVM 22's tools (Debian: llvm-22-tools, "
                        "/usr/lib/llvm-22/bin/lit) or `pip install lit`, or set TILE_LIT")


def llvm_tools_dir() -> Path:
    """Where FileCheck, not and count are: LLVM 22's bin/, else PATH's."""
    if (LLVM_BIN / "FileCheck").is_file():
        return LLVM_BIN
    found = shutil.which("FileCheck")
    if found:
        return Path(found).parent
    raise LitSetupError("FileCheck not found: install LLVM 22's tools (Debian: "
                        "llvm-22-tools) or put FileCheck, not and count on PATH")


def find_ptxas() -> Optional[Path]:
    """CUDA's ptxas, where CMake looks for it (TILE_PTXAS): $TILE_PTXAS,
    $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, then PATH."""
    explicit = os.environ.get("TILE_PTXAS")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "bin" / "ptxas").is_file():
            return Path(root) / "bin" / "ptxas"
    found = shutil.which("ptxas")
    return Path(found) if found else None


def site_config(source_root: Path, exec_root: Path) -> str:
    """The text of the suite's lit.site.cfg.py."""
    try:
        tools = find_toolchain()
    except FileNotFoundError as error:
        raise LitSetupError(str(error)) from None
    ptxas = find_ptxas()
    values = {
        "test_source_root": str(source_root),
        "test_exec_root": str(exec_root),
        "llvm_tools_dir": str(llvm_tools_dir()),
        "tile_tools_dir": str(tools.tile_opt.absolute().parent),
        "tile_kernels": str(kernels_directory()),
        "tile_ptxas": str(ptxas.absolute()) if ptxas else "",
        "tile_gpu_features": sorted(gpu_features()),
    }
    lines = ["# Written by `python -m tile lit` (tile.lit_runner)."]
    lines += [f"config.{name} = {value!r}" for name, value in values.items()]
    lines += ["import lit.llvm",
              "lit.llvm.initialize(lit_config, config)",
              f"lit_config.load_config(config, {str(CONFIG)!r})"]
    return "\n".join(lines) + "\n"


def split_arguments(arguments: Sequence[str]):
    """(lit options, test paths): the arguments after `--`, else the
    trailing arguments that name existing files or directories (so an
    option's value that names one is written `--filter=VALUE`)."""
    arguments = list(arguments)
    if "--" in arguments:
        split = arguments.index("--")
        return arguments[:split], arguments[split + 1:]
    split = len(arguments)
    while split > 0 and os.path.exists(arguments[split - 1]):
        split -= 1
    return arguments[:split], arguments[split:]


def run(paths: Sequence[str], options: Sequence[str] = ()) -> int:
    """Runs lit (`-v` and `options`) on the tests at `paths` (files or
    directories) and returns its exit status: 0 when every test passed."""
    tests = [Path(path).resolve() for path in paths]
    source_root = Path(os.path.commonpath([test if test.is_dir() else test.parent
                                           for test in tests]))
    command = find_lit()
    with tempfile.TemporaryDirectory(prefix="tile-lit-") as scratch:
        exec_root = Path(scratch)
        (exec_root / "lit.site.cfg.py").write_text(site_config(source_root, exec_root))
        places = [str(exec_root / test.relative_to(source_root)) for test in tests]
        return subprocess.run(command + ["-v"] + list(options) + places).returncode


USAGE = """usage: python3 -m tile lit [LIT-OPTION...] [--] PATH...   (or: tile-lit ...)

Runs LLVM's lit on the .mlir and .test files at PATH (files or directories)
with the tile package's configuration: tile-opt, tile-translate, tile-run,
FileCheck, not, count, %ptxas, %tile_kernels, %python; the features ptxas,
cuda-gpu, two-gpus and tile-run. Options before the paths go to lit (`lit --help`);
the paths are the arguments after `--`, else the trailing ones that exist."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    options, paths = split_arguments(sys.argv[1:] if argv is None else argv)
    if "-h" in options or "--help" in options:
        print(USAGE)
        return 0
    if not paths:
        print(USAGE, file=sys.stderr)
        if options and not options[-1].startswith("-"):
            print(f"error: no such file or directory: {options[-1]}", file=sys.stderr)
        return 2
    missing = [path for path in paths if not os.path.exists(path)]
    if missing:
        print(f"error: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    try:
        return run(paths, options)
    except LitSetupError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
