"""tile.attention (python/tile/kernels/attention_sm90.mlir) against PyTorch's SDPA: both
head dimensions, f16 and bf16, causal and not, odd lengths with Sq != Sk,
and a (B, S, H, D) layout read in place. An output is "ok" when its largest
error against SDPA in float32 is at most twice that of SDPA's own 16-bit
result (or 2e-3, whichever is larger)."""
import torch
import tile

torch.manual_seed(0)
for d in (64, 128):
    for dtype in (torch.float16, torch.bfloat16):
        for causal in (False, True):
            for sq, sk, transposed in ((333, 333, False), (200, 77, True)):
                shape = (2, sq, 3, d) if transposed else (2, 3, sq, d)
                q = torch.randn(shape, device="cuda", dtype=dtype)
                k, v = (torch.randn(2, 3, sk, d, device="cuda", dtype=dtype) for _ in range(2))
                if transposed:
                    q = q.transpose(1, 2)
                o = tile.attention(q, k, v, causal=causal)
                sdpa = torch.nn.functional.scaled_dot_product_attention
                ref = sdpa(q.float(), k.float(), v.float(), is_causal=causal)
                error = (o.float() - ref).abs().max().item()
                bound = max(2 * (sdpa(q, k, v, is_causal=causal).float() - ref).abs().max().item(),
                            2e-3)
                print(f"d{d} {str(dtype)[6:]} causal={int(causal)} {sq}x{sk}"
                      f"{' transposed' if transposed else ''}: error {error:.1e} bound "
                      f"{bound:.1e} {'ok' if error <= bound else 'WRONG'}")
