"""Rotary position embedding (RoPE) of queries and keys, in place, from
PyTorch: one generated tile kernel for q and k together.

    tile.rope(q, k, cos, sin)        # q (B, S, H, D), k (B, S, Hkv, D) or None
    tile.rope(q, k, cos[L:L + 1], sin[L:L + 1])   # decode: S = 1 at position L

Llama's rotate-half form (Hugging Face's `apply_rotary_pos_emb`): each row
x of q and k, at sequence position s, becomes

    x * cos[s] + rotate_half(x) * sin[s],   rotate_half(x) = cat(-x[D/2:], x[:D/2])

computed in f32 and rounded once to the dtype. q and k are (B, S, H, D)
and (B, S, Hkv, D) of float16 or bfloat16, D 64 or 128, with any strides
whose last is 1: typically views of a fused QKV GEMM's output, qkv
(B S, (H + 2 Hkv) D) viewed as (B, S, H + 2 Hkv, D) and split along the
heads, whose rows are (H + 2 Hkv) D elements apart; they are updated where
they lie, without a copy. cos and sin are (S, D) tables of q's dtype, row s
for position s of the call (a slice of a longer table: decode passes the
row of its position), or views of one with dims of extent 1 ((1, S, 1, D),
(S, 1, D)). q and k must not overlap (each element is read and written by
one thread).

The kernel moves 16-byte vectors: a thread takes elements 8 p .. 8 p + 8
of the first half of one row and the matching 8 of the second half (each
element of q and k is read once and written once), and the same vectors of
the two tables' row s (read by the row's H + Hkv heads: from the cache).
One 1-D grid covers the rows of q, then those of k, D / 16 threads a row,
256 a CTA; offsets are 64-bit. One kernel compiles per element type, head
dim and whether k is present (RopeConfig).

Errors (OperandError, naming the rule and the values) for what the kernel
cannot take: other dtypes or head dims, a last-dim stride other than 1,
strides that are not whole 16-byte vectors or a start that is not 16-byte
aligned (no silent copy: pass .contiguous()), tables of another length than
q's S, k of another batch or length, mismatched dtypes or devices, CPU
tensors. Empty q and k: no launch.

    python3 -m tile rope --head-dim 128
"""
from dataclasses import dataclass
from typing import Optional, Tuple

from ..core import devices
from ..core.caches import LruCache, PreparedCalls
from ..core.elements import BY_TORCH, FLOAT16_TYPES
from ..core.errors import OperandError
from ..core.operands import (Operand, cdiv, operand_of, require_alike, require_cuda_tensors,
                             require_vector_rows, signature)
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module, linear_ids
from ..core.routing import operators, recorded, routed

WHAT = "tile.rope"
#: Threads of a CTA.
THREADS = 256
#: Elements of a 16-byte vector (f16, bf16).
VECTOR = 8
#: The head dims a kernel takes.
HEAD_DIMS = (64, 128)
#: The most CTAs of a grid (its x extent).
MAX_GRID = 2 ** 31 - 1


@dataclass(frozen=True)
class RopeConfig:
    """One RoPE kernel: its element type ("f16"/"bf16"), head dim and
    whether it rotates k as well as q."""
    element: str = "bf16"
    head_dim: int = 128
    keys: bool = True

    @property
    def name(self) -> str:
        """The kernel's name in its module."""
        return "rope_qk" if self.keys else "rope"

    @property
    def pairs(self) -> int:
        """Threads a row: 16-byte vectors of its first half."""
        return self.head_dim // 2 // VECTOR

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"rope element must be f16 or bf16, got {self.element}")
        if self.head_dim not in HEAD_DIMS:
            raise ValueError(f"rope head dim must be 64 or 128, got {self.head_dim}")


def _rotate(emit, x: str, unit: str, heads: str, e: str, rows_t: str, table_t: str) -> None:
    """The body of a thread of operand `x` ("q"/"k"): its row and pair from
    `unit`, its loads, the rotation in f32 and its stores."""
    vec, wide = f"vector<{VECTOR}x{e}>", f"vector<{VECTOR}xf32>"
    p = f"%{x}_"
    emit(f"{p}pair = arith.remui {unit}, %c_pairs : index")
    emit(f"{p}row = arith.divui {unit}, %c_pairs : index")
    emit(f"{p}h = arith.remui {p}row, {heads} : index")
    emit(f"{p}bs = arith.divui {p}row, {heads} : index")
    emit(f"{p}s = arith.remui {p}bs, %seq : index")
    emit(f"{p}b = arith.divui {p}bs, %seq : index")
    emit(f"{p}lo = arith.muli {p}pair, %c_vector : index")
    emit(f"{p}hi = arith.addi {p}lo, %c_half : index")
    # Every load first: the row's two vectors, then the tables' four.
    for half in ("lo", "hi"):
        emit(f"{p}x_{half} = vector.load %{x}[{p}b, {p}s, {p}h, {p}{half}] {{alignment = 16}} "
             f": {rows_t}, {vec}")
    for table in ("cos", "sin"):
        for half in ("lo", "hi"):
            emit(f"{p}{table}_{half} = vector.load %{table}[{p}s, {p}{half}] "
                 f"{{alignment = 16}} : {table_t}, {vec}")
    for name in ("x_lo", "x_hi", "cos_lo", "cos_hi", "sin_lo", "sin_hi"):
        emit(f"{p}{name}_f = arith.extf {p}{name} : {vec} to {wide}")
    # out[d] = x[d] c[d] - x[d + D/2] n[d];  out[d + D/2] = x[d + D/2] c[d + D/2] + x[d] n[d + D/2]
    emit(f"{p}lo_c = arith.mulf {p}x_lo_f, {p}cos_lo_f : {wide}")
    emit(f"{p}lo_n = arith.mulf {p}x_hi_f, {p}sin_lo_f : {wide}")
    emit(f"{p}lo_f = arith.subf {p}lo_c, {p}lo_n : {wide}")
    emit(f"{p}hi_c = arith.mulf {p}x_hi_f, {p}cos_hi_f : {wide}")
    emit(f"{p}hi_n = arith.mulf {p}x_lo_f, {p}sin_hi_f : {wide}")
    emit(f"{p}hi_f = arith.addf {p}hi_c, {p}hi_n : {wide}")
    for half in ("lo", "hi"):
        emit(f"{p}out_{half} = arith.truncf {p}{half}_f : {wide} to {vec}")
        emit(f"vector.store {p}out_{half}, %{x}[{p}b, {p}s, {p}h, {p}{half}] "
             f"{{alignment = 16}} : {rows_t}, {vec}")


def rope_source(config: RopeConfig) -> str:
    """The module holding @rope (or @rope_qk) for `config`."""
    config.validate()
    e, head_dim, keys = config.element, config.head_dim, config.keys
    rows_t = f"memref<?x?x?x?x{e}, strided<[?, ?, ?, 1], offset: ?>>"
    table_t = f"memref<?x{head_dim}x{e}, strided<[?, 1], offset: ?>>"
    body = []

    def emit(line: str, depth: int = 0) -> None:
        body.append("  " * depth + line)

    # Thread gid: unit gid of q (row gid / pairs, pair gid mod pairs) while
    # gid < q's units, else unit gid - q's units of k; past both, nothing.
    emit("%batch = memref.dim %q, %c0 : !rows")
    emit("%seq = memref.dim %q, %c1 : !rows")
    emit("%heads = memref.dim %q, %c2 : !rows")
    emit("%tokens = arith.muli %batch, %seq : index")
    emit("%q_rows = arith.muli %tokens, %heads : index")
    emit("%q_units = arith.muli %q_rows, %c_pairs : index")
    emit("%in_q = arith.cmpi ult, %gid, %q_units : index")
    emit("scf.if %in_q {")
    _rotate(lambda line: emit(line, 1), "q", "%gid", "%heads", e, "!rows", "!table")
    if keys:
        emit("} else {")
        inner = lambda line: emit(line, 1)  # noqa: E731
        inner("%kv_heads = memref.dim %k, %c2 : !rows")
        inner("%k_rows = arith.muli %tokens, %kv_heads : index")
        inner("%k_units = arith.muli %k_rows, %c_pairs : index")
        inner("%k_unit = arith.subi %gid, %q_units : index")
        inner("%in_k = arith.cmpi ult, %k_unit, %k_units : index")
        inner("scf.if %in_k {")
        _rotate(lambda line: emit(line, 2), "k", "%k_unit", "%kv_heads", e, "!rows", "!table")
        inner("}")
    emit("}")
    params = ["%q: !rows"] + (["%k: !rows"] if keys else []) + ["%cos: !table",
                                                                "%sin: !table"]
    what = "q and k" if keys else "q"
    header = [f"// {config.name}: rotary position embedding of {what} in place, {e}, head dim "
              f"{head_dim}",
              f"// (tile.ops.rope): {config.pairs} threads a row, each a 16-byte vector of the "
              f"row's first half and the",
              f"// matching one of its second half; {THREADS} threads a CTA.",
              f"!rows = {rows_t}", f"!table = {table_t}"]
    constants = index_constants(c0=0, c1=1, c2=2, c_vector=VECTOR, c_half=head_dim // 2,
                                c_pairs=config.pairs, c_threads=THREADS)
    return kernel_module(header, config.name, params, THREADS,
                         constants + linear_ids() + body)


#: The RoPE kernels, keyed by RopeConfig (64-bit offsets).
ROPE = KernelFamily("rope", rope_source)


@dataclass(frozen=True)
class RopePlan:
    """A checked call: the kernel's config, the operands it rotates
    ("q", "k": the non-empty ones, in the kernel's order), the tables' row
    strides and the launch's grid (no launch: 0 CTAs)."""
    config: RopeConfig
    operands: Tuple[str, ...]
    table_strides: Tuple[int, int]  # cos, sin
    grid: Tuple[int, int, int]


def _check_heads(name: str, operand: Operand) -> None:
    """OperandError unless (B, S, H, D) `operand` has a unit last-dim
    stride, strides of whole 16-byte vectors and a 16-byte aligned start."""
    shape, strides = tuple(operand.shape), tuple(operand.strides)
    if strides[-1] != 1:
        raise OperandError(f"{WHAT}: {name} must have contiguous rows (last-dim stride 1), got "
                           f"shape {shape} with strides {strides}")
    for extent, stride in zip(shape[:-1], strides[:-1]):
        if extent > 1 and (stride <= 0 or stride % VECTOR):
            raise OperandError(f"{WHAT}: {name}'s strides must be positive multiples of "
                               f"{VECTOR} elements (16-byte rows: the kernel moves 16-byte "
                               f"vectors), got shape {shape} with strides {strides}; pass "
                               ".contiguous()")
    if operand.address % 16:
        raise OperandError(f"{WHAT}: {name} must start at a 16-byte aligned address (the kernel "
                           f"moves 16-byte vectors), got {operand.address:#x}; pass "
                           ".contiguous()")


def table_stride(name: str, operand: Operand, seq: int, head_dim: int) -> int:
    """The elements between rows of table `operand`, (S, D) or a view of one
    with dims of extent 1 ((1, S, 1, D), (S, 1, D)), or OperandError: S
    rows of q's length, D columns, contiguous rows of whole 16-byte vectors
    from a 16-byte aligned start."""
    shape, strides = tuple(operand.shape), tuple(operand.strides)
    long = [(extent, stride) for extent, stride in zip(shape[:-1], strides[:-1]) if extent != 1]
    if (not shape or shape[-1] != head_dim or len(long) > 1
            or (long and long[0][0] != seq) or (not long and seq != 1)):
        raise OperandError(f"{WHAT}: {name} must be (S, D) = ({seq}, {head_dim}), q's length "
                           f"and head dim (or a view of it with dims of extent 1, such as "
                           f"(1, S, 1, D)), got shape {shape}")
    if strides[-1] != 1:
        raise OperandError(f"{WHAT}: {name} must have contiguous rows (last-dim stride 1), got "
                           f"shape {shape} with strides {strides}")
    pitch = long[0][1] if long else head_dim
    require_vector_rows(WHAT, name, operand, pitch, VECTOR)
    return pitch


def plan_rope(q: Operand, k: Optional[Operand], cos: Operand, sin: Operand) -> RopePlan:
    """Checks a call on plain shapes, strides, dtypes, addresses and
    devices (no PyTorch, no GPU) and plans it, or OperandError naming the
    rule and the values."""
    require_alike(WHAT, (("q", q), ("k", k), ("cos", cos), ("sin", sin)), FLOAT16_TYPES)
    shape = tuple(q.shape)
    if len(shape) != 4 or shape[-1] not in HEAD_DIMS:
        raise OperandError(f"{WHAT}: q must be (B, S, H, D) with D 64 or 128, got shape "
                           f"{shape}")
    batch, seq, _, head_dim = shape
    if k is not None:
        k_shape = tuple(k.shape)
        if len(k_shape) != 4 or k_shape[:2] != (batch, seq) or k_shape[-1] != head_dim:
            raise OperandError(f"{WHAT}: k must be (B, S, Hkv, D) with q's B, S and D "
                               f"({batch}, {seq}, Hkv, {head_dim}), got shape {k_shape}")
    config = RopeConfig(BY_TORCH[q.dtype].name, head_dim)
    present = [(name, operand) for name, operand in (("q", q), ("k", k))
               if operand is not None and 0 not in operand.shape]
    if not present:
        return RopePlan(config, (), (head_dim, head_dim), (0, 1, 1))
    for name, operand in present:
        _check_heads(name, operand)
    if k is not None and k.address == q.address and len(present) == 2:
        raise OperandError(f"{WHAT}: k must not be q (each is rotated in place once)")
    pitches = (table_stride("cos", cos, seq, head_dim), table_stride("sin", sin, seq, head_dim))
    rows = sum(operand.shape[0] * operand.shape[1] * operand.shape[2] for _, operand in present)
    ctas = cdiv(rows * config.pairs, THREADS)
    if ctas > MAX_GRID:
        raise OperandError(f"{WHAT}: {rows} rows take {ctas} CTAs, more than a grid's "
                           f"{MAX_GRID}")
    config = RopeConfig(config.element, head_dim, len(present) == 2)
    return RopePlan(config, tuple(name for name, _ in present), pitches, (ctas, 1, 1))


#: Plans by the call's tensors' signatures.
PLANS = LruCache(256)
#: The launches prepared per call shape and stream: a call like an earlier
#: one packs its tensors' addresses, one foreign call.
READY = PreparedCalls()


def _no_launch(*tensors) -> None:
    """The prepared call of empty q and k."""


def _bump(*tensors) -> None:
    """Counts the in-place write in the rotated tensors' version counters,
    as PyTorch's own in-place ops do: autograd then refuses a backward that
    saved them before the rotation instead of using the rotated values
    (inference tensors keep no counter)."""
    import torch
    for tensor in tensors:
        if tensor is not None and not tensor.is_inference():
            torch.autograd.graph.increment_version(tensor)


def rope(q, k, cos, sin, *, stream=None) -> None:
    """Rotates q (B, S, H, D) and k (B, S, Hkv, D; or None) in place by the
    (S, D) tables cos and sin: x * cos[s] + rotate_half(x) * sin[s] (Hugging
    Face's Llama), in f32, rounded once. Stream-ordered on `stream`
    (default: PyTorch's current stream on q's device). See the module's
    documentation.

    Under torch.compile it runs as the operator tile::rope_ (in place);
    where autograd records it, as the functional tile::rope with its
    derivative, copied back into q and k (tile.library): q and k must then
    be views autograd lets be written in place (slices; not split()'s
    outputs, for which PyTorch raises)."""
    import torch
    if routed(torch, q, k, cos, sin):
        ops = operators(torch, WHAT, stream)
        if recorded(torch, q, k, cos, sin):
            for x in (q, k):
                if x is not None:
                    x.copy_(ops.rope(x, cos, sin))
        else:
            ops.rope_(q, k, cos, sin)
        return
    try:
        key = (signature(q), signature(k), signature(cos), signature(sin))
    except (AttributeError, TypeError):  # not tensors: the checks say why
        key = None
    ready = READY.find(key, stream)
    if ready is not None:
        launch, _, operands = ready
        if operands == "qk":
            # The plan's check of k against q, for this call's tensors: the
            # key holds their geometry, not their addresses.
            if k.data_ptr() == q.data_ptr():
                raise OperandError(f"{WHAT}: k must not be q (each is rotated in place once)")
            launch(q, k, cos, sin)
        elif operands == "q":
            launch(q, cos, sin)
        else:
            launch(k, cos, sin)  # "k" (q empty), or "" (_no_launch)
        _bump(q, k)
        return
    index = require_cuda_tensors(torch, WHAT, q=q, k=k, cos=cos, sin=sin)
    plan = PLANS.get(key, lambda: plan_rope(
        *(None if t is None else operand_of(t) for t in (q, k, cos, sin))))
    devices.require_hopper(WHAT, devices.device(index))
    operands = "".join(plan.operands)
    if not operands:
        READY.keep(key, index, operands, stream, _no_launch)
        return
    seq, head_dim = q.shape[1], q.shape[3]
    tables = tuple(t.as_strided((seq, head_dim), (pitch, 1))
                   for t, pitch in zip((cos, sin), plan.table_strides))
    rotated = tuple({"q": q, "k": k}[name] for name in plan.operands)
    arguments = rotated + tables
    kernel = ROPE.kernel(plan.config, plan.config.name)
    launch = kernel.prepare(index, arguments, plan.grid, stream,
                            varying=tuple(range(len(arguments))))
    launch(*rotated, cos, sin)
    _bump(q, k)
    READY.keep(key, index, operands, stream, launch)
