"""docs/Tutorial.md, end to end: its `sh` blocks run as written (those
marked "needs a GPU" only where there is one), its `mlir` blocks are parts of
the tutorial's files, and on a GPU every kernel of examples/tutorial matches
PyTorch at every row count."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tile.lit_runner import find_ptxas

REPO = Path(__file__).resolve().parents[2]
TUTORIAL = REPO / "docs" / "Tutorial.md"
FILES = REPO / "examples" / "tutorial"
BIN = Path(os.environ.get("TILE_BIN_DIR", REPO / "build" / "bin")).resolve()


def blocks(language: str):
    """The fenced code blocks of the tutorial in `language`."""
    text = TUTORIAL.read_text()
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


def has_gpu() -> bool:
    from tile.testing import cuda_torch
    return cuda_torch()[0] is not None


def test_mlir_blocks_are_the_files():
    sources = "\n".join(path.read_text() for path in FILES.rglob("*.mlir"))
    missing = [block for block in blocks("mlir") if block not in sources]
    assert not missing, f"Tutorial.md shows IR that no tutorial file has: {missing}"


def test_sh_blocks_run(tmp_path):
    if not (BIN / "tile-opt").exists():
        pytest.skip("tools not built")
    ptxas = find_ptxas()
    if ptxas is None:
        pytest.skip("needs ptxas")
    ptxas = str(ptxas.parent)
    gpu = has_gpu()
    script = ["set -euo pipefail"]
    for block in blocks("sh"):
        for command in block.replace("\\\n", " ").splitlines():
            if "needs a GPU" in command and not gpu:
                continue
            script.append(command)
    env = dict(os.environ, PATH=os.pathsep.join([ptxas, os.environ["PATH"]]),
               PYTHONPATH=os.pathsep.join(
                   filter(None, [str(REPO / "python"), os.environ.get("PYTHONPATH")])),
               TILE_BIN_DIR=str(BIN))
    # The tutorial's `export PATH="$PWD/build/bin:$PATH"` names the
    # repository's build; a build elsewhere comes first.
    script.insert(1, f'cd "{REPO}"')
    script.append("true")
    result = subprocess.run(["bash", "-c", "\n".join(script).replace(
        'export PATH="$PWD/build/bin:$PATH"', f'export PATH="{BIN}:$PWD/build/bin:$PATH"')],
        capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def tutorial(torch_cuda):
    if torch_cuda.cuda.get_device_capability() < (8, 0):
        pytest.skip("needs sm_80 or newer")
    sys.path.insert(0, str(FILES))
    try:
        import rmsnorm
    finally:
        sys.path.remove(str(FILES))
    return rmsnorm


@pytest.mark.parametrize("variant", ["shuffles", "reduce", "pipelined"])
@pytest.mark.parametrize("rows", [1, 3, 264, 1000, 4099])
def test_rmsnorm_matches_torch(tutorial, torch_cuda, variant, rows):
    torch = torch_cuda
    if torch.cuda.get_device_capability() < (9, 0):
        pytest.skip("the tutorial compiles for sm_90a")
    x = torch.randn(rows, tutorial.HIDDEN, device="cuda", dtype=torch.bfloat16) * 3
    w = torch.randn(tutorial.HIDDEN, device="cuda", dtype=torch.bfloat16)
    y = torch.full_like(x, float("nan"))
    tutorial.rmsnorm(x, w, 1e-5, out=y, variant=variant)
    want = tutorial.reference(x, w, 1e-5)
    # One bf16 rounding of the result apart (the sums' order differs).
    torch.testing.assert_close(y, want, rtol=1.6e-2, atol=1e-2)
    # As PyTorch's own RMSNorm.
    torch.testing.assert_close(
        y, torch.nn.functional.rms_norm(x, (tutorial.HIDDEN,), w, 1e-5), rtol=1.6e-2, atol=1e-2)
