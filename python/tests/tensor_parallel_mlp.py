"""A tensor-parallel Llama-3-8B MLP (hidden 4096, intermediate 14336, bf16)
with tile.matmul, one process per GPU as torchrun starts them (no
CUDA_VISIBLE_DEVICES): gate and up projections split by columns, down by
rows, an NCCL all_reduce of the partial outputs; every rank checks the
result against the unsplit layer in float32 and prints one line.
test_tensor_parallel.py runs it:

    python3 -m torch.distributed.run --nproc_per_node=2 tensor_parallel_mlp.py [TOKENS...]
"""
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tile  # noqa: E402
from tile.testing import relative_error  # noqa: E402

HIDDEN, INTERMEDIATE = 4096, 14336


def main() -> None:
    rank, world = int(os.environ["LOCAL_RANK"]), int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    device = torch.device("cuda", rank)
    # The same weights on every rank (drawn on the CPU), each rank its shard.
    generator = torch.Generator().manual_seed(0)
    scale = HIDDEN ** -0.5

    def weight(*shape):
        return (torch.randn(*shape, generator=generator) * scale).to(torch.bfloat16)

    gate, up, down = weight(INTERMEDIATE, HIDDEN), weight(INTERMEDIATE, HIDDEN), \
        weight(HIDDEN, INTERMEDIATE)
    share = INTERMEDIATE // world
    rows = slice(rank * share, (rank + 1) * share)
    gate_shard, up_shard = gate[rows].to(device), up[rows].to(device)
    down_shard = down[:, rows].contiguous().to(device)
    gate, up, down = (w.to(device) for w in (gate, up, down))
    worst = 0.0
    for tokens in [int(t) for t in sys.argv[1:]] or [1, 16, 512]:
        x = (torch.randn(tokens, HIDDEN, generator=generator)).to(torch.bfloat16).to(device)
        h = torch.nn.functional.silu(tile.matmul(x, gate_shard, transpose_b=True)) \
            * tile.matmul(x, up_shard, transpose_b=True)
        y = tile.matmul(h, down_shard, transpose_b=True)
        dist.all_reduce(y)
        xf = x.float()
        want = (torch.nn.functional.silu(xf @ gate.float().t()) * (xf @ up.float().t())) \
            @ down.float().t()
        error = relative_error(y, want)
        worst = max(worst, error)
        assert y.device == device and torch.cuda.current_device() == rank
        print(f"rank {rank}/{world} {y.device} tokens {tokens}: relative error {error:.2e}",
              flush=True)
    dist.barrier()
    dist.destroy_process_group()
    if not worst < 1e-2:
        sys.exit(f"rank {rank}: relative error {worst:.2e} against the unsplit layer")


if __name__ == "__main__":
    main()
