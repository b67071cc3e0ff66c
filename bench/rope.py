"""tile.rope against PyTorch's eager composite and against a
device-to-device copy of the same bytes, bf16.

    PYTHONPATH=python python3 bench/rope.py [--shapes 1x4096 1x16384 1x1 16x1]
        [--heads 32] [--kv-heads 8] [--head-dim 128] [--csv out.csv]

Each case is B x S tokens of a fused QKV output (B S, (H + 2 Hkv) D), q and
k its (B, S, H, D) and (B, S, Hkv, D) views (Llama-3-8B: H 32, Hkv 8, D
128); prefill's tables are (S, D), decode's (S = 1) the row of position
4095 of a longer table. The sides:
  - tile: `tile.rope(q, k, cos, sin)`, q and k rotated in place;
  - torch: Hugging Face's eager composite, `q * cos + rotate_half(q) * sin`
    and the same for k (cos, sin as (1, S, 1, D) views), new tensors;
  - copy: `dst.copy_(src)`, one cudaMemcpyAsync moving as many bytes as
    the kernel must (src holds half of tile's bytes read + written: q and
    k read and written, the tables read), the bandwidth ceiling of a kernel
    that reads and writes each byte once.
Kernel time from CUPTI (harness.rotated_kernel_us: the median of --rounds
rotated rounds of --repeats back-to-back calls; the copy's memcpy records
count): each side's GB/s (tile's bytes over its time; torch's kernels move
more) and the fraction of the copy's bandwidth (copy time / side time).
User path: CUDA events around --repeats back-to-back calls as a user makes
them, tile against torch. Results are checked against a float32 reference
first.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (MEMORY_BOUND_HEADER, describe_device, memory_bound_line,  # noqa: E402
                     memory_bound_row, torch_or_exit, write_csv)

import tile  # noqa: E402  (harness put python/ on sys.path)

#: The position of a decode step (its tables' row).
DECODE_POSITION = 4095


def rotate_half(torch, x):
    """Hugging Face's rotate_half: cat(-x[D/2:], x[:D/2])."""
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def torch_rope(torch, q, k, cos, sin):
    """Hugging Face's apply_rotary_pos_emb, (B, S, heads, D) layout: new
    tensors."""
    cos, sin = cos[None, :, None, :], sin[None, :, None, :]
    return q * cos + rotate_half(torch, q) * sin, k * cos + rotate_half(torch, k) * sin


def tables(torch, positions: int, head_dim: int, base: float = 500000.0):
    """Llama-3's (positions, D) cos and sin tables, bf16."""
    inv_freq = 1.0 / base ** (torch.arange(0, head_dim, 2, device="cuda").float() / head_dim)
    freqs = torch.outer(torch.arange(positions, device="cuda").float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().bfloat16(), emb.sin().bfloat16()


def check(torch, q, k, cos, sin) -> None:
    """tile's q and k against a float32 reference: within a bf16 rounding."""
    c, s = cos.float()[None, :, None, :], sin.float()[None, :, None, :]
    want = [x.float() * c + rotate_half(torch, x.float()) * s for x in (q, k)]
    tile.rope(q, k, cos, sin)
    for name, got, reference in zip("qk", (q, k), want):
        error = ((got.float() - reference).abs() / reference.abs().clamp_min(1.0)).max().item()
        assert error <= 2 ** -7, f"tile.rope: {name}'s relative error {error} against float32"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["1x4096", "1x16384", "1x1", "16x1"],
                        help="B x S cases")
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--kv-heads", type=int, default=8)
    parser.add_argument("--head-dim", type=int, choices=(64, 128), default=128)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = torch_or_exit("bench/rope.py")
    describe_device()
    heads, kv_heads, head_dim = args.heads, args.kv_heads, args.head_dim
    table = []
    print(f"{'case':22s} {MEMORY_BOUND_HEADER}")
    for shape in args.shapes:
        batch, seq = (int(n) for n in shape.split("x"))
        qkv = torch.randn(batch * seq, (heads + 2 * kv_heads) * head_dim, device="cuda",
                          dtype=torch.bfloat16)
        split = qkv.view(batch, seq, heads + 2 * kv_heads, head_dim)
        q, k = split[:, :, :heads], split[:, :, heads:heads + kv_heads]
        if seq == 1:
            cos, sin = (t[DECODE_POSITION:DECODE_POSITION + 1]
                        for t in tables(torch, DECODE_POSITION + 1, head_dim))
        else:
            cos, sin = tables(torch, seq, head_dim)
        check(torch, q, k, cos, sin)
        moved = 2 * batch * seq * (heads + kv_heads) * head_dim * 2 + 2 * seq * head_dim * 2
        row = {"batch": batch, "seq": seq, "heads": heads, "kv_heads": kv_heads,
               "head_dim": head_dim,
               **memory_bound_row(torch, lambda: tile.rope(q, k, cos, sin),
                                  lambda: torch_rope(torch, q, k, cos, sin), moved, args.rounds,
                                  args.repeats)}
        table.append(row)
        print(f"{f'{batch} x {seq} x ({heads}+{kv_heads}) x {head_dim}':22s} "
              f"{memory_bound_line(row)}", flush=True)
    if args.csv:
        write_csv(table, args.csv)


if __name__ == "__main__":
    main()
