"""RMSNorm of the tutorial (examples/tutorial) against PyTorch and against a
device-to-device copy of the same bytes, on rows of 4096 bf16.

Kernel time from CUPTI (harness.rotated_kernel_us; the copy is
`y.copy_(x)`, one cudaMemcpyAsync, whose memcpy record counts): the
tile.reduce kernel against the hand-written reduction (the tutorial's claim:
at least 0.95x of it) and every kernel's bandwidth (bytes read + written per
second) as a fraction of the copy's (at least 0.85 from 16k rows). The user
path (CUDA events around the calls a user makes) is printed beside it.

    python bench/rmsnorm.py [--rows 16384 32768] [--csv out.csv]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ROOT, describe_device, rotated_kernel_us, torch_or_exit, user_us, write_csv  # noqa: E402

sys.path.insert(0, str(ROOT / "examples" / "tutorial"))
import rmsnorm as tutorial  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[4096, 16384, 32768])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = torch_or_exit("bench/rmsnorm.py")
    describe_device()
    eps = 1e-6
    rows_out = []
    for rows in args.rows:
        x = torch.randn(rows, tutorial.HIDDEN, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(tutorial.HIDDEN, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        want = tutorial.reference(x, w, eps)
        sides = {}
        for variant in tutorial.KERNELS:
            got = tutorial.rmsnorm(x, w, eps, variant=variant)
            error = (got.float() - want.float()).abs().max().item()
            assert error < 0.1, f"{variant}: max error {error}"
            sides[variant] = (lambda v=variant: tutorial.rmsnorm(x, w, eps, out=y, variant=v))
        sides["torch"] = lambda: torch.nn.functional.rms_norm(x, (tutorial.HIDDEN,), w, eps)
        sides["copy"] = lambda: y.copy_(x)
        kernel = dict(zip(sides, rotated_kernel_us(list(sides.values()), args.rounds,
                                                   args.repeats, copies=True)))
        moved = 2 * x.numel() * x.element_size()
        print(f"rows {rows} x {tutorial.HIDDEN} bf16 ({moved / 2**20:.0f} MiB moved):")
        for name, run in sides.items():
            user = user_us(run, args.repeats)[0]
            row = {"rows": rows, "side": name, "kernel_us": round(kernel[name], 2),
                   "user_us": round(user, 2),
                   "GB_per_s": round(moved / kernel[name] / 1e3, 1),
                   "of_copy": round(kernel["copy"] / kernel[name], 3),
                   "reduce_vs_shuffles": round(kernel["shuffles"] / kernel["reduce"], 3)}
            rows_out.append(row)
            print(f"  {name:10s} kernel {kernel[name]:8.1f} us ({row['GB_per_s']:6.0f} GB/s, "
                  f"{row['of_copy']:.3f} of the copy's)   user path {user:8.1f} us")
        print(f"  tile.reduce / hand-written (kernel time ratio): "
              f"{kernel['shuffles'] / kernel['reduce']:.3f}x")
    if args.csv:
        write_csv(rows_out, args.csv)


if __name__ == "__main__":
    main()
