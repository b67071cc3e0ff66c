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
def two_hopper_gpus(torch_cuda):
    """PyTorch with two sm_90 GPUs, else the test is skipped."""
    torch = torch_cuda
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs")
    if any(torch.cuda.get_device_capability(i) != (9, 0) for i in range(2)):
        pytest.skip("needs sm_90a GPUs")
    return torch


@pytest.fixture
def torch_cuda():
    from tile.testing import cuda_torch
    torch, reason = cuda_torch()
    if torch is None:
        pytest.skip(reason)
    return torch
