"""tile.matmul in a tensor-parallel Llama-3-8B MLP over two GPUs, one
process per GPU started by torchrun, NCCL all_reduce between them, against
the unsplit layer (tensor_parallel_mlp.py). Needs two sm_90 GPUs."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_tensor_parallel_mlp_on_two_gpus(two_hopper_gpus):
    pytest.importorskip("torch.distributed.run")
    environment = dict(os.environ, NCCL_NVLS_ENABLE="0", TORCH_SYMM_MEM_DISABLE_MULTICAST="1",
                       NVSHMEM_DISABLE_NVLS="1", PYTHONUNBUFFERED="1")
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
         str(HERE / "tensor_parallel_mlp.py"), "1", "16", "512"],
        env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("rank ")]
    assert len(lines) == 6, done.stdout
    assert {line.split()[2] for line in lines} == {"cuda:0", "cuda:1"}  # y.device of each rank
