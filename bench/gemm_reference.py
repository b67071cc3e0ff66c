#!/usr/bin/env python3
#===- gemm_reference.py - cuBLAS and Triton times for bench/gemm.sh ---------===#
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
#   gemm_reference.py TYPE M N K LAYOUT BATCHED
# Times C = A B^T (LAYOUT nt, B is N x K) or C = A B (nn) on the tile
# benchmarks' inputs, ((p i + q j) mod 5) - 2, through cuBLAS (torch.matmul)
# and, where Triton is installed, a Triton matmul (autotuned over a few
# Hopper-sized configurations; its result is checked against cuBLAS). Each:
# 5 warm-up runs, then 20 timed runs with CUDA events, the median; with
# BATCHED = 1 (short kernels), events around 20 back-to-back runs instead,
# divided by 20. Prints "cublas_ms triton_ms" (triton_ms is nan without
# Triton).
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from tile.testing import median_ms  # noqa: E402

type_, m, n, k, layout, batched = (sys.argv[1], *map(int, sys.argv[2:5]),
                                   sys.argv[5], sys.argv[6] == "1")
dtype = torch.float16 if type_ == "f16" else torch.bfloat16


def fill(rows, cols, p, q):
    i = torch.arange(rows, device="cuda").view(-1, 1)
    j = torch.arange(cols, device="cuda").view(1, -1)
    return ((p * i + q * j) % 5 - 2).to(dtype)


a = fill(m, k, 3, 7)
b = fill(n, k, 2, 3).t() if layout == "nt" else fill(k, n, 7, 2)


cublas = median_ms(lambda: a @ b, batched=batched)

triton_ms = math.nan
try:
    import triton
    import triton.language as tl

    configs = [
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "G": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 256, "BK": 32, "G": 8}, num_stages=4, num_warps=4),
        triton.Config({"BM": 64, "BN": 64, "BK": 64, "G": 8}, num_stages=4, num_warps=4),
    ]

    @triton.autotune(configs=configs, key=["M", "N", "K"])
    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
        pid = tl.program_id(0)
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        in_group = G * tiles_n
        first_m = (pid // in_group) * G
        group_m = min(tiles_m - first_m, G)
        pid_m = first_m + (pid % in_group) % group_m
        pid_n = (pid % in_group) // group_m
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k0 in range(0, tl.cdiv(K, BK)):
            kk = k0 * BK + rk
            x = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak,
                        mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
            y = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn,
                        mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(x, y, acc)
        tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn,
                 acc.to(c_ptr.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    c = torch.empty(m, n, device="cuda", dtype=dtype)

    def run():
        grid = lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)
        matmul[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                     b.stride(1), c.stride(0), c.stride(1))

    run()
    if not torch.allclose(c.float(), (a @ b).float(), rtol=1e-2, atol=1e-2):
        raise RuntimeError("Triton's result differs from cuBLAS")
    triton_ms = median_ms(run, batched=batched)
except ImportError:
    pass
print(f"{cublas:.4f} {triton_ms:.4f}")
