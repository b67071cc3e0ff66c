"""The gated MLP's activation on an interleaved gate/up product, and its
derivative: two generated elementwise tile kernels (training's form of
tile.matmul(..., gated=True), whose forward keeps the product for the
backward).

    y = gated_activation(torch, z, "silu")              # (M, N) -> (M, N/2)
    dz = gated_activation_backward(torch, z, dy, "silu")

z is M x N of float16 or bfloat16 (rows contiguous, any 16-byte pitch) whose
8-column blocks alternate gate and up (tile.interleave_gate_up's layout,
tile.ops.epilogue.GATE_BLOCK), N a multiple of 16. With a = act(gate):

    y = a * up                                        (M x N/2)
    d gate = dy * up * act'(gate),  d up = dy * a     (interleaved as z)

in f32, rounded once to z's type (PyTorch's op-by-op form rounds act(gate)
and the product separately). The activations are the fused epilogue's, as
PyTorch defines them: "silu" (SwiGLU), "gelu" (erf), "gelu_tanh" (GeGLU's
tanh approximation), "relu" (its derivative 0 at 0, as PyTorch's). A thread
takes one gate/up pair of blocks: two 16-byte loads of z (and one of dy),
one 16-byte store of y (two of dz); a 1-D grid of 256-thread CTAs over
M x N/16 pairs, 64-bit offsets.

    python3 -m tile gated-activation [--activation silu] [--backward]
"""
from dataclasses import dataclass
from typing import Tuple

from ..core.elements import FLOAT16_TYPES, of_torch
from ..core.errors import OperandError
from ..core.operands import (cdiv, operand_of, require_alike, require_cuda_tensors,
                             require_vector_rows)
from ..family import KernelFamily
from .epilogue import ACTIVATIONS, GATE_BLOCK
from .kernel_text import index_constants, kernel_module, linear_ids

WHAT = "tile.matmul (gated, under autograd)"
#: Threads of a CTA.
THREADS = 256
#: The activations a gate takes (the epilogue's but identity).
GATE_ACTIVATIONS = tuple(a for a in ACTIVATIONS if a != "identity")
#: The most CTAs of a grid (its x extent).
MAX_GRID = 2 ** 31 - 1


@dataclass(frozen=True)
class GatedActivationConfig:
    """One kernel: its element type ("f16"/"bf16"), activation, and whether
    it is the derivative."""
    element: str = "bf16"
    activation: str = "silu"
    backward: bool = False

    @property
    def name(self) -> str:
        """The kernel's name in its module."""
        return f"gated_{self.activation}" + ("_backward" if self.backward else "")

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"gated activation element must be f16 or bf16, got "
                             f"{self.element}")
        if self.activation not in GATE_ACTIVATIONS:
            raise ValueError(f"gated activation must be one of {', '.join(GATE_ACTIVATIONS)}, "
                             f"got {self.activation}")


def _constant(emit, name: str, value: float, wide: str) -> str:
    emit(f"%{name} = arith.constant dense<{value!r}> : {wide}")
    return f"%{name}"


def _activation(emit, activation: str, g: str, wide: str, derivative: bool) -> Tuple[str, str]:
    """(act(g), act'(g) or "") of the f32 vector `g`, as PyTorch defines
    them (act' only with `derivative`)."""
    one = _constant(emit, "one", 1.0, wide)
    if activation == "relu":
        zero = _constant(emit, "zero", 0.0, wide)
        emit(f"%act = arith.maximumf {g}, {zero} : {wide}")
        if not derivative:
            return "%act", ""
        emit(f"%positive = arith.cmpf ogt, {g}, {zero} : {wide}")
        emit(f"%slope = arith.select %positive, {one}, {zero} : "
             f"vector<{GATE_BLOCK}xi1>, {wide}")
        return "%act", "%slope"
    if activation == "silu":
        # s = 1 / (1 + e^-g), act = g s, act' = s (1 + g (1 - s)).
        emit(f"%negated = arith.negf {g} : {wide}")
        emit(f"%exp = math.exp %negated fastmath<afn> : {wide}")
        emit(f"%denominator = arith.addf {one}, %exp : {wide}")
        emit(f"%act = arith.divf {g}, %denominator fastmath<afn> : {wide}")
        if not derivative:
            return "%act", ""
        emit(f"%sigmoid = arith.divf {one}, %denominator fastmath<afn> : {wide}")
        emit(f"%complement = arith.subf {one}, %sigmoid : {wide}")
        emit(f"%g_complement = arith.mulf {g}, %complement : {wide}")
        emit(f"%factor = arith.addf {one}, %g_complement : {wide}")
        emit(f"%slope = arith.mulf %sigmoid, %factor : {wide}")
        return "%act", "%slope"
    half = _constant(emit, "half", 0.5, wide)
    emit(f"%half_g = arith.mulf {g}, {half} : {wide}")
    if activation == "gelu":
        # act = g/2 (1 + erf(g / sqrt 2)), act' = (1 + erf)/2 + g e^(-g^2/2) / sqrt(2 pi).
        rsqrt2 = _constant(emit, "rsqrt2", 0.7071067811865476, wide)
        emit(f"%scaled = arith.mulf {g}, {rsqrt2} : {wide}")
        emit(f"%erf = math.erf %scaled : {wide}")
        emit(f"%one_erf = arith.addf {one}, %erf : {wide}")
        emit(f"%act = arith.mulf %half_g, %one_erf : {wide}")
        if not derivative:
            return "%act", ""
        emit(f"%cdf = arith.mulf %one_erf, {half} : {wide}")
        emit(f"%square = arith.mulf {g}, {g} : {wide}")
        emit(f"%half_square = arith.mulf %square, {half} : {wide}")
        emit(f"%negated = arith.negf %half_square : {wide}")
        emit(f"%gauss = math.exp %negated fastmath<afn> : {wide}")
        inv = _constant(emit, "rsqrt_2pi", 0.3989422804014327, wide)
        emit(f"%pdf = arith.mulf %gauss, {inv} : {wide}")
        emit(f"%g_pdf = arith.mulf {g}, %pdf : {wide}")
        emit(f"%slope = arith.addf %cdf, %g_pdf : {wide}")
        return "%act", "%slope"
    # gelu_tanh: u = k (g + c g^3), act = g/2 (1 + tanh u),
    # act' = (1 + tanh u)/2 + g/2 (1 - tanh^2 u) k (1 + 3 c g^2).
    k = _constant(emit, "k", 0.7978845608028654, wide)
    c = _constant(emit, "c", 0.044715, wide)
    emit(f"%square = arith.mulf {g}, {g} : {wide}")
    emit(f"%cube = arith.mulf %square, {g} : {wide}")
    emit(f"%c_cube = arith.mulf %cube, {c} : {wide}")
    emit(f"%inner = arith.addf {g}, %c_cube : {wide}")
    emit(f"%u = arith.mulf %inner, {k} : {wide}")
    emit(f"%tanh = math.tanh %u : {wide}")
    emit(f"%one_tanh = arith.addf {one}, %tanh : {wide}")
    emit(f"%act = arith.mulf %half_g, %one_tanh : {wide}")
    if not derivative:
        return "%act", ""
    three_c = _constant(emit, "three_c", 3 * 0.044715, wide)
    emit(f"%left = arith.mulf %one_tanh, {half} : {wide}")
    emit(f"%tanh_square = arith.mulf %tanh, %tanh : {wide}")
    emit(f"%sech_square = arith.subf {one}, %tanh_square : {wide}")
    emit(f"%c_square = arith.mulf %square, {three_c} : {wide}")
    emit(f"%du = arith.addf {one}, %c_square : {wide}")
    emit(f"%k_du = arith.mulf %du, {k} : {wide}")
    emit(f"%right_1 = arith.mulf %half_g, %sech_square : {wide}")
    emit(f"%right = arith.mulf %right_1, %k_du : {wide}")
    emit(f"%slope = arith.addf %left, %right : {wide}")
    return "%act", "%slope"


def gated_activation_source(config: GatedActivationConfig) -> str:
    """The module holding @gated_<activation>[_backward] for `config`."""
    config.validate()
    e = config.element
    vec, wide = f"vector<{GATE_BLOCK}x{e}>", f"vector<{GATE_BLOCK}xf32>"
    rows_t = f"memref<?x?x{e}, strided<[?, 1], offset: ?>>"
    body = []
    emit = body.append
    # Thread gid: pair p = gid mod pairs of row gid / pairs; past the last
    # pair, nothing.
    emit(f"%columns = memref.dim %z, %c1 : {rows_t}")
    emit(f"%rows = memref.dim %z, %c0 : {rows_t}")
    emit("%pairs = arith.divui %columns, %c_pair : index")
    emit("%units = arith.muli %rows, %pairs : index")
    emit("%live = arith.cmpi ult, %gid, %units : index")
    emit("scf.if %live {")
    inner = []
    put = inner.append
    put("%row = arith.divui %gid, %pairs : index")
    put("%p = arith.remui %gid, %pairs : index")
    put("%gate_col = arith.muli %p, %c_pair : index")
    put("%up_col = arith.addi %gate_col, %c_block : index")
    put("%out_col = arith.muli %p, %c_block : index")
    put(f"%gate = vector.load %z[%row, %gate_col] {{alignment = 16}} : {rows_t}, {vec}")
    put(f"%up = vector.load %z[%row, %up_col] {{alignment = 16}} : {rows_t}, {vec}")
    if config.backward:
        put(f"%dy_v = vector.load %dy[%row, %out_col] {{alignment = 16}} : {rows_t}, {vec}")
    put(f"%g = arith.extf %gate : {vec} to {wide}")
    put(f"%u_up = arith.extf %up : {vec} to {wide}")
    act, slope = _activation(put, config.activation, "%g", wide, config.backward)
    if config.backward:
        put(f"%dyf = arith.extf %dy_v : {vec} to {wide}")
        put(f"%d_up_f = arith.mulf %dyf, {act} : {wide}")
        put(f"%dy_up = arith.mulf %dyf, %u_up : {wide}")
        put(f"%d_gate_f = arith.mulf %dy_up, {slope} : {wide}")
        put(f"%d_gate = arith.truncf %d_gate_f : {wide} to {vec}")
        put(f"%d_up = arith.truncf %d_up_f : {wide} to {vec}")
        put(f"vector.store %d_gate, %dz[%row, %gate_col] {{alignment = 16}} : {rows_t}, {vec}")
        put(f"vector.store %d_up, %dz[%row, %up_col] {{alignment = 16}} : {rows_t}, {vec}")
        params = [f"%z: {rows_t}", f"%dy: {rows_t}", f"%dz: {rows_t}"]
    else:
        put(f"%yf = arith.mulf {act}, %u_up : {wide}")
        put(f"%y = arith.truncf %yf : {wide} to {vec}")
        put(f"vector.store %y, %out[%row, %out_col] {{alignment = 16}} : {rows_t}, {vec}")
        params = [f"%z: {rows_t}", f"%out: {rows_t}"]
    body.extend("  " + line for line in inner)
    emit("}")
    what = ("d gate and d up from dy" if config.backward else "act(gate) * up")
    header = [f"// {config.name}: {what} of an interleaved gate/up product, {e}",
              f"// (tile.ops.gated_activation): a thread a pair of {GATE_BLOCK}-column blocks, "
              f"{THREADS} threads a CTA."]
    constants = index_constants(c0=0, c1=1, c_block=GATE_BLOCK, c_pair=2 * GATE_BLOCK,
                                c_threads=THREADS)
    return kernel_module(header, config.name, params, THREADS,
                         constants + linear_ids() + body)


#: The kernels, keyed by GatedActivationConfig (64-bit offsets).
GATED_ACTIVATION = KernelFamily("gated_activation", gated_activation_source)


def _rows(name: str, tensor, columns: int):
    """OperandError unless `tensor` is (M, columns) with contiguous rows at
    a pitch of whole 16-byte vectors from a 16-byte aligned start."""
    operand = operand_of(tensor)
    if len(operand.shape) != 2 or operand.shape[1] != columns:
        raise OperandError(f"{WHAT}: {name} must be (M, {columns}), got shape "
                           f"{tuple(operand.shape)}")
    rows, pitch = operand.shape[0], operand.strides[0]
    if operand.strides[1] != 1 or (rows > 1 and pitch < columns):
        raise OperandError(f"{WHAT}: {name} must have contiguous rows of whole 16-byte vectors "
                           f"from a 16-byte aligned start, got strides "
                           f"{tuple(operand.strides)} at {operand.address:#x}")
    require_vector_rows(WHAT, name, operand, pitch if rows > 1 else 0, GATE_BLOCK)
    return operand


def _launch(torch, config: GatedActivationConfig, arguments, units: int, index: int) -> None:
    ctas = cdiv(units, THREADS)
    if ctas > MAX_GRID:
        raise OperandError(f"{WHAT}: {units} block pairs take {ctas} CTAs, more than a grid's "
                           f"{MAX_GRID}")
    if ctas:
        GATED_ACTIVATION.kernel(config, config.name).launch_on(index, arguments, (ctas, 1, 1))


def _checked(torch, z, activation: str, **others) -> Tuple[int, str]:
    """(device, element) after the checks common to both directions."""
    index = require_cuda_tensors(torch, WHAT, z=z, **others)
    require_alike(WHAT, (("z", operand_of(z)),) + tuple(
        (name, operand_of(t)) for name, t in others.items()), FLOAT16_TYPES)
    if activation not in GATE_ACTIVATIONS:
        raise OperandError(f"{WHAT}: the gate's activation is one of "
                           f"{', '.join(GATE_ACTIVATIONS)}, got {activation}")
    if z.dim() != 2 or z.shape[1] % (2 * GATE_BLOCK):
        raise OperandError(f"{WHAT}: z must be (M, N) with N a multiple of {2 * GATE_BLOCK} "
                           f"(gate and up blocks in pairs), got shape {tuple(z.shape)}")
    _rows("z", z, z.shape[1])
    return index, of_torch(z.dtype).name


def gated_activation(torch, z, activation: str):
    """act(gate) * up of the interleaved product z (M x N): a new M x N/2
    tensor of z's type, on the current stream."""
    index, element = _checked(torch, z, activation)
    out = torch.empty((z.shape[0], z.shape[1] // 2), device=z.device, dtype=z.dtype)
    _launch(torch, GatedActivationConfig(element, activation), (z, out),
            out.numel() // GATE_BLOCK, index)
    return out


def gated_activation_backward(torch, z, dy, activation: str):
    """dz (M x N, interleaved as z) from z and the gradient dy (M x N/2) of
    gated_activation's result, on the current stream."""
    index, element = _checked(torch, z, activation, dy=dy)
    if tuple(dy.shape) != (z.shape[0], z.shape[1] // 2):
        raise OperandError(f"{WHAT}: dy must be (M, N/2) = ({z.shape[0]}, {z.shape[1] // 2}), "
                           f"got shape {tuple(dy.shape)}")
    try:
        _rows("dy", dy, z.shape[1] // 2)
    except OperandError:  # an autograd gradient may be an expanded view
        dy = dy.contiguous()
    dz = torch.empty(z.shape, device=z.device, dtype=z.dtype)
    _launch(torch, GatedActivationConfig(element, activation, backward=True), (z, dy, dz),
            dy.numel() // GATE_BLOCK, index)
    return dz
