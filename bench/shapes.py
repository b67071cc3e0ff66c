#!/usr/bin/env python3
"""The GEMM shapes of real models: tile.matmul against cuBLAS at each.

    PYTHONPATH=python python3 bench/shapes.py [--models llama3-8b llama3-70b mixtral-8x7b deepseek-v3]
        [--tokens 1 16 64 256 512 4096 16384] [--types bf16 fp8]
        [--passes forward dgrad wgrad] [--rounds 3]
        [--csv FILE] [--plot FILE.png] [--list]

Each model contributes its projections as M x N x K with B an nn.Linear
weight (N x K, `transpose_b=True`), M the tokens of a forward pass (decode:
one per sequence; prefill: the sequence's):
  - llama3-8b (hidden 4096, 32 / 8 heads of 128, MLP 14336) and llama3-70b
    (8192, 64 / 8, 28672): qkv, o, gate_up (the fused 2 x MLP weight),
    down;
  - mixtral-8x7b (4096, 32 / 8, experts of 14336, top 2 of 8): qkv, o, and
    one expert's w13 and w2 at the tokens an expert gets on average
    (M 2 / 8, at least 1);
  - deepseek-v3 (7168; MLA: q_a 1536, kv_a 576, q_b 128 heads x 192, kv_b
    128 x 256 from 512, o 16384; the dense layers' MLP 18432; routed
    experts of 2048, top 8 of 256 at M 8 / 256, at least 1).
Types: bf16 (torch.matmul) and fp8 (e4m3 with row-wise scales, as
tile.testing.quantize_fp8 makes them, against torch._scaled_mm with
use_fast_accum=True, bf16 out; K and N must be multiples of 16).
Passes (bf16 only but forward): forward Y = X W^T (M x N x K), and a
backward pass's two products of each projection: dgrad dX = dY W (M x K
x N, B row-major) and wgrad dW = dY^T X (N x K x M, A the transposed view
of dY: the M-major A kernels; cuBLAS takes the same views).
Every case is checked against an f32 product first, then timed the two
ways of bench/harness.py: kernel time from CUPTI (every kernel a call
launches; the median of --rounds rotated rounds) and the user path (CUDA
events around back-to-back calls). Prints cuBLAS / tile for both, and at
the end the worst and best case by kernel time and, where tile's kernel
takes 20 µs or more, by user path. --csv writes the rows (card named),
--plot a bar chart of the kernel ratios; --list prints the cases only (no
GPU).
"""
import argparse
import sys
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

#: model -> [(projection, N, K, tokens per expert as (numerator, denominator)
#: of M, or None for every token)].
MODELS: Dict[str, List[Tuple[str, int, int, object]]] = {
    "llama3-8b": [("qkv", 6144, 4096, None), ("o", 4096, 4096, None),
                  ("gate_up", 28672, 4096, None), ("down", 4096, 14336, None)],
    "llama3-70b": [("qkv", 10240, 8192, None), ("o", 8192, 8192, None),
                   ("gate_up", 57344, 8192, None), ("down", 8192, 28672, None)],
    "mixtral-8x7b": [("qkv", 6144, 4096, None), ("o", 4096, 4096, None),
                     ("expert_w13", 28672, 4096, (2, 8)), ("expert_w2", 4096, 14336, (2, 8))],
    "deepseek-v3": [("q_a", 1536, 7168, None), ("kv_a", 576, 7168, None),
                    ("q_b", 24576, 1536, None), ("kv_b", 32768, 512, None),
                    ("o", 7168, 16384, None), ("dense_gate_up", 36864, 7168, None),
                    ("dense_down", 7168, 18432, None),
                    ("expert_gate_up", 4096, 7168, (8, 256)),
                    ("expert_down", 7168, 2048, (8, 256))],
}
TOKENS = [1, 16, 64, 256, 512, 4096, 16384]
PASSES = ["forward", "dgrad", "wgrad"]
#: Kernel time from which the user path is held to the kernel's ratio.
USER_PATH_FROM_US = 20.0


def cases(models: List[str], tokens: List[int]) -> List[Tuple[str, str, int, int, int]]:
    """(model, projection, M, N, K) of every case, M the rows the
    projection multiplies at `tokens` tokens."""
    result = []
    for model in models:
        for name, n, k, share in MODELS[model]:
            for t in tokens:
                m = t if share is None else max(1, -(-t * share[0] // share[1]))
                result.append((model, name, m, n, k))
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--tokens", nargs="+", type=int, default=TOKENS)
    parser.add_argument("--types", nargs="+", default=["bf16"], choices=["bf16", "fp8"])
    parser.add_argument("--passes", nargs="+", default=["forward"], choices=PASSES)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=0,
                        help="calls per measurement (default: about 2e13 FLOP, 10 to 200)")
    parser.add_argument("--csv")
    parser.add_argument("--plot")
    parser.add_argument("--list", action="store_true", help="print the cases and exit")
    args = parser.parse_args()
    todo = cases(args.models, args.tokens)
    if args.list:
        for model, name, m, n, k in todo:
            print(f"{model:14} {name:15} {m}x{n}x{k}")
        return
    import harness
    import tile
    from tile.testing import quantize_fp8, relative_error
    torch = harness.torch_or_exit("bench/shapes.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    rows = []
    for type_, pass_, (model, name, m, n, k) in ((t, p, c) for t in args.types
                                                 for p in args.passes for c in todo):
        shape = {"forward": (m, n, k), "dgrad": (m, k, n), "wgrad": (n, k, m)}[pass_]
        case = f"{type_} {model} {name} {pass_} {'x'.join(map(str, shape))}"
        generator = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
        a = torch.randn(m, k, device="cuda", generator=generator) / k ** 0.25
        w = torch.randn(n, k, device="cuda", generator=generator) / k ** 0.25
        if pass_ != "forward":
            if type_ != "bf16":
                print(f"{case:60} | skipped: the backward's products are bf16 here")
                continue
            dy = (torch.randn(m, n, device="cuda", generator=generator)
                  / n ** 0.25).bfloat16()
            # dX = dY W, dW = dY^T X (dY^T M-major).
            a16, b16 = (dy, w.bfloat16()) if pass_ == "dgrad" else (dy.t(), a.bfloat16())
            want = a16.float() @ b16.float()
            ours = lambda: tile.matmul(a16, b16)  # noqa: E731
            theirs = lambda: torch.matmul(a16, b16)  # noqa: E731
        elif type_ == "bf16":
            a16, w16 = a.bfloat16(), w.bfloat16()
            want = a16.float() @ w16.float().t()
            ours = lambda: tile.matmul(a16, w16, transpose_b=True)  # noqa: E731
            theirs = lambda: torch.matmul(a16, w16.t())  # noqa: E731
        else:
            if n % 16 or k % 16:
                print(f"{case:60} | skipped: FP8 takes N and K multiples of 16")
                continue
            a8, sa = quantize_fp8(a, (1, k))
            w8, sw = quantize_fp8(w, (1, k))
            sa, sw = sa.reshape(m, 1), sw.reshape(n, 1)
            want = a.float() @ w.float().t()
            ours = lambda: tile.matmul(a8, w8.t(), scale_a=sa, scale_b=sw,  # noqa: E731
                                       out_dtype=torch.bfloat16)
            theirs = lambda: torch._scaled_mm(a8, w8.t(), scale_a=sa,  # noqa: E731
                                              scale_b=sw.t(), out_dtype=torch.bfloat16,
                                              use_fast_accum=True)
        error = relative_error(ours(), want)
        bound = 1e-2 if type_ == "bf16" else 6e-2
        if not error < bound:
            print(f"{case:60} | WRONG: relative error {error:.2e}", flush=True)
            continue
        repeats = args.repeats or max(10, min(200, int(2e13 / (2 * m * n * k))))
        tile_kernel, cublas_kernel = harness.rotated_kernel_us([ours, theirs], args.rounds,
                                                               repeats)
        m, n, k = shape
        tile_user, _ = harness.user_us(ours, repeats)
        cublas_user, _ = harness.user_us(theirs, repeats)
        row = dict(card=card, case=case, type=type_, model=model, projection=name,
                   **{"pass": pass_}, m=m, n=n, k=k, tile_kernel_us=tile_kernel, cublas_kernel_us=cublas_kernel,
                   kernel_ratio=cublas_kernel / tile_kernel, tile_user_us=tile_user,
                   cublas_user_us=cublas_user, user_ratio=cublas_user / tile_user,
                   tflops=2 * m * n * k / tile_kernel / 1e6)
        rows.append(row)
        print(f"{case:60} | kernel µs {tile_kernel:9.1f} {cublas_kernel:9.1f} "
              f"{row['kernel_ratio']:5.2f} | user µs {tile_user:9.1f} {cublas_user:9.1f} "
              f"{row['user_ratio']:5.2f} | {row['tflops']:6.1f} TFLOP/s", flush=True)
    if rows:
        by_kernel = sorted(rows, key=lambda r: r["kernel_ratio"])
        print(f"worst by kernel time: {by_kernel[0]['case']} {by_kernel[0]['kernel_ratio']:.2f}; "
              f"best: {by_kernel[-1]['case']} {by_kernel[-1]['kernel_ratio']:.2f}")
        timed = [r for r in rows if r["tile_kernel_us"] >= USER_PATH_FROM_US]
        if timed:
            by_user = sorted(timed, key=lambda r: r["user_ratio"])
            print(f"worst by user path (kernel >= {USER_PATH_FROM_US:g} µs): "
                  f"{by_user[0]['case']} {by_user[0]['user_ratio']:.2f}; best: "
                  f"{by_user[-1]['case']} {by_user[-1]['user_ratio']:.2f}")
    if args.csv:
        harness.write_csv(rows, args.csv)
    if args.plot and rows:
        harness.ratio_plot(rows, args.plot, f"cuBLAS / tile.matmul by shape, {card}",
                           {"kernel": lambda r: r["kernel_ratio"],
                            "user path": lambda r: r["user_ratio"]})


if __name__ == "__main__":
    main()
