import sys
from pathlib import Path

import pytest

PYTHON = Path(__file__).resolve().parents[1]
REPO = PYTHON.parent
sys.path.insert(0, str(PYTHON))


@pytest.fixture(scope="session")
def examples():
    return REPO / "examples"


@pytest.fixture(scope="session")
def kernels():
    """The package's kernel sources (tile/kernels)."""
    return PYTHON / "tile" / "kernels"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory, monkeypatch):
    """Each test session compiles into its own cache."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


@pytest.fixture
def torch_cuda():
    from tile.testing import cuda_torch
    torch, reason = cuda_torch()
    if torch is None:
        pytest.skip(reason)
    return torch
