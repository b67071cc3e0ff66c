"""The ops: PyTorch entry points on the package's kernels.

- `tile.ops.matmul`: C = A B for f16/bf16 (and the FP8 entry), the persistent
  kernels of kernels/gemm_sm90.mlir and the decode kernels;
- `tile.ops.epilogue`: the fused epilogues of the persistent kernels (bias,
  residual, activations, gating) and interleave_gate_up;
- `tile.ops.mlp`: gated_mlp, the gated MLP in two fused GEMMs;
- `tile.ops.decode`: the decode GEMM kernels (M <= 128), generated;
- `tile.ops.scaled_matmul`: scaled FP8 products, kernels/gemm_sm90_fp8.mlir;
- `tile.ops.grouped`: grouped (MoE) products, kernels/gemm_sm90_grouped.mlir;
- `tile.ops.attention`: fused attention, kernels/attention_sm90.mlir (GQA,
  causal diagonals, windows, softcap, packed sequences);
- `tile.ops.attention_backward`: tile.attention's backward (what autograd
  runs): the forward variant that saves each row's log-sum-exp,
  kernels/attention_bwd_fused_sm90.mlir's fused kernel (dQ by TMA
  reductions) and, deterministic, kernels/attention_bwd_sm90.mlir's dQ and
  dK/dV kernels;
- `tile.ops.decode_attention`: the split-KV kernels against a KV cache,
  generated, their plans, and which kernels run a call (prefers_decode);
- `tile.ops.cache_append`: the kernel appending new keys and values to a
  KV cache, generated;
- `tile.ops.kvcache`: attention_with_kvcache (contiguous and paged caches);
- `tile.ops.rms_norm`: RMSNorm and the fused residual add, one generated
  kernel per element type, row length and residual flag;
- `tile.ops.rms_norm_backward`: its derivative (what autograd runs), a
  generated kernel in the same thread layout on a persistent grid;
- `tile.ops.gated_activation`: act(gate) * up of an interleaved gate/up
  product and its derivative, generated (the gated product under autograd);
- `tile.ops.rope`: the rotary position embedding of q and k in place (Llama's
  rotate-half form), one generated kernel per element type, head dim and
  whether k is present;
- `tile.ops.persistent`: what the persistent GEMM kernels share (tiles, the
  split-K workspace).

Each op checks its operands on plain data first (tile.core.operands; a
planner that needs no GPU), caches its plans per shape, stride, dtype,
alignment and device, and gets its kernels from a tile.family.
"""
