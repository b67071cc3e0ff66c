#!/usr/bin/env python3
"""The persistent GEMM's tile widths side by side: the evidence for
tile.ops.persistent.tile_width.

    PYTHONPATH=python python3 bench/tile_widths.py [--type bf16|fp8]
        [--shapes MxNxK ...] [--rounds 3] [--csv FILE]

For each M x N x K (bf16, or e4m3 with row-wise scales; B an nn.Linear
weight, N x K), kernel time from CUPTI (the median of --rounds rotated
rounds, bench/harness.py) of
  - tile.matmul as it plans the shape (the rule; a decode kernel for M <=
    128 in bf16 where tile.ops.matmul.decode_pays, the multicast kernel for
    four waves of FP8 tiles),
  - the persistent kernel (@gemm_nt, @gemm_fp8_nt) with 128 x 256,
    128 x 192, 128 x 128 and (bf16) 128 x 64 tiles and the widths that
    fit the waves, 224, 160 and 96 (persistent.TILE_WIDTHS and
    FP8_TILE_WIDTHS, each on
    persistent_grid's grid for that width, split-K as the kernel's work
    units split it),
  - torch.matmul (cuBLAS), torch._scaled_mm for FP8.
Prints each time, cuBLAS over each, the width the rule picks and the
fastest; every side is checked against an f32 product first. The default
shapes are the real-model projections of bench/shapes.py that ran below
0.97 of cuBLAS on an H100 with 256 / 128 tiles only, and large squares as
controls.
"""
import argparse
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

SHAPES = ["64x576x7168", "64x1536x7168", "64x4096x4096", "64x32768x512", "128x4096x7168", "128x7168x2048", "128x28672x4096", "256x576x7168",
          "256x1536x7168", "256x4096x4096", "256x6144x4096", "256x7168x16384",
          "256x10240x8192", "256x24576x1536", "256x32768x512", "256x36864x7168",
          "512x576x7168", "512x1536x7168", "512x4096x4096", "512x6144x4096",
          "512x7168x2048", "512x10240x8192", "512x28672x4096", "512x32768x512",
          "4096x576x7168", "4096x1536x7168", "4096x6144x4096", "4096x24576x1536",
          "4096x32768x512", "16384x576x7168", "16384x32768x512", "16384x36864x7168",
          "4096x4096x4096", "8192x8192x8192", "2048x2048x2048", "1024x1024x1024"]
FP8_SHAPES = ["1x6144x4096", "16x6144x4096", "16x28672x4096", "1x7168x2048", "64x4096x4096",
              "128x7168x2048", "256x6144x4096", "512x4096x4096", "256x576x7168",
              "4096x576x7168", "16384x576x7168", "4096x1536x7168", "512x32768x512",
              "4096x32768x512", "4096x24576x1536", "1792x2560x1024", "2048x7168x1024",
              "1024x4096x4096", "2048x2048x2048", "16384x4096x4096", "4096x4096x4096"]


def bf16_sides(torch, tile, mm, a, w, sms, persistent):
    """(the rule's plan, [tile.matmul, each width, cuBLAS]) for bf16."""
    from tile.core.caches import placeholders
    from tile.core.devices import device
    from tile.core.operands import operand_of
    rule = mm.plan_matmul(operand_of(a), operand_of(w.t()), None, device(0))
    m, n, k = rule.m, rule.n, rule.k
    unused = placeholders(torch, a.device, a.dtype)[0]  # no bias, no residual
    unread = placeholders(torch, a.device, torch.float32)[1]  # no FP8 C's scale, amax
    sides = [lambda: tile.matmul(a, w, transpose_b=True)]
    for width in persistent.TILE_WIDTHS:
        plan = replace(rule, decode=None, kernel="gemm_nt", b_transposed=True,
                       workspace_ctas=sms, tile_n=width,
                       grid=(persistent.persistent_grid(m, n, k, sms, width), 1, 1))
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        arguments = plan.arguments(a, w, c, mm.split_k_buffers(torch, plan, 0), unused, unused,
                                   unread, unread.view(torch.int32),
                                   unused_c=unused)
        launch = mm.kernel(plan).prepare(0, arguments, plan.grid)
        sides.append(lambda launch=launch, c=c: (launch(), c)[1])
    sides.append(lambda: torch.matmul(a, w.t()))
    return rule, sides


def fp8_sides(torch, tile, a, w, sms, persistent):
    """(the rule's plan, [tile.matmul, each width, torch._scaled_mm]) for
    e4m3 operands with row-wise scales, bf16 C."""
    from tile.core.devices import device
    from tile.core.operands import operand_of
    from tile.ops import scaled_matmul as sm
    from tile.testing import quantize_fp8
    m, k = a.shape
    n = w.shape[0]
    a8, sa = quantize_fp8(a, (1, k))
    w8, sw = quantize_fp8(w, (1, k))
    sa, sw = sa.reshape(m).contiguous(), sw.reshape(n).contiguous()
    rule = sm.plan_scaled_matmul(*(operand_of(t) for t in (a8, w8.t(), sa, sw)), None,
                                 "bfloat16", device(0))
    sides = [lambda: tile.matmul(a8, w8, transpose_b=True, scale_a=sa, scale_b=sw)]
    for width in persistent.FP8_TILE_WIDTHS:
        plan = replace(rule, kernel=sm.FP8_KERNEL, tile_n=width, workspace_ctas=sms,
                       pingpong=False, decode=None,
                       grid=(persistent.persistent_grid(m, n, k, sms, width, slice_k=128), 1, 1))
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        workspace = persistent.split_k_buffers(torch, plan.split_k_shape, 0)
        kernel = sm.FP8.kernel(plan.variant, plan.kernel)
        arguments = plan.arguments(a8, w8, c, sa, sw, workspace)
        sides.append(lambda kernel=kernel, arguments=arguments, grid=plan.grid, c=c:
                     (kernel(*arguments, grid=grid), c)[1])
    sides.append(lambda: torch._scaled_mm(a8, w8.t(), scale_a=sa[:, None], scale_b=sw[None, :],
                                          out_dtype=torch.bfloat16, use_fast_accum=True))
    return rule, sides


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--type", choices=("bf16", "fp8"), default="bf16")
    parser.add_argument("--shapes", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--csv")
    args = parser.parse_args()
    import harness
    import tile
    from tile.core.devices import device
    from tile.ops import matmul as mm
    from tile.ops import persistent
    from tile.testing import relative_error
    torch = harness.torch_or_exit("bench/tile_widths.py")
    harness.describe_device()
    card = torch.cuda.get_device_name(0)
    sms = device(0).sms
    rows = []
    shapes = args.shapes or (FP8_SHAPES if args.type == "fp8" else SHAPES)
    widths = persistent.FP8_TILE_WIDTHS if args.type == "fp8" else persistent.TILE_WIDTHS
    print(f"{'shape':>18s} | {'rule':>7s} " + " ".join(f"{'w' + str(w):>7s}" for w in widths)
          + f" {'cuBLAS':>7s} µs | cuBLAS / rule, / w... | rule picks, fastest")
    for shape in shapes:
        m, n, k = (int(x) for x in shape.split("x"))
        generator = torch.Generator(device="cuda").manual_seed(m + n + k)
        a = torch.randn(m, k, device="cuda", generator=generator) / k ** 0.25
        w = torch.randn(n, k, device="cuda", generator=generator) / k ** 0.25
        if args.type == "fp8":
            rule, sides = fp8_sides(torch, tile, a, w, sms, persistent)
            want = a.float() @ w.float().t()
        else:
            a, w = a.bfloat16(), w.bfloat16()
            want = a.float() @ w.float().t()
            rule, sides = bf16_sides(torch, tile, mm, a, w, sms, persistent)
        for side in sides:
            error = relative_error(side(), want)
            if not error < (6e-2 if args.type == "fp8" else 1e-2):
                raise SystemExit(f"{shape}: WRONG, relative error {error:.2e}")
        repeats = max(10, min(200, int(2e13 / (2 * m * n * k))))
        times = harness.rotated_kernel_us(sides, args.rounds, repeats)
        cublas = times[-1]
        fastest = widths[min(range(len(widths)), key=lambda i: times[1 + i])]
        picks = ("decode" if getattr(rule, "decode", None) is not None
                 else "multicast" if getattr(rule, "multicast", False) else rule.tile_n)
        row = dict(card=card, type=args.type, m=m, n=n, k=k, rule=picks, fastest=fastest,
                   rule_us=times[0], cublas_us=cublas,
                   **{f"w{width}_us": times[1 + i] for i, width in enumerate(widths)})
        rows.append(row)
        print(f"{shape:>18s} | " + " ".join(f"{t:7.1f}" for t in times) + " | "
              + " ".join(f"{cublas / t:5.2f}" for t in times[:-1])
              + f" | {picks} {fastest}", flush=True)
    if args.csv:
        harness.write_csv(rows, args.csv)


if __name__ == "__main__":
    main()
