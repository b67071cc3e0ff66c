"""The gated MLP of Llama-style decoder layers in two fused GEMMs:

    y = down(act(x gate^T) * (x up^T)) + residual

The first GEMM reads an interleaved gate/up weight (interleave_gate_up) and
writes the N/2-wide product through its gated epilogue (no separate
activation or multiply kernels, no 2N-wide intermediate in memory); the
second adds the residual in its epilogue.
"""
from .matmul import matmul


def gated_mlp(x, gate_up, down, *, activation: str = "silu", residual=None, out=None,
              stream=None):
    """`down(act(x gate^T) * (x up^T)) + residual` for x (M x D), the
    interleaved `gate_up` weight (2I x D, nn.Linear's layout, from
    tile.interleave_gate_up(gate, up)) and `down` (D x I); `activation`
    "silu" (SwiGLU) or "gelu"/"gelu_tanh" (GeGLU); `residual` (M x D) may
    be `out` itself. f16/bf16, on `stream` (default: PyTorch's current)."""
    hidden = matmul(x, gate_up, transpose_b=True, gated=True, activation=activation,
                    stream=stream)
    return matmul(hidden, down, transpose_b=True, residual=residual, out=out, stream=stream)


__all__ = ["gated_mlp"]
