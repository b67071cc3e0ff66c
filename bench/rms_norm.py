"""tile.rms_norm against PyTorch's eager composite and against a
device-to-device copy of the same bytes, bf16.

    PYTHONPATH=python python3 bench/rms_norm.py [--rows 1 16 128 4096 16384]
        [--hidden 4096 8192] [--mode plain fused fp8 backward] [--csv out.csv]

Each case is rows x H, without the residual ("plain": y = RMSNorm(x) * w)
and with it ("fused": h = x + r, y = RMSNorm(h) * w, both written), and
quantized per row for an FP8 GEMM ("fp8": y in e4m3 with its row scales,
`tile.rms_norm(x, w, eps, out_dtype=torch.float8_e4m3fn)` against the
float32 composite, each row's amax, the scale, the division and the cast,
as vLLM's unfused path; the copy moves x and w read, y's bytes and the
scales written), and the derivative ("backward": tile.ops.rms_norm_backward
from dy, h and h's own gradient — the residual form's, as in a pre-norm
layer — against `torch.autograd.grad` of F.rms_norm, PyTorch's fused
backward kernels, for dx and dw; the copy moves h, dy, dh_out read and dx
written). The sides:
  - tile: `tile.rms_norm(x, w, eps)` / `tile.rms_norm(x, w, eps, residual=r)`;
  - torch: the op-by-op eager composite of Llama's RMSNorm,
    `xf = x.float(); xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)`,
    cast to bf16, times w (with `h = x + r` first when fused);
  - copy: `dst.copy_(src)`, one cudaMemcpyAsync moving as many bytes as
    the kernel must (src holds half of tile's bytes read + written: x and
    w read, y written; x, r, w read, h, y written), the bandwidth ceiling of
    a kernel that reads and writes each byte once.
Kernel time from CUPTI (harness.rotated_kernel_us: the median of --rounds
rotated rounds of --repeats back-to-back calls; the copy's memcpy records
count): each side's GB/s (tile's bytes over its time; torch's kernels move
more) and the fraction of the copy's bandwidth (copy time / side time).
User path: CUDA events around --repeats back-to-back calls as a user makes
them (new outputs), tile against torch. Results are checked against a
float32 reference first.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import (MEMORY_BOUND_HEADER, describe_device, memory_bound_line,  # noqa: E402
                     memory_bound_row, torch_or_exit, write_csv)

import tile  # noqa: E402  (harness put python/ on sys.path)

EPS = 1e-6


def torch_rms_norm(torch, x, w, eps: float, r=None):
    """Llama's RMSNorm as eager PyTorch ops (after h = x + r): (y, h)."""
    h = x if r is None else x + r
    hf = h.float()
    y = (hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * w
    return y, h


def torch_rms_norm_fp8(torch, x, w, eps: float):
    """RMSNorm in float32, quantized per row to e4m3: (y, scales)."""
    xf = x.float()
    y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()
    scales = (y.abs().amax(-1, keepdim=True) / 448.0).clamp_min(1 / (448.0 * 512))
    return (y / scales).to(torch.float8_e4m3fn), scales


def check_fp8(torch, x, w) -> None:
    """tile's FP8 y and scales against the float32 composite's."""
    y, scales = tile.rms_norm(x, w, EPS, out_dtype=torch.float8_e4m3fn)
    want, want_scales = torch_rms_norm_fp8(torch, x, w, EPS)
    torch.testing.assert_close(scales, want_scales, rtol=1e-5, atol=0)
    mismatched = (y.float() != want.float()).float().mean().item()
    assert mismatched < 1e-2, f"tile.rms_norm FP8: {mismatched:.2%} of y differs"


def check(torch, x, w, r) -> None:
    """tile's y (and h) against a float32 reference: within a bf16 rounding."""
    got = tile.rms_norm(x, w, EPS, residual=r)
    y, h = got if r is not None else (got, x)
    want_h = x if r is None else x + r
    hf = want_h.float()
    want = hf * torch.rsqrt(hf.pow(2).mean(-1, keepdim=True) + EPS) * w.float()
    error = ((y.float() - want).abs() / want.abs().clamp_min(1.0)).max().item()
    assert error <= 2 ** -7, f"tile.rms_norm: relative error {error} against float32"
    assert torch.equal(h, want_h), "tile.rms_norm: h differs from x + r"


def backward_sides(torch, h, w, dy, dh_out):
    """tile's and torch's RMSNorm derivative (dx = dh + dh_out, dw), after
    checking tile's against float32 autograd: within a bf16 rounding of
    dx's magnitude and 1e-2 of dw's."""
    from tile.ops.rms_norm_backward import rms_norm_backward
    F = torch.nn.functional
    hf, wf = h.float().requires_grad_(), w.float().requires_grad_()
    want_dh, want_dw = torch.autograd.grad(F.rms_norm(hf, (h.shape[-1],), wf, EPS), (hf, wf),
                                           dy.float())
    dx, dw = rms_norm_backward(torch, dy, h, w, EPS, dh_out)
    want_dx = want_dh + dh_out.float()
    error = ((dx.float() - want_dx).abs().max() / want_dx.abs().max()).item()
    assert error <= 2 ** -7, f"rms_norm_backward: dx relative error {error}"
    error = ((dw.float() - want_dw).norm() / want_dw.norm()).item()
    assert error <= 1e-2, f"rms_norm_backward: dw relative error {error}"
    hr, wr = h.clone().requires_grad_(), w.clone().requires_grad_()
    y = F.rms_norm(hr, (h.shape[-1],), wr, EPS)

    def theirs():
        dh, dw = torch.autograd.grad(y, (hr, wr), dy, retain_graph=True)
        return dh + dh_out, dw
    return (lambda: rms_norm_backward(torch, dy, h, w, EPS, dh_out)), theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1, 16, 128, 4096, 16384])
    parser.add_argument("--hidden", type=int, nargs="+", default=[4096, 8192])
    parser.add_argument("--mode", nargs="+", choices=("plain", "fused", "fp8", "backward"),
                        default=["plain", "fused", "fp8"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = torch_or_exit("bench/rms_norm.py")
    describe_device()
    bf16 = dict(device="cuda", dtype=torch.bfloat16)
    table = []
    print(f"{'case':26s} {MEMORY_BOUND_HEADER}")
    for mode in args.mode:
        fused = mode == "fused"
        for hidden in args.hidden:
            for rows in args.rows:
                x = torch.randn(rows, hidden, **bf16)
                w = torch.randn(hidden, **bf16)
                r = torch.randn(rows, hidden, **bf16) if fused else None
                row_bytes = rows * hidden * 2
                moved = (4 if fused else 2) * row_bytes + hidden * 2
                if mode == "backward":
                    moved = 4 * row_bytes + hidden * 2
                    dy, dh_out = torch.randn_like(x), torch.randn_like(x)
                    ours, theirs = backward_sides(torch, x, w, dy, dh_out)
                elif mode == "fp8":
                    check_fp8(torch, x, w)
                    moved = row_bytes * 3 // 2 + hidden * 2 + rows * 4
                    ours = lambda: tile.rms_norm(  # noqa: E731
                        x, w, EPS, out_dtype=torch.float8_e4m3fn)
                    theirs = lambda: torch_rms_norm_fp8(torch, x, w, EPS)  # noqa: E731
                elif fused:
                    check(torch, x, w, r)
                    ours = lambda: tile.rms_norm(x, w, EPS, residual=r)  # noqa: E731
                    theirs = lambda: torch_rms_norm(torch, x, w, EPS, r)  # noqa: E731
                else:
                    check(torch, x, w, r)
                    ours = lambda: tile.rms_norm(x, w, EPS)  # noqa: E731
                    theirs = lambda: torch_rms_norm(torch, x, w, EPS)  # noqa: E731
                row = {"mode": mode, "rows": rows, "hidden": hidden,
                       **memory_bound_row(torch, ours, theirs, moved, args.rounds, args.repeats)}
                table.append(row)
                print(f"{mode + f' {rows} x {hidden}':26s} {memory_bound_line(row)}", flush=True)
    if args.csv:
        write_csv(table, args.csv)


if __name__ == "__main__":
    main()
