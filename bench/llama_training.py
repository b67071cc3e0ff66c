#!/usr/bin/env python3
"""A training step of a Llama-3 decoder layer: tile's entry points under
autograd against PyTorch's layer (cuBLAS + SDPA).

    PYTHONPATH=python python3 bench/llama_training.py [--configs 8b] [--tokens 4096]
                                                      [--repeats 10] [--compile] [--breakdown N]
                                                      [--csv FILE]

The layer, weights and inputs of bench/llama_layer.py (prefill, batch 1,
causal), every weight and x requiring grad. A step is the layer's forward
and out.backward(dY) for a fixed dY. The sides:
  - torch: llama_layer.layer with torch.matmul and SDPA (enable_gqa; its
    own backend choice), F.rms_norm, rotate-half RoPE, SiLU * up;
  - tile: tile.rms_norm, tile.matmul (the QKV product; o and down with their
    residual adds; the gate/up product gated, on the interleaved weight),
    tile.rope in place on slices of the QKV product, tile.attention (causal,
    GQA) with its backward kernels; their derivatives are tile.library's.
First the outputs' and gradients' relative error of tile against torch
(‖tile − torch‖ / ‖torch‖; above 3e-2 prints WRONG). Then, per side, the
user path (CUDA events around --repeats back-to-back calls) of the
training forward alone (its graph built and dropped: tile's ops through
their autograd operators), of the whole step (backward = step - training
forward) and of the inference forward (under no_grad: tile's fused fast
paths), eager and, with --compile, through torch.compile (fullgraph for
tile's side), and the step's kernel time from CUPTI (every side's step in
the same rotated rounds, medians; bench/harness.py).
"""
import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
import llama_layer  # noqa: E402

import tile  # noqa: E402

TOLERANCE = 3e-2


def tile_layer(torch, x, w, model):
    """The layer on tile's entry points (x: (S, hidden); slices of the QKV
    product, which autograd lets tile.rope rotate in place)."""
    hd, tokens = model.head_dim, x.shape[0]
    qkv = tile.matmul(tile.rms_norm(x, w["attn_norm"], llama_layer.EPS), w["qkv"],
                      transpose_b=True)
    widths = (model.heads * hd, model.kv_heads * hd, model.kv_heads * hd)
    starts = (0, widths[0], widths[0] + widths[1])
    q, k, v = (qkv[:, s:s + n].view(1, tokens, -1, hd) for s, n in zip(starts, widths))
    tile.rope(q, k, w["cos"], w["sin"])
    attended = tile.attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                              causal=True, enable_gqa=True)
    attended = attended.transpose(1, 2).reshape(tokens, -1)
    h = tile.matmul(attended, w["o"], transpose_b=True, residual=x)
    hidden = tile.matmul(tile.rms_norm(h, w["mlp_norm"], llama_layer.EPS),
                         w["gate_up_interleaved"], transpose_b=True, gated=True,
                         activation="silu")
    return tile.matmul(hidden, w["down"], transpose_b=True, residual=h)


def torch_layer(torch, x, w, model):
    F = torch.nn.functional
    tables = (w["cos"][None, :, None, :], w["sin"][None, :, None, :])

    def attend(q, k, v):
        out = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                             v.transpose(1, 2), is_causal=True, enable_gqa=True)
        return out.transpose(1, 2).reshape(q.shape[0] * q.shape[1], -1)
    return llama_layer.layer(torch, x, w, model, 1, tables, lambda a, b: torch.matmul(a, b.t()),
                             attend)


def relative(torch, mine, theirs) -> float:
    return ((mine.float() - theirs.float()).norm() / theirs.float().norm()).item()


def events_us(run, repeats: int) -> float:
    """Mean µs per call of `repeats` back-to-back calls between CUDA events
    (harness.median_ms, batched), the median of 3 such measurements."""
    return statistics.median(harness.median_ms(run, runs=repeats, warmup=1, batched=True)
                             for _ in range(3)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configs", nargs="+", default=["8b"], choices=list(llama_layer.CONFIGS))
    parser.add_argument("--tokens", nargs="+", type=llama_layer.length, default=[4096])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compile", action="store_true",
                        help="also both sides through torch.compile")
    parser.add_argument("--breakdown", type=int, default=0, metavar="N",
                        help="print each side's N costliest kernels of a step")
    parser.add_argument("--csv")
    args = parser.parse_args()
    torch = harness.torch_or_exit("llama_training.py")
    harness.describe_device()
    rows = []
    for name in args.configs:
        model = llama_layer.CONFIGS[name]
        base = llama_layer.with_interleaved(llama_layer.make_weights(torch, model, seed=0))
        for tokens in args.tokens:
            cos, sin = (t[0, :, 0, :].contiguous() for t in
                        llama_layer.rope_tables(torch, 0, tokens, model.head_dim))
            generator = torch.Generator(device="cuda").manual_seed(1)
            x0 = torch.randn(tokens, model.hidden, device="cuda", dtype=torch.bfloat16,
                             generator=generator)
            dy = torch.randn(x0.shape, device="cuda", dtype=torch.bfloat16,
                             generator=generator)
            leaves = {k: v.detach().clone().requires_grad_() for k, v in base.items()}
            x = x0.clone().requires_grad_()
            w = dict(leaves, cos=cos, sin=sin)
            sides = {"torch": lambda: torch_layer(torch, x, w, model),
                     "tile": lambda: tile_layer(torch, x, w, model)}
            if args.compile:
                sides["torch compiled"] = torch.compile(sides["torch"])
                sides["tile compiled"] = torch.compile(sides["tile"], fullgraph=True)
            # Correctness: outputs and gradients against torch's (the
            # interleaved gate/up weight's against torch's gate and up).
            grads = {}
            for side, forward in sides.items():
                for leaf in list(leaves.values()) + [x]:
                    leaf.grad = None
                out = forward()
                out.backward(dy)
                grads[side] = (out.detach(), x.grad.clone(),
                               {k: v.grad.clone() for k, v in leaves.items()
                                if v.grad is not None})
            ref_out, ref_dx, ref_dw = grads["torch"]
            gate, up = ref_dw["gate_up"].chunk(2)
            ref_dw = dict(ref_dw, gate_up_interleaved=tile.interleave_gate_up(gate, up))
            errors = {}
            for side, (out, dx, dw) in grads.items():
                worst = max([relative(torch, out, ref_out), relative(torch, dx, ref_dx)]
                            + [relative(torch, dw[k], ref_dw[k]) for k in dw])
                errors[side] = worst
            # Timing: the training forward alone (its graph built, then
            # dropped), the whole step, and the inference forward (no grad);
            # then every side's step by CUPTI in the same rotated rounds (the
            # power-limited clock drifts over a run: no side is measured
            # only first or only last).
            steps = {}
            for side, forward in sides.items():
                def step(forward=forward):
                    forward().backward(dy)

                def inference(forward=forward):
                    with torch.no_grad():
                        forward()
                forward_us = events_us(forward, args.repeats)
                inference_us = events_us(inference, args.repeats)
                step_us = events_us(step, args.repeats)
                steps[side] = step
                rows.append({"card": torch.cuda.get_device_name(), "config": name,
                             "tokens": tokens, "side": side, "forward_us": forward_us,
                             "inference_forward_us": inference_us, "step_us": step_us,
                             "backward_us": step_us - forward_us,
                             "max_rel_error_vs_torch": errors[side]})
            kernels = harness.rotated_kernel_us(list(steps.values()), args.rounds, args.repeats)
            for row, kernel in zip(rows[-len(sides):], kernels):
                row["step_kernel_us"] = kernel
                side = row["side"]
                flag = " WRONG" if errors[side] > TOLERANCE else ""
                print(f"{name} {tokens:6d} {side:15s} inference "
                      f"{row['inference_forward_us']:9.1f} µs  forward {row['forward_us']:9.1f} "
                      f"µs  backward {row['backward_us']:9.1f} µs  step {row['step_us']:9.1f} µs  "
                      f"(CUPTI {kernel:9.1f})  error {errors[side]:.2e}{flag}", flush=True)
                if args.breakdown:
                    for kernel_name, us in list(harness.kernel_breakdown(
                            steps[side], args.repeats).items())[:args.breakdown]:
                        print(f"    {us:9.1f} µs  {kernel_name[:110]}")
            eager = {r["side"]: r for r in rows[-len(sides):]}
            for part in ("inference_forward_us", "forward_us", "backward_us", "step_us",
                         "step_kernel_us"):
                print(f"  torch / tile {part[:-3]:17s} "
                      f"{eager['torch'][part] / eager['tile'][part]:.3f}"
                      + (f"   compiled {eager['torch compiled'][part] / eager['tile compiled'][part]:.3f}"
                         if args.compile else ""))
    if args.csv:
        harness.write_csv(rows, args.csv)


if __name__ == "__main__":
    main()
