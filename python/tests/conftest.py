import sys
from pathlib import Path

import pytest

PYTHON = Path(__file__).resolve().parents[1]
REPO = PYTHON.parent
sys.path.insert(0, str(PYTHON))


@pytest.fixture(scope="session")
def examples():
    return REPO / "examples"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path_factory, monkeypatch):
    """Each test session compiles into its own cache."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def cuda_torch():
    """torch with a CUDA device and a usable tile runtime, else a skip reason."""
    try:
        import torch
    except ImportError:
        return None, "needs PyTorch"
    if not torch.cuda.is_available():
        return None, "needs a CUDA GPU"
    import tile.launch
    reason = tile.launch.Runtime.get().probe()
    if reason:
        return None, reason
    return torch, None


@pytest.fixture
def torch_cuda():
    torch, reason = cuda_torch()
    if torch is None:
        pytest.skip(reason)
    return torch
