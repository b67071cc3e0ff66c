#!/usr/bin/env python3
"""Fused GEMM epilogues against PyTorch's op-by-op layers, bf16.

    PYTHONPATH=python python3 bench/epilogue.py [--tokens 4096 512 16 1]
        [--cases mlp bias_gelu residual gated_fp8 linear_fp8] [--rounds 3] [--repeats 20] [--csv out.csv]

Cases (Llama-3-8B's MLP: hidden 4096, intermediate 14336; GPT-style
projection for bias + GELU):
  - mlp: the gated MLP with its residual, y = x + down(silu(gate(x)) * up(x)).
    torch: Hugging Face's LlamaMLP op by op, x @ Wg^T, x @ Wu^T (cuBLAS),
    F.silu, *, @ Wd^T, + x; torch-fused: one x @ [Wg; Wu]^T GEMM, chunk,
    F.silu(g) * u, then @ Wd^T and + x (vLLM's layout without its kernels).
    tile: tile.gated_mlp(x, interleave_gate_up(Wg, Wu), Wd, residual=x):
    two GEMMs, the first's epilogue gates, the second's adds x.
  - bias_gelu: C = gelu(x W^T + b), 4096 -> 16384 (tile.matmul(...,
    bias=, activation="gelu") against F.gelu(F.linear(x, W, b))).
  - residual: C = h + x W^T, 14336 -> 4096 (residual= against
    torch.matmul and +).
  - gated_fp8: the MLP's hidden activation quantized for an FP8 down
    projection, silu(x Wg^T) * (x Wu^T) -> e4m3 with a scale, saturating,
    and its amax (tile.matmul(..., gated=True, out_dtype=float8_e4m3fn,
    out_scale=, amax=) against one x [Wg; Wu]^T GEMM, F.silu(g) * u, the
    amax, the scale, the clamp and the cast, as Transformer Engine's
    unfused path does them).
  - linear_fp8: C = x W^T, 4096 -> 4096, quantized the same way.
Kernel time: CUPTI (harness.rotated_kernel_us: every kernel a side
launches, median of --rounds rotated rounds of --repeats calls). User path:
CUDA events around --repeats back-to-back calls as a user makes them
(new outputs). Results are checked against a float32 reference first.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import describe_device, rotated_kernel_us, torch_or_exit, user_us, write_csv  # noqa: E402

import tile  # noqa: E402  (harness put python/ on sys.path)

HIDDEN, INTERMEDIATE = 4096, 14336


def relative_error(got, want) -> float:
    return ((got.float() - want).norm() / want.norm()).item()


def gate_up_inputs(torch, m: int):
    """x (m x hidden), the gate and up weights, them concatenated (PyTorch's
    one GEMM) and interleaved (tile's gated epilogue), bf16."""
    dt = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(m, HIDDEN, **dt)
    wg = torch.randn(INTERMEDIATE, HIDDEN, **dt) * 0.02
    wu = torch.randn(INTERMEDIATE, HIDDEN, **dt) * 0.02
    return x, wg, wu, torch.cat([wg, wu]), tile.interleave_gate_up(wg, wu)


def mlp_case(torch, m: int):
    F = torch.nn.functional
    x, wg, wu, wgu, w_tile = gate_up_inputs(torch, m)
    wd = torch.randn(HIDDEN, INTERMEDIATE, device="cuda", dtype=torch.bfloat16) * 0.02

    def torch_side():
        return x + torch.matmul(F.silu(torch.matmul(x, wg.t())) * torch.matmul(x, wu.t()),
                                wd.t())

    def torch_fused():
        g, u = torch.matmul(x, wgu.t()).chunk(2, dim=-1)
        return x + torch.matmul(F.silu(g) * u, wd.t())

    def tile_side():
        return tile.gated_mlp(x, w_tile, wd, residual=x)

    xf = x.float()
    want = xf + (F.silu(xf @ wg.float().t()) * (xf @ wu.float().t())) @ wd.float().t()
    return {"torch": torch_side, "torch_fused": torch_fused, "tile": tile_side}, want


def bias_gelu_case(torch, m: int):
    F = torch.nn.functional
    dt = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(m, HIDDEN, **dt)
    w = torch.randn(4 * HIDDEN, HIDDEN, **dt) * 0.02
    b = torch.randn(4 * HIDDEN, **dt)
    want = F.gelu(x.float() @ w.float().t() + b.float())
    return {"torch": lambda: F.gelu(F.linear(x, w, b)),
            "tile": lambda: tile.matmul(x, w, transpose_b=True, bias=b,
                                        activation="gelu")}, want


def residual_case(torch, m: int):
    dt = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(m, INTERMEDIATE, **dt)
    w = torch.randn(HIDDEN, INTERMEDIATE, **dt) * 0.02
    h = torch.randn(m, HIDDEN, **dt)
    want = h.float() + x.float() @ w.float().t()
    return {"torch": lambda: h + torch.matmul(x, w.t()),
            "tile": lambda: tile.matmul(x, w, transpose_b=True, residual=h)}, want


def _quantized(torch, y, scale, amax):
    """PyTorch's FP8 quantization of y: amax raised, scaled, clamped, cast."""
    torch.maximum(amax, y.abs().amax().reshape(1), out=amax)
    return (y.float() * scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)


def gated_fp8_case(torch, m: int):
    F = torch.nn.functional
    x, wg, wu, wgu, w_tile = gate_up_inputs(torch, m)
    scale = torch.tensor([64.0], device="cuda")
    amax = [torch.zeros(1, device="cuda") for _ in range(2)]

    def torch_side():
        g, u = torch.matmul(x, wgu.t()).chunk(2, dim=-1)
        return _quantized(torch, F.silu(g) * u, scale, amax[0])

    def tile_side():
        return tile.matmul(x, w_tile, transpose_b=True, gated=True, activation="silu",
                           out_dtype=torch.float8_e4m3fn, out_scale=scale, amax=amax[1])

    xf = x.float()
    y = F.silu(xf @ wg.float().t()) * (xf @ wu.float().t())
    want = (y * scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn).float()
    return {"torch": torch_side, "tile": tile_side}, want


def linear_fp8_case(torch, m: int):
    dt = dict(device="cuda", dtype=torch.bfloat16)
    x = torch.randn(m, HIDDEN, **dt)
    w = torch.randn(HIDDEN, HIDDEN, **dt) * 0.02
    scale = torch.tensor([64.0], device="cuda")
    amax = [torch.zeros(1, device="cuda") for _ in range(2)]
    want = ((x.float() @ w.float().t()) * scale).clamp(-448.0, 448.0)
    return {"torch": lambda: _quantized(torch, torch.matmul(x, w.t()), scale, amax[0]),
            "tile": lambda: tile.matmul(x, w, transpose_b=True, out_dtype=torch.float8_e4m3fn,
                                        out_scale=scale, amax=amax[1])}, \
        want.to(torch.float8_e4m3fn).float()


CASES = {"mlp": mlp_case, "bias_gelu": bias_gelu_case, "residual": residual_case,
         "gated_fp8": gated_fp8_case, "linear_fp8": linear_fp8_case}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, nargs="+", default=[4096, 512, 16, 1])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = torch_or_exit("bench/epilogue.py")
    describe_device()
    rows = []
    for case in args.cases:
        for m in args.tokens:
            torch.manual_seed(0)
            sides, want = CASES[case](torch, m)
            for name, side in sides.items():
                error = relative_error(side(), want)
                assert error < 2e-2, f"{case} M={m} {name}: relative error {error}"
            names = list(sides)
            kernel = rotated_kernel_us([sides[n] for n in names], args.rounds, args.repeats)
            user = {n: user_us(sides[n], args.repeats)[0] for n in names}
            row = {"case": case, "tokens": m}
            for n, k in zip(names, kernel):
                row[f"{n}_kernel_us"] = round(k, 2)
                row[f"{n}_user_us"] = round(user[n], 2)
            row["torch_over_tile_kernel"] = round(kernel[0] / kernel[names.index("tile")], 3)
            row["torch_over_tile_user"] = round(user["torch"] / user["tile"], 3)
            rows.append(row)
            print(", ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    if args.csv:
        write_csv(rows, args.csv)


if __name__ == "__main__":
    main()
