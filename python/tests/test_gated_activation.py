"""tile.ops.gated_activation: the kernels compiled to PTX and assembled by
ptxas without spills (no GPU); on the GPU, act(gate) * up and its
derivative against float32 PyTorch on interleaved products of odd shapes
and padded pitches, and the errors."""
import pytest

from tile.core.errors import OperandError
from tile.lit_runner import find_ptxas
from tile.ops.epilogue import GATE_BLOCK
from tile.ops.gated_activation import (GATE_ACTIVATIONS, GATED_ACTIVATION,
                                       GatedActivationConfig, gated_activation,
                                       gated_activation_backward, gated_activation_source)
from tile.testing import ptxas_spills


@pytest.mark.parametrize("backward", (False, True), ids=("forward", "backward"))
def test_kernels_compile_without_spills(backward, tmp_path):
    """Two 16-byte loads of z (and one of dy), one 16-byte store of y (two
    of dz) a thread, for every activation; ptxas spills nothing."""
    ptxas = find_ptxas()
    for activation in GATE_ACTIVATIONS:
        config = GatedActivationConfig("bf16", activation, backward)
        ptx = GATED_ACTIVATION.module(config).ptx
        assert ptx.count("ld.global.v4.b32") == (3 if backward else 2), activation
        assert ptx.count("st.global.v4.b32") == (2 if backward else 1), activation
        if ptxas is not None:
            report = ptxas_spills(ptxas, ptx, str(tmp_path))
            assert report is None, (activation, report)


def test_config_is_validated():
    with pytest.raises(ValueError, match="must be one of relu, silu, gelu, gelu_tanh"):
        gated_activation_source(GatedActivationConfig("bf16", "identity"))
    with pytest.raises(ValueError, match="element must be f16 or bf16"):
        gated_activation_source(GatedActivationConfig("f32"))


# --- On the GPU ---------------------------------------------------------------------

def _reference(torch, z, activation):
    """act(gate) * up in float32 with PyTorch's functions (z: float32)."""
    F = torch.nn.functional
    act = {"silu": F.silu, "gelu": F.gelu, "relu": F.relu,
           "gelu_tanh": lambda x: F.gelu(x, approximate="tanh")}[activation]
    m, n = z.shape
    blocks = z.reshape(m, n // (2 * GATE_BLOCK), 2, GATE_BLOCK)
    return (act(blocks[:, :, 0]) * blocks[:, :, 1]).reshape(m, n // 2)


@pytest.mark.parametrize("activation", GATE_ACTIVATIONS)
@pytest.mark.parametrize("m, n, pitch", [(1, 16, 16), (3, 48, 64), (257, 1040, 1040),
                                         (4097, 512, 520)])
def test_against_float32_autograd(torch_cuda, activation, m, n, pitch):
    """y and dz within a bf16 rounding of float32 autograd's (z of rows
    `pitch` apart: a view of a wider buffer)."""
    torch = torch_cuda
    generator = torch.Generator(device="cuda").manual_seed(m + n)
    buffer = torch.randn(m, pitch, device="cuda", generator=generator) * 3
    z = buffer.bfloat16()[:, :n]
    dy = torch.randn(m, n // 2, device="cuda", generator=generator).bfloat16()
    y = gated_activation(torch, z, activation)
    dz = gated_activation_backward(torch, z, dy, activation)
    exact = z.float().requires_grad_()
    want = _reference(torch, exact, activation)
    want.backward(dy.float())
    assert y.shape == (m, n // 2) and dz.shape == (m, n) and dz.dtype == z.dtype
    for got, expected in ((y, want.detach()), (dz, exact.grad)):
        error = (got.float() - expected).abs()
        assert (error <= 2 ** -7 * expected.abs() + 1e-3).all(), (activation, error.max())


def test_errors(torch_cuda):
    torch = torch_cuda
    z = torch.randn(4, 32, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(OperandError, match="N a multiple of 16"):
        gated_activation(torch, z[:, :24], "silu")
    with pytest.raises(OperandError, match="the gate's activation is one of"):
        gated_activation(torch, z, "tanh")
    with pytest.raises(OperandError, match=r"dy must be \(M, N/2\) = \(4, 16\)"):
        gated_activation_backward(torch, z, torch.randn(4, 32, device="cuda",
                                                        dtype=torch.bfloat16), "silu")
    with pytest.raises(OperandError, match="contiguous rows of whole 16-byte vectors"):
        gated_activation(torch, z.t().contiguous().t(), "silu")
