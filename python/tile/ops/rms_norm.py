"""RMSNorm, and the fused residual add of a pre-norm decoder layer, from
PyTorch: one generated tile kernel.

    y = tile.rms_norm(x, weight, eps=1e-6)
    y, h = tile.rms_norm(x, weight, eps, residual=r)          # h = x + r, y = rms_norm(h)
    y, h = tile.rms_norm(x, weight, eps, residual=r, out=x, residual_out=r)  # vLLM's, in place

x is (..., H), float16 or bfloat16, rows contiguous (last-dim stride 1; the
leading dims one row stride apart, as for x.view(-1, H)), H a multiple of 8
up to MAX_HIDDEN; weight (H,) contiguous, of x's type. Each row gives

    y = x / sqrt(mean(x^2) + eps) * weight

in f32 (the sum of squares, the scale and both products), rounded once to
x's type. With `residual` (x's shape and type) the kernel first forms
h = x + r rounded to x's type (torch's `x + r`), writes it and normalizes
h: it returns (y, h). h goes to a new tensor, or to `residual_out`: pass
`residual_out=residual` to update the residual stream in place (vLLM's
fused_add_rms_norm, which also takes `out=x`). An output may be the very
tensor it replaces (same address and row stride: each element is read and
written by one thread, read first) but must not otherwise overlap an
operand, nor the other output.

The kernel reads each row once: a thread loads `vectors` 16-byte vectors
of it (8 elements each, its slots `row_threads` vectors apart, so a warp's
loads of a slot are 512 contiguous bytes), keeps them in registers through the reduction
(`tile.reduce add ... over block`, or over a row's lanes when several rows
share a CTA) and stores the scaled vectors. H is a compile-time constant of
each variant (its 1/H, which vector slots need a bounds check: none when
the threads cover H exactly), so one kernel compiles per element type, H and
residual flag (RmsNormConfig, chosen by `config_for`). Rows of up to 256
elements (32 vectors) share a CTA of 256 threads, a power-of-two group of
lanes a row (a warp reduction); longer rows take one CTA each, of at most
ROW_THREADS threads (but for the longest) of 2 to MAX_VECTORS vectors.

With `out_dtype=torch.float8_e4m3fn` (or float8_e5m2) y leaves the kernel
quantized per row, for an FP8 GEMM (dynamic per-token quantization, as
vLLM's rms_norm_dynamic_per_token_quant): each row's largest magnitude
amax of the f32 y (a second reduction after the sum of squares', NaN if
the row has one), its scale max(amax / fp8_max, 1 / (fp8_max * 512))
(vLLM's least scale: a row of zeros gives zeros), y / scale converted to
nearest even (a row with a NaN: NaN), the scales in a float32 (..., 1)
tensor: `y8, s = tile.rms_norm(x, w, out_dtype=torch.float8_e4m3fn)` then
`tile.matmul(y8, w8.t(), scale_a=s.view(-1, 1), scale_b=sw)`. y and its
scales are new tensors (no `out=`); with `residual` it returns (y, scales,
h).

Errors (OperandError, naming the rule and the values) for what the kernel
cannot take: other dtypes, H not a multiple of 8, rows that are not
contiguous or not 16-byte aligned, mismatched shapes, dtypes or devices,
CPU tensors, overlapping outputs. No rows: empty outputs, no launch.

    python3 -m tile rms-norm --hidden 4096 --residual [--fp8-out f8E4M3FN]
"""
import struct
from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..core import devices
from ..core.caches import LruCache, PreparedCalls
from ..core.elements import BY_TORCH, FLOAT16_TYPES, FP8_MAX, of_torch
from ..core.errors import OperandError
from ..core.operands import (Operand, cdiv, operand_of, require_alike, require_cuda_tensors,
                             require_vector_rows, signature)
from ..core.streams import new_output
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module
from ..core.routing import no_backward, operators, routed

WHAT = "tile.rms_norm"
#: Elements of a 16-byte vector (f16, bf16).
VECTOR = 8
#: The most threads a long row takes before its threads' vectors double
#: (one CTA a row, at least 2 vectors a thread: on an H100, 2 or 4 vectors
#: of 256 to 512 threads kept up with a copy where 1 vector of 512 to 1024
#: threads, or 8 to 16 of fewer, fell behind it).
ROW_THREADS = 512
#: The most vectors a thread holds of a row (and of its residual).
MAX_VECTORS = 8
#: The longest row: 1024 threads of MAX_VECTORS vectors.
MAX_HIDDEN = 1024 * MAX_VECTORS * VECTOR
#: Threads of a CTA whose rows are short (32 vectors or fewer): several
#: rows, a power-of-two group of lanes each.
SHORT_ROW_CTA = 256
#: The most CTAs of a grid (its x extent).
MAX_GRID = 2 ** 31 - 1


@dataclass(frozen=True)
class RmsNormConfig:
    """One RMSNorm kernel: its element type ("f16"/"bf16"), row length
    `hidden` (a multiple of 8), with the residual add or without, and its
    threads: `threads` a CTA, `row_threads` of them a row (`threads`: one
    row a CTA and a block reduction; 1, 2, 4, .. 32: threads / row_threads
    rows a CTA and a reduction over each row's lanes), each holding
    `vectors` 16-byte vectors of the row."""
    element: str = "bf16"
    hidden: int = 4096
    residual: bool = False
    threads: int = 256
    row_threads: int = 256
    vectors: int = 2
    #: An FP8 y quantized per row ("f8E4M3FN", "f8E5M2"; "" for y in x's
    #: type): y = fp8(rms_norm * fp8_max / amax) and the row's scale amax /
    #: fp8_max (row-wise scales as tile.matmul's FP8 operands take them).
    quantize: str = ""

    @property
    def name(self) -> str:
        """The kernel's name in its module."""
        return (("rms_norm_residual" if self.residual else "rms_norm")
                + ("_fp8" if self.quantize else ""))

    @property
    def rows_per_cta(self) -> int:
        return self.threads // self.row_threads

    def validate(self) -> None:
        if self.element not in ("f16", "bf16"):
            raise ValueError(f"rms_norm element must be f16 or bf16, got {self.element}")
        if self.quantize and self.quantize not in FP8_MAX:
            raise ValueError(f"rms_norm quantizes to one of {', '.join(FP8_MAX)}, got "
                             f"{self.quantize}")
        if self.hidden <= 0 or self.hidden % VECTOR or self.hidden > MAX_HIDDEN:
            raise ValueError(f"rms_norm hidden size must be a positive multiple of {VECTOR} up "
                             f"to {MAX_HIDDEN}, got {self.hidden}")
        if self.threads % 32 or not 32 <= self.threads <= 1024:
            raise ValueError(f"rms_norm threads must be whole warps, 32 to 1024, got "
                             f"{self.threads}")
        grouped = self.row_threads != self.threads
        if grouped and (self.row_threads not in (1, 2, 4, 8, 16, 32)):
            raise ValueError(f"rms_norm row_threads must be the CTA's threads or a power of two "
                             f"up to 32, got {self.row_threads}")
        chunks = self.hidden // VECTOR
        if (self.vectors < 1 or self.row_threads * self.vectors < chunks
                or self.row_threads * (self.vectors - 1) >= chunks):
            raise ValueError(f"rms_norm: {self.row_threads} threads of {self.vectors} vectors "
                             f"do not cover a row of {chunks} vectors without an empty slot")


def config_for(element: str, hidden: int, residual: bool = False,
               quantize: str = "") -> RmsNormConfig:
    """The kernel for rows of `hidden` elements ("f16"/"bf16"): rows of up
    to 32 vectors share a CTA of SHORT_ROW_CTA threads, the next power of
    two of lanes a row, a vector each; a longer row takes a CTA of its own,
    vectors = the smallest power of two from 2 (up to MAX_VECTORS) that
    keeps it within ROW_THREADS threads, threads = whole warps covering the
    row."""
    chunks = hidden // VECTOR
    if chunks <= 32:
        lanes = 1 << max(0, (chunks - 1).bit_length())
        return RmsNormConfig(element, hidden, residual, SHORT_ROW_CTA, lanes, 1, quantize)
    vectors = 2
    while vectors < MAX_VECTORS and cdiv(chunks, vectors) > ROW_THREADS:
        vectors *= 2
    threads = cdiv(cdiv(chunks, vectors), 32) * 32
    return RmsNormConfig(element, hidden, residual, threads, threads, vectors, quantize)


def f32_literal(value: float) -> str:
    """An f32 constant's exact MLIR spelling (its bits in hex)."""
    return f"0x{struct.unpack('<I', struct.pack('<f', value))[0]:08X}"


def min_scale(quantize: str) -> float:
    """The least row scale of an FP8 y, 1 / (fp8_max * 512) as vLLM's: rows
    of smaller magnitudes (zeros too) keep it, so 1 / scale is finite."""
    return 1.0 / (FP8_MAX[quantize] * 512)


def _quantize_rows(config: RmsNormConfig, emit, store, row: str, lane: str,
                   grouped: bool) -> None:
    """An FP8 y (the f32 %yf vectors): the row's largest magnitude amax (a
    maximumf reduction like the sum's: NaN if the row has one; slots past
    the row hold zeros), its scale max(amax / fp8_max, min_scale), y *
    (1 / scale) converted and stored as 8-byte vectors (a NaN row: NaN), and
    the scale stored by the row's first lane. (Reducing max |x w| beside the sum of squares instead, amax =
    rstd times it, measured slower at H = 7168 on an H100: bench/NOTES.md.)"""
    q, vectors, lanes = config.quantize, config.vectors, config.row_threads
    wide, narrow = f"vector<{VECTOR}xf32>", f"vector<{VECTOR}x{q}>"
    mine = None
    for j in range(vectors):
        emit(f"%mag{j} = math.absf %yf{j} : {wide}")
        emit(f"%peak{j} = vector.reduction <maximumf>, %mag{j} : {wide} into f32")
        if mine is not None:
            emit(f"%peaks{j} = arith.maximumf {mine}, %peak{j} : f32")
        mine = f"%peaks{j}" if j else "%peak0"
    if not grouped:
        emit(f"%amax = tile.reduce maximumf {mine} over block : f32")
    elif lanes > 1:
        emit(f"%amax = tile.reduce maximumf {mine} over warp, lanes {lanes} : f32")
    amax = mine if grouped and lanes == 1 else "%amax"
    largest = FP8_MAX[q]
    emit(f"%fp8_max = arith.constant {f32_literal(largest)} : f32")
    emit(f"%least_scale = arith.constant {f32_literal(min_scale(q))} : f32")
    emit(f"%amax_scale = arith.divf {amax}, %fp8_max : f32")
    emit("%row_scale = arith.maximumf %amax_scale, %least_scale : f32")
    emit("%inv_scale = arith.divf %one_f32, %row_scale : f32")
    emit(f"%inv_scales = vector.broadcast %inv_scale : f32 to {wide}")
    y_t = f"memref<?x{config.hidden}x{q}, strided<[?, 1], offset: ?>>"
    for j in range(vectors):
        emit(f"%scaled{j} = arith.mulf %yf{j}, %inv_scales : {wide}")
        emit(f"%q{j} = arith.truncf %scaled{j} : {wide} to {narrow}")
        store(f"%q{j}", "%y", j, y_t, narrow, 8)
    emit(f"%leads = arith.cmpi eq, {lane}, %c0 : index")
    if grouped:
        emit("%leads_live = arith.andi %leads, %live : i1")
    emit(f"scf.if {'%leads_live' if grouped else '%leads'} {{")
    emit(f"  memref.store %row_scale, %row_scales[{row}] : memref<?xf32>")
    emit("}")


class RowAccess:
    """A generated kernel's access to one row of (rows, H) memrefs (RMSNorm
    and its backward): emits the thread's vector columns — slot j holds
    elements 8 (lane + j lanes) ..+ 8 — and the guards of the slots some
    of whose lanes fall past the row (and the row's, `live`, when rows
    share a CTA), its values' names prefixed by `prefix`; then loads and
    stores 16-byte vectors at `row`."""

    def __init__(self, config: RmsNormConfig, emit, row: str, lane: str,
                 live: Optional[str] = None, prefix: str = ""):
        self.emit, self.row = emit, row
        self.vec = f"vector<{VECTOR}x{config.element}>"
        self.rows_t = f"memref<?x{config.hidden}x{config.element}, strided<[?, 1], offset: ?>>"
        lanes, chunks = config.row_threads, config.hidden // VECTOR
        lane_col = f"%{prefix}lane_col"
        emit(f"{lane_col} = arith.muli {lane}, %c_vector : index")
        #: Per slot: (guard of the row's vectors, guard of the weight's).
        self.guards: List[Tuple[Optional[str], Optional[str]]] = []
        self.cols = [lane_col]
        for j in range(config.vectors):
            if j:
                emit(f"%{prefix}c_col{j} = arith.constant {j * lanes * VECTOR} : index")
                emit(f"%{prefix}col{j} = arith.addi {lane_col}, %{prefix}c_col{j} : index")
                self.cols.append(f"%{prefix}col{j}")
            partial = (j + 1) * lanes > chunks
            inside = f"%{prefix}in{j}"
            if partial:
                emit(f"{inside} = arith.cmpi ult, {self.cols[j]}, %c_hidden : index")
            if partial and live:
                emit(f"%{prefix}ok{j} = arith.andi {inside}, {live} : i1")
                self.guards.append((f"%{prefix}ok{j}", inside))
            elif partial:
                self.guards.append((inside, inside))
            else:
                self.guards.append((live, None))

    def load(self, result: str, memref: str, j: int, type_: str) -> None:
        """`result` = slot j of the row of `memref` (of the weight: a
        memref<H x e>), zeros where guarded off."""
        weight = not type_.startswith("memref<?x")
        index = self.cols[j] if weight else f"{self.row}, {self.cols[j]}"
        guard = self.guards[j][1 if weight else 0]
        vec = self.vec
        access = f"vector.load {memref}[{index}] {{alignment = 16}} : {type_}, {vec}"
        if guard is None:
            self.emit(f"{result} = {access}")
            return
        self.emit(f"{result} = scf.if {guard} -> ({vec}) {{")
        self.emit(f"  %loaded = {access}")
        self.emit(f"  scf.yield %loaded : {vec}")
        self.emit("} else {")
        self.emit(f"  scf.yield %zeros : {vec}")
        self.emit("}")

    def store(self, value: str, memref: str, j: int, type_: Optional[str] = None,
              vector: Optional[str] = None, alignment: int = 16) -> None:
        """Stores `value` (a `vector`, default 16 bytes of the element type)
        to slot j of the row of `memref` (default type: the rows')."""
        access = (f"vector.store {value}, {memref}[{self.row}, {self.cols[j]}] "
                  f"{{alignment = {alignment}}} : {type_ or self.rows_t}, {vector or self.vec}")
        guard = self.guards[j][0]
        if guard is None:
            self.emit(access)
        else:
            self.emit(f"scf.if {guard} {{")
            self.emit(f"  {access}")
            self.emit("}")


def rms_norm_source(config: RmsNormConfig) -> str:
    """The module holding @rms_norm (or @rms_norm_residual) for `config`."""
    config.validate()
    e, hidden, residual = config.element, config.hidden, config.residual
    threads, lanes, vectors = config.threads, config.row_threads, config.vectors
    grouped = lanes != threads
    vec, wide = f"vector<{VECTOR}x{e}>", f"vector<{VECTOR}xf32>"
    rows_t = f"memref<?x{hidden}x{e}, strided<[?, 1], offset: ?>>"
    quantize = config.quantize
    # An FP8 y: rows of bytes, 8-byte vectors.
    y_t = f"memref<?x{hidden}x{quantize}, strided<[?, 1], offset: ?>>" if quantize else rows_t
    weight_t = f"memref<{hidden}x{e}>"
    body = []
    emit = body.append
    if grouped:
        # Thread t: row bid * rows_per_cta + t / lanes, vector slots from
        # lane t mod lanes; rows past the last read nothing, write nothing.
        emit(f"%c_lanes = arith.constant {lanes} : index")
        emit(f"%c_rows_per_cta = arith.constant {config.rows_per_cta} : index")
        emit("%slot = arith.divui %tid, %c_lanes : index")
        emit("%lane = arith.remui %tid, %c_lanes : index")
        emit("%first = arith.muli %bid, %c_rows_per_cta : index")
        emit("%row = arith.addi %first, %slot : index")
        emit(f"%rows = memref.dim %x, %c0 : {rows_t}")
        emit("%live = arith.cmpi ult, %row, %rows : index")
        row, lane = "%row", "%lane"
    else:
        row, lane = "%bid", "%tid"
    access = RowAccess(config, emit, row, lane, "%live" if grouped else None)
    load, store = access.load, access.store
    # Every load first (x, the residual, the weight): the row's bytes in
    # flight at once.
    for j in range(vectors):
        load(f"%x{j}", "%x", j, rows_t)
        if residual:
            load(f"%r{j}", "%r", j, rows_t)
    for j in range(vectors):
        load(f"%w{j}", "%w", j, weight_t)
    squares = None
    for j in range(vectors):
        emit(f"%xf{j} = arith.extf %x{j} : {vec} to {wide}")
        if residual:
            # h = x + r rounded to the element type (torch's x + r), written
            # now; the row normalized is that rounded h.
            emit(f"%rf{j} = arith.extf %r{j} : {vec} to {wide}")
            emit(f"%sum{j} = arith.addf %xf{j}, %rf{j} : {wide}")
            emit(f"%h{j} = arith.truncf %sum{j} : {wide} to {vec}")
            store(f"%h{j}", "%h_out", j)
            emit(f"%v{j} = arith.extf %h{j} : {vec} to {wide}")
            value = f"%v{j}"
        else:
            value = f"%xf{j}"
        emit(f"%sq{j} = arith.mulf {value}, {value} : {wide}")
        if squares is not None:
            emit(f"%squares{j} = arith.addf {squares}, %sq{j} : {wide}")
        squares = f"%squares{j}" if j else "%sq0"
    emit(f"%mine = vector.reduction <add>, {squares} : {wide} into f32")
    if not grouped:
        emit("%total = tile.reduce add %mine over block : f32")
    elif lanes > 1:
        emit(f"%total = tile.reduce add %mine over warp, lanes {lanes} : f32")
    total = "%mine" if grouped and lanes == 1 else "%total"
    emit(f"%mean = arith.mulf {total}, %inv_hidden : f32")
    emit("%var = arith.addf %mean, %eps : f32")
    emit("%rstd = math.rsqrt %var : f32")
    emit(f"%scale = vector.broadcast %rstd : f32 to {wide}")
    for j in range(vectors):
        value = f"%v{j}" if residual else f"%xf{j}"
        emit(f"%wf{j} = arith.extf %w{j} : {vec} to {wide}")
        emit(f"%n{j} = arith.mulf {value}, %scale : {wide}")
        emit(f"%yf{j} = arith.mulf %n{j}, %wf{j} : {wide}")
        if not quantize:
            emit(f"%y{j} = arith.truncf %yf{j} : {wide} to {vec}")
            store(f"%y{j}", "%y", j)
    if quantize:
        _quantize_rows(config, emit, store, row, lane, grouped)

    params = [f"%x: {rows_t}"] + ([f"%r: {rows_t}"] if residual else []) + [
        f"%w: {weight_t}", f"%y: {y_t}"] + ([f"%h_out: {rows_t}"] if residual else []) + (
        ["%row_scales: memref<?xf32>"] if quantize else []) + ["%eps: f32"]
    layout = (f"a CTA of {threads} threads, {lanes} a row ({config.rows_per_cta} rows)"
              if grouped else f"one row a CTA of {threads} threads")
    header = [f"// {config.name}: RMSNorm of rows of {hidden} {e}"
              f"{' after the residual add' if residual else ''} (tile.ops.rms_norm):",
              f"// {layout}, {vectors} 16-byte vector(s) of the row a thread."]
    constants = index_constants(c0=0, c_vector=VECTOR, c_hidden=hidden) + [
        f"%zeros = arith.constant dense<0.0> : {vec}",
        f"%inv_hidden = arith.constant {f32_literal(1.0 / hidden)} : f32",
        "%zero_f32 = arith.constant 0.0 : f32", "%one_f32 = arith.constant 1.0 : f32",
        "%tid = gpu.thread_id x", "%bid = gpu.block_id x"]
    return kernel_module(header, config.name, params, threads, constants + body)


#: The RMSNorm kernels, keyed by RmsNormConfig (64-bit offsets).
RMS_NORM = KernelFamily("rms_norm", rms_norm_source)


def grid(config: RmsNormConfig, rows: int) -> Tuple[int, int, int]:
    """CTAs for `rows` rows."""
    return (cdiv(rows, config.rows_per_cta), 1, 1)


@dataclass(frozen=True)
class RmsNormPlan:
    """A checked call: the kernel's config, the rows, each operand's row
    stride (None: absent; new outputs are packed) and the launch's grid."""
    config: RmsNormConfig
    shape: Tuple[int, ...]
    rows: int
    strides: Tuple[Optional[int], ...]  # x, residual, out, residual_out
    grid: Tuple[int, int, int]


def row_stride(name: str, operand: Operand) -> int:
    """The elements between consecutive rows of (..., H) `operand`, or
    OperandError: contiguous rows (last-dim stride 1), the leading dims one
    row stride apart (viewable as (rows, H)), a stride of whole 16-byte
    vectors, a 16-byte aligned start."""
    shape, strides = tuple(operand.shape), tuple(operand.strides)
    hidden = shape[-1]
    if strides[-1] != 1:
        raise OperandError(f"{WHAT}: {name} must have contiguous rows (last-dim stride 1), got "
                           f"shape {shape} with strides {strides}")
    pitch, expected = hidden, None
    for extent, stride in reversed(list(zip(shape[:-1], strides[:-1]))):
        if extent == 1:
            continue
        if expected is None:
            pitch = stride
        elif stride != expected:
            raise OperandError(f"{WHAT}: {name}'s leading dims must be one row stride apart "
                               f"(viewable as (rows, H) without a copy), got shape {shape} "
                               f"with strides {strides}; pass .contiguous()")
        expected = stride * extent
    require_vector_rows(WHAT, name, operand, pitch, VECTOR)
    return pitch


def _span(operand: Operand, rows: int, pitch: int) -> Tuple[int, int]:
    """[first, last) byte addresses of the rows of `operand`."""
    size = BY_TORCH[operand.dtype].bytes
    return operand.address, operand.address + ((rows - 1) * pitch + operand.shape[-1]) * size


def plan_rms_norm(x: Operand, weight: Operand, residual: Optional[Operand] = None,
                  out: Optional[Operand] = None,
                  residual_out: Optional[Operand] = None, quantize: str = "") -> RmsNormPlan:
    """Checks a call on plain shapes, strides, dtypes, addresses and
    devices (no PyTorch, no GPU) and plans it, or OperandError naming the
    rule and the values. `quantize`: an FP8 y ("f8E4M3FN", "f8E5M2"), new
    (no `out`)."""
    if quantize and quantize not in FP8_MAX:
        raise OperandError(f"{WHAT}: out_dtype is x's type or an 8-bit float "
                           f"(float8_e4m3fn, float8_e5m2), got {quantize}")
    if quantize and out is not None:
        raise OperandError(f"{WHAT}: an FP8 y goes to a new tensor with its row scales; "
                           "out= takes y in x's type")
    named = (("x", x), ("weight", weight), ("residual", residual), ("out", out),
             ("residual_out", residual_out))
    require_alike(WHAT, named, FLOAT16_TYPES)
    if residual_out is not None and residual is None:
        raise OperandError(f"{WHAT}: residual_out is where x + residual goes; pass residual "
                           "too")
    shape = tuple(x.shape)
    hidden = shape[-1] if shape else 0
    if not shape or hidden <= 0 or hidden % VECTOR or hidden > MAX_HIDDEN:
        raise OperandError(f"{WHAT}: the hidden size H = x.shape[-1] must be a positive "
                           f"multiple of {VECTOR} up to {MAX_HIDDEN} (16-byte vectors), got "
                           f"x of shape {shape}")
    if tuple(weight.shape) != (hidden,):
        raise OperandError(f"{WHAT}: weight must have shape (H,) = ({hidden},), got "
                           f"{tuple(weight.shape)}")
    if weight.strides[0] != 1:
        raise OperandError(f"{WHAT}: weight must be contiguous, got stride "
                           f"{weight.strides[0]}")
    if weight.address % 16:
        raise OperandError(f"{WHAT}: weight must start at a 16-byte aligned address (the "
                           f"kernel moves 16-byte vectors), got {weight.address:#x}")
    for name, operand in named[2:]:
        if operand is not None and tuple(operand.shape) != shape:
            raise OperandError(f"{WHAT}: {name} must have x's shape {shape}, got "
                               f"{tuple(operand.shape)}")
    rows = 1
    for extent in shape[:-1]:
        rows *= extent
    config = config_for(BY_TORCH[x.dtype].name, hidden, residual is not None, quantize)
    if rows == 0:
        return RmsNormPlan(config, shape, 0, (None,) * 4, (0, 1, 1))
    pitches = tuple(None if operand is None else row_stride(name, operand)
                    for name, operand in named if name != "weight")
    # The written rows: each its own memory, apart from one another and
    # from the weight; over an input only exactly (the same rows: in place).
    written = [(name, operand, pitch) for (name, operand), pitch
               in zip((named[3], named[4]), pitches[2:]) if operand is not None]
    for name, operand, pitch in written:
        if rows > 1 and pitch < hidden:
            raise OperandError(f"{WHAT}: {name}'s rows overlap (row stride {pitch} < H = "
                               f"{hidden}); it is written")
    read = [("x", x, pitches[0]), ("weight", weight, hidden)] + (
        [("residual", residual, pitches[1])] if residual is not None else [])
    for i, (name, operand, pitch) in enumerate(written):
        first, last = _span(operand, rows, pitch)
        for other, other_operand, other_pitch in read + written[:i]:
            start, end = _span(other_operand, 1 if other == "weight" else rows, other_pitch)
            same = (other not in ("weight", "out", "residual_out")
                    and start == first and (other_pitch == pitch or rows == 1))
            if start < last and first < end and not same:
                raise OperandError(f"{WHAT}: {name} overlaps {other} (bytes [{first:#x}, "
                                   f"{last:#x}) and [{start:#x}, {end:#x})); an output may "
                                   "only be an input's very rows (in place)")
    ctas = grid(config, rows)
    if ctas[0] > MAX_GRID:
        raise OperandError(f"{WHAT}: {rows} rows take {ctas[0]} CTAs, more than a grid's "
                           f"{MAX_GRID}")
    return RmsNormPlan(config, shape, rows, pitches, ctas)


def _rows(tensor, rows: int, hidden: int, pitch: int):
    """`tensor` as the kernel's (rows, H) view."""
    return tensor.as_strided((rows, hidden), (pitch, 1))


#: Plans by the call's tensors' signatures.
PLANS = LruCache(256)
#: The launches prepared per call shape and stream: a call like an earlier
#: one packs its tensors' addresses and eps, one foreign call.
READY = PreparedCalls()


def rms_norm(x, weight, eps: float = 1e-6, residual=None, out=None, *, residual_out=None,
             stream=None, out_dtype=None):
    """RMSNorm of x's rows times `weight`, into `out` (default: a new
    tensor); with `residual`, of h = x + residual, returning (y, h), h into
    `residual_out` (default: a new tensor; `residual_out=residual`: in
    place). Stream-ordered on `stream` (default: PyTorch's current stream on
    x's device). With `out_dtype` float8_e4m3fn or float8_e5m2, y is
    quantized per row (dynamic, per token): returns (y, scales) or (y,
    scales, h), scales (..., 1) float32 = max(amax / fp8_max, 1 / (fp8_max
    * 512)) of each row's largest magnitude amax and y = fp8(rms_norm /
    scale) rounded to nearest even: the row-wise scale_a of tile.matmul's
    FP8 product. See the module's documentation.

    Under torch.compile and where autograd records the call, it runs as the
    operator tile::rms_norm, differentiable without an FP8 y (tile.library)."""
    import torch
    if routed(torch, x, weight, residual):
        return _through_operators(torch, x, weight, eps, residual, out, residual_out, stream,
                                  out_dtype)
    quantized = out_dtype is not None and out_dtype != getattr(x, "dtype", None)
    try:
        key = (signature(x), signature(weight), signature(residual), signature(out),
               signature(residual_out), out_dtype if quantized else None)
    except (AttributeError, TypeError):  # not tensors: the checks say why
        key = None
    ready = READY.find(key, stream)
    if ready is not None:
        launch, index, shape = ready
        if quantized:
            y = new_output(torch, shape, x, stream, index, out_dtype)
            scales = new_output(torch, shape[:-1] + (1,), x, stream, index, torch.float32)
            flat = scales.view(-1)
            if residual is None:
                launch(x, weight, y, flat, float(eps))
                return y, scales
            h = new_output(torch, shape, x, stream, index) if residual_out is None \
                else residual_out
            launch(x, residual, weight, y, h, flat, float(eps))
            return y, scales, h
        y = new_output(torch, shape, x, stream, index) if out is None else out
        if residual is None:
            launch(x, weight, y, float(eps))
            return y
        h = new_output(torch, shape, x, stream, index) if residual_out is None else residual_out
        launch(x, residual, weight, y, h, float(eps))
        return y, h
    index = require_cuda_tensors(torch, WHAT, x=x, weight=weight, residual=residual, out=out,
                                 residual_out=residual_out)
    quantize = ""
    if quantized:
        element = of_torch(out_dtype)
        quantize = element.name if element is not None else str(out_dtype)
    plan = PLANS.get(key, lambda: plan_rms_norm(
        *(None if t is None else operand_of(t) for t in (x, weight, residual, out,
                                                          residual_out)), quantize=quantize))
    devices.require_hopper(WHAT, devices.device(index))
    scales = None
    if quantized:
        y = new_output(torch, plan.shape, x, stream, index, out_dtype)
        scales = new_output(torch, plan.shape[:-1] + (1,), x, stream, index, torch.float32)
    else:
        y = new_output(torch, plan.shape, x, stream, index) if out is None else out
    h = None
    if residual is not None:
        h = new_output(torch, plan.shape, x, stream, index) if residual_out is None \
            else residual_out
    results = (y,) + ((scales,) if quantized else ()) + ((h,) if residual is not None else ())
    if plan.rows == 0:
        return results[0] if len(results) == 1 else results
    hidden = plan.shape[-1]
    pitch_x, pitch_r, pitch_y, pitch_h = (hidden if p is None else p for p in plan.strides)
    rows = lambda t, p: _rows(t, plan.rows, hidden, p)  # noqa: E731
    row_scales = (scales.view(-1),) if quantized else ()
    if residual is None:
        arguments = (rows(x, pitch_x), weight, rows(y, pitch_y)) + row_scales + (float(eps),)
    else:
        arguments = (rows(x, pitch_x), rows(residual, pitch_r), weight, rows(y, pitch_y),
                     rows(h, pitch_h)) + row_scales + (float(eps),)
    kernel = RMS_NORM.kernel(plan.config, plan.config.name)
    launch = kernel.prepare(index, arguments, plan.grid, stream,
                            varying=tuple(range(len(arguments))))
    launch()
    READY.keep(key, index, plan.shape, stream, launch)
    return results[0] if len(results) == 1 else results


def _through_operators(torch, x, weight, eps, residual, out, residual_out, stream, out_dtype):
    """rms_norm as PyTorch's operator (tile.library): `out` and
    `residual_out` get copies of its results."""
    ops = operators(torch, WHAT, stream)
    quantized = out_dtype is not None and out_dtype != x.dtype
    if quantized:
        no_backward(torch, f"{WHAT} with an FP8 y", x, weight, residual)
    y, scales, h = ops.rms_norm(x, weight, residual, float(eps),
                                out_dtype if quantized else None)
    if out is not None and not quantized:
        y = out.copy_(y)
    if residual is not None and residual_out is not None:
        h = residual_out.copy_(h)
    results = (y,) + ((scales,) if quantized else ()) + ((h,) if residual is not None else ())
    return results[0] if len(results) == 1 else results
