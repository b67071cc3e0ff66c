#!/usr/bin/env bash
#===- sanitize-gemms.sh - compute-sanitizer on the GEMM examples -----------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Run on the GPU machine (after scripts/device-test.sh unpacked the tools, or
# with tile-run on PATH). Runs memcheck, racecheck and synccheck on both GEMM
# examples (the Hopper one for A B^T and A B) at a small shape (SIZE,
# default 512: M = N = K), one launch each, every element of C checked, and
# on tile.matmul's decode kernels, the Hopper GEMM with split tiles, the FP8
# kernels, the grouped kernel and the attention kernels from PyTorch, and
# the training kernels (the attention backward's three, RMSNorm's
# derivative, the gated activation and its derivative); prints each tool's
# summary. PARTS="fp8_grouped" (a subset of "examples decode split
# fp8_grouped attention training") runs only those.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TILE_RUN="${TILE_RUN:-$(command -v tile-run || echo /tmp/tile-device/bin/tile-run)}"
SIZE="${SIZE:-512}"
# Which parts run (all by default): examples decode split fp8_grouped attention.
PARTS="${PARTS:-examples decode split fp8_grouped attention training}"
WORK="$(mktemp -d)"
part() { [[ " $PARTS " == *" $1 "* ]]; }
# Runs a Python script under each tool, kernels named with a prefix only:
# sanitize_python PART LABEL KERNEL_PREFIX SCRIPT
sanitize_python() {
  part "$1" || return 0
  for tool in memcheck racecheck synccheck; do
    out="$(compute-sanitizer --tool "$tool" --kernel-name "kns=$3" python3 "$4" 2>&1)"
    echo "$2 $tool: $(echo "$out" | grep -E "relative error|max abs error|finite" | tr '\n' ' ') | $(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tr '\n' ' ')"
  done
}

small_main() { # kernel (examples/ or python/tile/kernels/), extra @run arguments and their types
  local source="$ROOT/examples/$1.mlir"
  [ -f "$source" ] || source="$ROOT/python/tile/kernels/$1.mlir"
  python3 "$ROOT/scripts/gemm-main.py" "$source" f16 "$SIZE" "$SIZE" "$SIZE" 1 false "$2" "$3"
}

small_main gemm_sm90 ", %nt" ", i1" > "$WORK/gemm_sm90_nt.mlir"
small_main gemm_sm90 ", %nn" ", i1" > "$WORK/gemm_sm90_nn.mlir"
small_main gemm_sm90_multicast "" "" > "$WORK/gemm_sm90_multicast.mlir"
small_main hgemm_sm80 ", %nn" ", i1" > "$WORK/hgemm_sm80.mlir"
for example in gemm_sm90_nt gemm_sm90_nn gemm_sm90_multicast hgemm_sm80; do
  part examples || break
  for tool in memcheck racecheck synccheck; do
    out="$(compute-sanitizer --tool "$tool" "$TILE_RUN" "$WORK/$example.mlir" --chip=sm_90a 2>&1)"
    echo "$example $tool: $(echo "$out" | grep -E "mismatches" | tr -d '\n') | $(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tr '\n' ' ')"
  done
done
# tile.matmul's decode kernels (python/tile/ops/decode.py), from PyTorch:
# M = 13 (n = 16), 1 (n = 8) and 100 (n = 128, 128 columns a CTA), N = 200,
# K = SIZE, both layouts, and with split-K (M = 13, K = 8 SIZE: 4 tiles, 4
# splits); gated (SwiGLU from an interleaved N = 528 weight: a last CTA
# with one pair of 8-row blocks, its boxes partly past the weight), with
# and without split-K; checked against torch; only the decode kernels are
# sanitized.
cat > "$WORK/decode.py" <<PY
import sys; sys.path.insert(0, "$ROOT/python")
import torch, tile
from tile.testing import relative_error
for m, k in ((13, $SIZE), (1, $SIZE), (13, 8 * $SIZE), (100, $SIZE)):
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(200, k, device="cuda", dtype=torch.float16)
    for c in (tile.matmul(a, b, transpose_b=True), tile.matmul(a, b.t().contiguous())):
        torch.cuda.synchronize()
        print(f"decode {m}x200x{k} relative error {relative_error(c, a.float() @ b.float().t()):.1e}")
for m, k in ((5, $SIZE), (5, 8 * $SIZE)):
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    gate, up = (torch.randn(264, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5 for _ in range(2))
    h = tile.matmul(x, tile.interleave_gate_up(gate, up), transpose_b=True, gated=True,
                    activation="silu")
    torch.cuda.synchronize()
    want = torch.nn.functional.silu(x.float() @ gate.float().t()) * (x.float() @ up.float().t())
    print(f"decode gated {m}x528x{k} relative error {relative_error(h, want):.1e}")
PY
sanitize_python decode "gemm_decode" gemm_decode "$WORK/decode.py"
# The Hopper GEMM with split tiles (tile.work_unit split_k; the examples'
# grids above take one CTA a tile): 4 tiles on 3 CTAs (the last in 3 K
# ranges) and 20 tiles on 6 CTAs (the last 2 in 3), K = SIZE, both
# layouts, from PyTorch, checked against torch; tile.matmul's 64-wide
# tiles, 2 x 10 of them (partial in M and N) split in 4 along K = 8 SIZE;
# and its ping-pong consumers (bias + GELU on 16 x 32 tiles of 128 x 128,
# the last row partial), both layouts.
cat > "$WORK/stream_k.py" <<PY
import sys; sys.path.insert(0, "$ROOT/python")
import torch, tile
from tile.testing import relative_error
module = tile.compile(open("$ROOT/python/tile/kernels/gemm_sm90.mlir").read(), chip="sm_90a")
for (m, n, k), ctas in (((256, 512, $SIZE), 3), ((512, 1280, $SIZE), 6)):
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    workspace = torch.empty((ctas * 1024, 128), device="cuda", dtype=torch.float32)
    counters = torch.zeros(ctas * 4, device="cuda", dtype=torch.int32)
    # The epilogue's operands, unread as written (no bias, residual, FP8 C).
    unread = (torch.empty((1, 1), device="cuda", dtype=torch.float16),) * 2 + (
        torch.zeros(1, device="cuda"), torch.zeros(1, device="cuda", dtype=torch.int32))
    for layout, operand in (("nt", b), ("nn", b.t().contiguous())):
        c = torch.empty(m, n, device="cuda", dtype=torch.float16)
        module.kernel("gemm_" + layout)(a, operand, c, m, n, k, workspace, counters,
                                         *unread, grid=(ctas, 1, 1))
        torch.cuda.synchronize()
        print(f"split tiles {layout} {m}x{n}x{k} on {ctas} CTAs relative error "
              f"{relative_error(c, a.float() @ b.float().t()):.1e}")
m, n, k = 200, 600, 8 * $SIZE
a = torch.randn(m, k, device="cuda", dtype=torch.float16)
b = torch.randn(n, k, device="cuda", dtype=torch.float16)
for c in (tile.matmul(a, b, transpose_b=True), tile.matmul(a, b.t().contiguous())):
    torch.cuda.synchronize()
    print(f"64-wide split tiles {m}x{n}x{k} relative error "
          f"{relative_error(c, a.float() @ b.float().t()):.1e}")
m, n, k = 2000, 4096, 512
a = torch.randn(m, k, device="cuda", dtype=torch.float16)
b = torch.randn(n, k, device="cuda", dtype=torch.float16) / k ** 0.5
bias = torch.randn(n, device="cuda", dtype=torch.float16)
want = torch.nn.functional.gelu(a.float() @ b.float().t() + bias.float())
for c in (tile.matmul(a, b, transpose_b=True, bias=bias, activation="gelu"),
          tile.matmul(a, b.t().contiguous(), bias=bias, activation="gelu")):
    torch.cuda.synchronize()
    print(f"ping-pong tiles {m}x{n}x{k} relative error {relative_error(c, want):.1e}")
PY
sanitize_python split "split tiles" gemm_n "$WORK/stream_k.py"
# The FP8 kernels (python/tile/kernels/gemm_sm90_fp8.mlir: persistent with a split
# tail, 2x1 clusters, block-scaled) and the grouped kernel
# (python/tile/kernels/gemm_sm90_grouped.mlir, contiguous and masked, with an empty
# group and partial row tiles), from PyTorch at small shapes.
cat > "$WORK/fp8_grouped.py" <<PY
import sys; sys.path.insert(0, "$ROOT/python")
import torch, tile
from tile.ops.scaled_matmul import FP8
from tile.testing import dequantize_fp8, quantize_fp8, relative_error
# References on the CPU: only the tile kernels run under the sanitizer.
m, n, k = 256, 512, $SIZE
x, y = torch.randn(m, k, device="cuda"), torch.randn(n, k, device="cuda")
exact = (x.cpu() @ y.cpu().t()).cuda()
for name, blocks in (("per-tensor", ((m, k), (n, k))), ("row-wise", ((1, k), (1, k))),
                     ("block", ((1, 128), (128, 128)))):
    a, sa = quantize_fp8(x, blocks[0])
    w, sb = quantize_fp8(y, blocks[1])
    c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb)
    torch.cuda.synchronize()
    print(f"fp8 {name} {m}x{n}x{k} relative error {relative_error(c, exact):.1e}")
a, sa = quantize_fp8(x, (1, k))
w, sb = quantize_fp8(y, (1, k))
c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
FP8.kernel(("f8E4M3FN", "f8E4M3FN", "bf16"), "gemm_fp8_nt_multicast")(
    a, w, c, m, n, k, sa.reshape(-1), sb.reshape(-1), grid=(4, 1, 1), cluster=(2, 1, 1))
torch.cuda.synchronize()
print(f"fp8 multicast {m}x{n}x{k} relative error {relative_error(c, exact):.1e}")
# Ping-pong consumers: 16 x 32 tiles of 128 x 128 (partial row tiles).
pm, pn = 2000, 4096
px, py = torch.randn(pm, k, device="cuda"), torch.randn(pn, k, device="cuda")
a, sa = quantize_fp8(px, (1, k))
w, sb = quantize_fp8(py, (1, k))
c = tile.matmul(a, w.t(), scale_a=sa, scale_b=sb)
torch.cuda.synchronize()
print(f"fp8 ping-pong {pm}x{pn}x{k} relative error "
      f"{relative_error(c, (px.cpu() @ py.cpu().t()).cuda()):.1e}")
counts = [100, 0, 300, 128]
xs = torch.randn(sum(counts), k, device="cuda", dtype=torch.bfloat16)
ws = torch.randn(len(counts), 256, k, device="cuda", dtype=torch.bfloat16)
ends = torch.tensor(counts, device="cuda").cumsum(0).to(torch.int32)
c = tile.grouped_matmul(xs, ws.transpose(-2, -1), ends)
torch.cuda.synchronize()
starts = [0] + ends.tolist()[:-1]
ref = torch.cat([xs[s:s + v].float().cpu() @ ws[g].float().cpu().t()
                 for g, (s, v) in enumerate(zip(starts, counts))])
print(f"grouped contiguous relative error {relative_error(c.cpu(), ref):.1e}")
x3 = torch.randn(len(counts), 300, k, device="cuda", dtype=torch.bfloat16)
valid = torch.tensor(counts, device="cuda", dtype=torch.int32)
c3 = tile.grouped_matmul(x3, ws.transpose(-2, -1), valid=valid)
torch.cuda.synchronize()
errors = [relative_error(c3[g, :v].cpu(), x3[g, :v].float().cpu() @ ws[g].float().cpu().t())
          for g, v in enumerate(counts) if v]
print(f"grouped masked relative error {max(errors):.1e}")
a8, sa8 = quantize_fp8(xs.float(), (1, k))
w8, sw8 = quantize_fp8(ws.float().reshape(-1, k), (1, k))
c8 = tile.grouped_matmul(a8, w8.reshape(ws.shape).transpose(-2, -1), ends, scale_a=sa8,
                         scale_b=sw8)
torch.cuda.synchronize()
ref8 = torch.cat([(a8[s:s + v].float() * sa8[s:s + v]).cpu()
                  @ (w8.reshape(ws.shape)[g].float() * sw8.reshape(len(counts), -1)[g, :, None]).cpu().t()
                  for g, (s, v) in enumerate(zip(starts, counts))])
print(f"grouped fp8 relative error {relative_error(c8.cpu(), ref8):.1e}")
# Block scales (1 x 128 of A, 128 x 128 of each group's B).
ab, sab = quantize_fp8(xs.float(), (1, 128))
blocks = [quantize_fp8(ws[g].float(), (128, 128)) for g in range(len(counts))]
wb = torch.stack([q for q, _ in blocks])
swb = torch.stack([s for _, s in blocks])
cb = tile.grouped_matmul(ab, wb.transpose(-2, -1), ends, scale_a=sab, scale_b=swb)
torch.cuda.synchronize()
refb = torch.cat([(dequantize_fp8(ab[s:s + v], sab[s:s + v], (1, 128)).cpu()
                   @ dequantize_fp8(wb[g], swb[g], (128, 128)).cpu().t())
                  for g, (s, v) in enumerate(zip(starts, counts))])
print(f"grouped fp8 block relative error {relative_error(cb.cpu(), refb):.1e}")
PY
sanitize_python fp8_grouped "fp8/grouped" gemm_ "$WORK/fp8_grouped.py"
# tile.attention (python/tile/kernels/attention_sm90.mlir): both head dimensions, f16
# and bf16, causal and not, an odd sequence length (edge masks, clipped
# stores) and B x H beyond one CTA's pair of tiles, checked against SDPA;
# and its KV-cache variants from attention_with_kvcache: chunks of 512
# queries against paged caches of 16, 32 and 128 tokens a page (a box a
# page's row groups, 64-row boxes in larger pages) with per-sequence
# lengths (partial last blocks and pages, slots past them not zero),
# bottom-right causal, both head dimensions.
cat > "$WORK/attention.py" <<PY
import sys; sys.path.insert(0, "$ROOT/python")
import torch, tile
for d in (64, 128):
    for dtype in (torch.float16, torch.bfloat16):
        for causal in (False, True):
            q, k, v = (torch.randn(2, 3, 333, d, device="cuda", dtype=dtype) for _ in range(3))
            o = tile.attention(q, k, v, causal=causal)
            torch.cuda.synchronize()
            ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
            print(f"attention d{d} {dtype} causal={causal} max abs error {(o.float() - ref).abs().max().item():.1e}")
b, sq, h, hkv, s = 4, 512, 8, 2, 2048
lengths = torch.tensor([600, 1100, 2048, 512], device="cuda", dtype=torch.int32)
for d in (64, 128):
    for page in (16, 32, 128):
        q = torch.randn(b, sq, h, d, device="cuda", dtype=torch.bfloat16)
        pool = b * s // page + 3
        kp, vp = (torch.randn(pool, page, hkv, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        table = torch.randperm(pool)[:b * s // page].view(b, s // page).to(device="cuda", dtype=torch.int32)
        o = tile.attention_with_kvcache(q, kp, vp, cache_seqlens=lengths, block_table=table, causal=True)
        torch.cuda.synchronize()
        error = 0.0
        for i in range(b):
            n = int(lengths[i])
            kb, vb = (c[table[i].long()].reshape(s, hkv, d)[:n].transpose(0, 1).float() for c in (kp, vp))
            mask = torch.ones(sq, n, device="cuda", dtype=torch.bool).tril(n - sq)
            ref = torch.nn.functional.scaled_dot_product_attention(q[i].transpose(0, 1).float(), kb, vb, attn_mask=mask, enable_gqa=True)
            error = max(error, (o[i].transpose(0, 1).float() - ref).abs().max().item())
        print(f"attention_with_kvcache d{d} page {page} max abs error {error:.1e}")
# The split-KV decode kernels (both consumers and their merge, the combine
# by the unit's last split, the direct store): one query a sequence, GQA
# 8/2, contiguous and paged caches, sequences of uneven lengths; a CTA one
# item each (several items a CTA: bench/NOTES.md, racecheck's reports).
for d in (64, 128):
    for page in (0, 16, 32, 128):
        q = torch.randn(b, 1, h, d, device="cuda", dtype=torch.bfloat16)
        if page:
            pool = b * s // page + 3
            kp, vp = (torch.randn(pool, page, hkv, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
            table = torch.randperm(pool)[:b * s // page].view(b, s // page).to(device="cuda", dtype=torch.int32)
            kc, vc = (c[table.long()].reshape(b, s, hkv, d) for c in (kp, vp))
        else:
            kp, vp = (torch.randn(b, s, hkv, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
            kc, vc, table = kp, vp, None
        error = 0.0
        for splits in (0, 1):
            o = tile.attention_with_kvcache(q, kp, vp, cache_seqlens=lengths, block_table=table, num_splits=splits)
            torch.cuda.synchronize()
            for i in range(b):
                n = int(lengths[i])
                kb, vb = (c[i, :n].transpose(0, 1).float() for c in (kc, vc))
                ref = torch.nn.functional.scaled_dot_product_attention(q[i].transpose(0, 1).float(), kb, vb, enable_gqa=True)
                error = max(error, (o[i].transpose(0, 1).float() - ref).abs().max().item())
        print(f"decode attention d{d} page {page} max abs error {error:.1e}")
PY
sanitize_python attention "attention" attention "$WORK/attention.py"
# FP8 attention (the e4m3 variant of attention_sm90.mlir and its V^T layout
# kernel): GQA 4/2, an odd sequence length (V^T's keys padded to 16),
# causal and not, per-head descale factors, against float32 attention of
# the dequantized inputs.
cat > "$WORK/attention_fp8.py" <<PY
import sys; sys.path.insert(0, "$ROOT/python")
import torch, tile
for causal in (False, True):
    q, k, v = (torch.randn(2, h, 333, 128, device="cuda") for h in (4, 2, 2))
    # One factor a (batch, KV head): q's over the KV head's two query heads.
    scales = [x.unflatten(1, (2, -1)).abs().amax(dim=(2, 3, 4)) / 448 for x in (q, k, v)]
    q8, k8, v8 = (x.div(s.repeat_interleave(x.shape[1] // 2, 1)[:, :, None, None]).to(torch.float8_e4m3fn) for x, s in zip((q, k, v), scales))
    o = tile.attention(q8, k8, v8, causal=causal, enable_gqa=True, q_descale=scales[0], k_descale=scales[1], v_descale=scales[2])
    torch.cuda.synchronize()
    qd, kd, vd = (x.float() * s.repeat_interleave(x.shape[1] // 2, 1)[:, :, None, None] for x, s in zip((q8, k8, v8), scales))
    ref = torch.nn.functional.scaled_dot_product_attention(qd, kd, vd, is_causal=causal, enable_gqa=True)
    print(f"attention fp8 causal={causal} max abs error {(o.float() - ref).abs().max().item():.1e}")
PY
sanitize_python attention "attention fp8" attention "$WORK/attention_fp8.py"
sanitize_python attention "fp8 V layout" fp8_v_layout "$WORK/attention_fp8.py"
# The training kernels, from PyTorch at small odd shapes: the attention
# forward that saves the log-sum-exps and the backward (GQA 4/2, Sq = 200
# and Sk = 330: a partial last query tile and key block, both causal
# diagonals, D = 64 and 128, the fused kernel and the deterministic mode's
# two; packed sequences both ways, the forward's packed units too), RMSNorm's derivative
# (51 rows of 4096, a CTA a row, and of 200, rows sharing a CTA; with h's
# own gradient) and the gated activation both ways (3 rows of 48).
cat > "$WORK/training.py" <<PY
import math, sys; sys.path.insert(0, "$ROOT/python")
import torch
from tile.ops import attention_backward as ab
from tile.ops.gated_activation import gated_activation, gated_activation_backward
from tile.ops.rms_norm_backward import rms_norm_backward
for d in (64, 128):
    for kind in ("top_left", "bottom_right", None):
        q = torch.randn(1, 4, 200, d, device="cuda", dtype=torch.bfloat16)
        k, v = (torch.randn(1, 2, 330, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
        o, nlse = ab.forward(torch, q, k, v, kind, None, True)
        for deterministic in (False, True):
            dq, dk, dv = ab.backward(torch, torch.randn_like(o), q, k, v, o, nlse, kind, None,
                                     deterministic)
            torch.cuda.synchronize()
            print(f"attention backward d{d} {kind} deterministic={deterministic}: finite {bool(dq.isfinite().all() and dk.isfinite().all() and dv.isfinite().all())}")
    # Packed sequences (the fused kernel): empty, 1-token and partial-tile
    # sequences, more keys than queries, rows past the last sequence.
    cu_q = torch.tensor([0, 0, 1, 201, 278], device="cuda", dtype=torch.int32)
    cu_k = torch.tensor([0, 5, 6, 336, 436], device="cuda", dtype=torch.int32)
    q = torch.randn(280, 4, d, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(440, 2, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    o, nlse = ab.forward_varlen(torch, q, k, v, cu_q, cu_k, 200, "bottom_right", None, True)
    for deterministic in (False, True):
        dq, dk, dv = ab.backward_varlen(torch, torch.randn_like(o), q, k, v, o, nlse, cu_q,
                                        cu_k, 200, 330, "bottom_right", None, deterministic)
        torch.cuda.synchronize()
        print(f"attention backward varlen d{d} deterministic={deterministic}: finite {bool(dq.isfinite().all() and dk.isfinite().all() and dv.isfinite().all())}")
for hidden in (4096, 200):
    h, dy, dh = (torch.randn(51, hidden, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    w = torch.rand(hidden, device="cuda", dtype=torch.bfloat16)
    dx, dw = rms_norm_backward(torch, dy, h, w, 1e-6, dh)
    torch.cuda.synchronize()
    print(f"rms_norm_backward {hidden}: finite {bool(dx.isfinite().all() and dw.isfinite().all())}")
z = torch.randn(3, 48, device="cuda", dtype=torch.bfloat16)
y = gated_activation(torch, z, "silu")
dz = gated_activation_backward(torch, z, torch.randn_like(y), "gelu_tanh")
torch.cuda.synchronize()
print(f"gated activation: finite {bool(y.isfinite().all() and dz.isfinite().all())}")
PY
sanitize_python training "training/attention forward and backward" attention "$WORK/training.py"
sanitize_python training "training/rms_norm backward" rms_norm_backward "$WORK/training.py"
sanitize_python training "training/gated activation" gated_ "$WORK/training.py"
rm -rf "$WORK"
