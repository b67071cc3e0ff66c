"""Fused GEMM epilogues: what tile.matmul's `bias=`, `residual=`,
`activation=` and `gated=` compute, and the aliases of
kernels/gemm_sm90.mlir that compile them.

    C = act(A B + bias) + residual                     (gated=False)
    C = act(G + bias_g) * (U + bias_u) + residual      (gated=True)

in f32 on the accumulators, rounded once to C's type. With an FP8 C
(`out`), C = fp8(scale * epilogue), clamped to the format's largest
magnitude first where `saturate` (as Transformer Engine's casts; without,
arith.truncf's NaN / inf beyond it), and the largest magnitude of the
epilogue's values (before the scale) raises an amax: the next layer's
quantisation. `bias` is a vector
broadcast over the rows (N values, one per column of A B) or over the
columns (M values, one per row); `residual` is M x N_out. Gated, the
product's 8-column blocks alternate gate and up (interleave_gate_up builds
such a weight from two), and C is M x N/2: the gated MLP's hidden
activation (SwiGLU for "silu", GeGLU for "gelu") from one GEMM.

The kernel's ops: tile.warpgroup_add (bias and residual, in the
accumulators' layout) and tile.warpgroup_activation (T-TILE-10).
"""
from dataclasses import dataclass
from typing import Dict, Optional

from ..core.elements import FP8_MAX, torch_dtype
from ..core.errors import MatmulError
from . import persistent

#: The activations, as tile.warpgroup_activation names them (PyTorch's
#: relu, silu, gelu(approximate="none"), gelu(approximate="tanh")).
ACTIVATIONS = ("identity", "relu", "silu", "gelu", "gelu_tanh")
#: Columns of a gate or up block in an interleaved weight.
GATE_BLOCK = 8
#: The strides of an M x N bias view, by the bias's orientation.
BIAS_STRIDES = {"column": "0, 1", "row": "1, 0"}


@dataclass(frozen=True)
class Epilogue:
    """A fused epilogue: the bias ("column": one value per column of A B,
    "row": one per row, None), whether a residual is added, the activation
    and whether the product is gated."""
    bias: Optional[str] = None
    residual: bool = False
    activation: str = "identity"
    gated: bool = False
    #: Whether the persistent kernel reads the bias and residual in 4-byte
    #: column pairs (T-TILE-10: even column extents, row strides and
    #: addresses in elements), else element by element.
    pairs: bool = True
    #: C's 8-bit float type (tile IR: "f8E4M3FN", "f8E5M2"), "" for C in
    #: the operands' type; whether out-of-range values clamp to its largest
    #: magnitude.
    out: str = ""
    saturate: bool = True
    #: Whether the persistent kernel writes C by TMA (its rows 16-byte
    #: aligned, T-TMA-9/10), else with the accumulators' own stores (any
    #: row stride: an odd N, say).
    tma_c: bool = True

    def validate(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise MatmulError(f"tile.matmul: activation must be one of "
                              f"{', '.join(a for a in ACTIVATIONS if a != 'identity')} or "
                              f"None, got {self.activation!r}")
        if self.bias not in (None, "column", "row"):
            raise MatmulError(f"tile.matmul: bias is per 'column' or per 'row', got {self.bias!r}")
        if self.out and self.out not in FP8_MAX:
            raise MatmulError(f"tile.matmul: an 8-bit C is one of {', '.join(FP8_MAX)}, got "
                              f"{self.out!r}")

    @property
    def trivial(self) -> bool:
        """Whether C = A B (the kernel's math as written; C's stores are
        `tma_c`'s)."""
        return (self.bias, self.residual, self.activation, self.gated, self.out) == (
            None, False, "identity", False, "")

    @property
    def as_written(self) -> bool:
        """Whether the persistent kernel runs as written: C = A B, stored by
        TMA."""
        return self.trivial and self.tma_c

    @property
    def out_div(self) -> int:
        """Columns of A B per column of C."""
        return 2 if self.gated else 1


def epilogue_aliases(epilogue: Epilogue, tile_n: int) -> Dict[str, str]:
    """The aliases of kernels/gemm_sm90.mlir for `epilogue` with tiles
    `tile_n` columns wide."""
    out_n = tile_n // epilogue.out_div
    if out_n % (64 if epilogue.gated else 32):
        raise ValueError(f"a {tile_n}-wide tile's {'gated ' if epilogue.gated else ''}output is "
                         f"{out_n} columns: the epilogue stores whole chunks of 64 columns "
                         f"(gated) or of 64 or 32 (T-TILE-4)")
    # C's element: A's (16-bit) or the FP8 out's.
    c_element = epilogue.out or "!e"
    bias_strides = BIAS_STRIDES.get(epilogue.bias, "?, ?")
    if not epilogue.pairs:
        bias_strides = bias_strides.replace("1", "?")
    return {"#bias": "true" if epilogue.bias else "false",
            "#residual": "true" if epilogue.residual else "false",
            "#activation": f"#tile.activation<{epilogue.activation}>",
            "#gated": "true" if epilogue.gated else "false",
            "#out_div": f"{epilogue.out_div} : index",
            "!out": f"vector<{out_n // 2}xf32>",
            "#out_tile": f"array<i64: 64, {out_n}>",
            **persistent.store_aliases(out_n, "!ce", 1 if epilogue.out else 2, "!dc"),
            "!ce": c_element,
            "#tma_c": "true" if epilogue.tma_c else "false",
            "#quantize": "true" if epilogue.out else "false",
            "#saturate": "true" if epilogue.out and epilogue.saturate else "false",
            "#c_max": f"{FP8_MAX.get(epilogue.out, 448.0)} : f32",
            # A bias view's zero stride, static: each value is loaded once
            # for the elements that share it; a unit column stride, static,
            # loads pairs (T-TILE-10).
            "!bias": f"memref<?x?x!e, strided<[{bias_strides}], offset: ?>>",
            "!residual": f"memref<?x?x!e, strided<[?, {1 if epilogue.pairs else '?'}], "
                         "offset: ?>>"}


def interleave_gate_up(gate, up, dim: int = 0):
    """The gated GEMM's weight (or bias) from a gate and an up weight of one
    shape: along `dim` (their output dimension: 0 for nn.Linear's (out, in)
    weights, used as B^T; -1 for K x N ones), blocks of 8 alternate gate
    and up, so tile.matmul(x, w, gated=True, transpose_b=...) gives
    act(x gate^T) * (x up^T). The output dimension must be a multiple of 8."""
    import torch
    if gate.shape != up.shape:
        raise MatmulError(f"interleave_gate_up: gate and up must have one shape, got "
                          f"{tuple(gate.shape)} and {tuple(up.shape)}")
    dim = dim % gate.dim()
    n = gate.shape[dim]
    if n % GATE_BLOCK:
        raise MatmulError(f"interleave_gate_up: the output dimension ({n}) must be a "
                          f"multiple of {GATE_BLOCK}")
    shape = list(gate.shape)
    blocks = shape[:dim] + [n // GATE_BLOCK, 1, GATE_BLOCK] + shape[dim + 1:]
    paired = torch.cat([gate.reshape(blocks), up.reshape(blocks)], dim=dim + 1)
    return paired.reshape(shape[:dim] + [2 * n] + shape[dim + 1:]).contiguous()


def quantize(torch, y, epilogue: Epilogue, scale=None, amax=None):
    """An FP8 epilogue's C from the float32 `y` (the epilogue's values), as
    the kernel computes it: `amax` (float32, one element) raised to y's
    largest magnitude (NaN if y has one), C = y * scale (one element, or
    1), clamped where `saturate`, rounded to nearest even."""
    if amax is not None and y.numel():
        amax.copy_(torch.maximum(amax, y.abs().amax().reshape(amax.shape)))
    if scale is not None:
        y = y * scale.float().reshape(())
    if epilogue.saturate:
        y = y.clamp(-FP8_MAX[epilogue.out], FP8_MAX[epilogue.out])
    return y.to(torch_dtype(epilogue.out))


def apply_epilogue(torch, product, epilogue: Epilogue, bias=None, residual=None):
    """The epilogue on a float32 product A B, as the kernel computes it (the
    reference of the tests, and the result of a K = 0 call): the bias
    added, the activation (gated: of the gate blocks, times the up
    blocks), the residual added, all in float32."""
    y = product.float()
    if bias is not None:
        y = y + (bias.float().reshape(-1, 1) if epilogue.bias == "row"
                 else bias.float().reshape(1, -1))
    y = activate(torch, y, epilogue.activation, epilogue.gated)
    if residual is not None:
        y = y + residual.float()
    return y


def activate(torch, y, activation: str, gated: bool):
    """`activation` of y (M x N) in y's own type, as PyTorch's functions
    compute it; gated, of y's gate blocks times its up blocks (M x N/2).
    (apply_epilogue's step on float32 values, and the differentiable
    op-by-op form of a plain activation under autograd; a gate there is
    tile.ops.gated_activation's kernel.)"""
    F = torch.nn.functional
    act = {"identity": lambda x: x, "relu": F.relu, "silu": F.silu,
           "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh")}[activation]
    if not gated:
        return act(y)
    m, n = y.shape
    blocks = y.reshape(m, n // (2 * GATE_BLOCK), 2, GATE_BLOCK)
    return (act(blocks[:, :, 0]) * blocks[:, :, 1]).reshape(m, n // 2)
