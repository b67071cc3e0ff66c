"""RMSNorm's derivative (tile.rms_norm under autograd): one generated tile
kernel, then a sum of the weight's partial gradients.

For rows h (what tile.rms_norm normalized: x, or h = x + residual) and the
gradient dy of y = h r w, r = 1 / sqrt(mean(h^2) + eps), each row gives, in
f32 and rounded once to h's type,

    dh = r (dy w) - h r^3 mean(dy w h)  (+ dh_out, the gradient that h, the
                                         residual form's second output, got)

and the weight's gradient is dw = sum over the rows of dy h r.

The kernel takes the forward's thread layout (RmsNormConfig: a thread's
16-byte vectors of a row, `tile.reduce` over the block or over a row's
lanes) on a persistent grid: at most as many CTAs as fit the SMs at once,
CTA b taking the rows (or groups of rows) b, b + grid, ... It recomputes r
from the row as the forward did, reduces sum(dy w h) beside the sum of
squares, stores dh, and keeps the sum of its rows' dy h r in f32 registers;
at the end each row slot of each CTA stores that sum as one row of a
(grid x rows a CTA, H) float32 buffer, and PyTorch sums its columns (a
fixed order: the same bits run to run).

    python3 -m tile rms-norm --hidden 4096 --residual --backward
"""
from typing import Tuple

from ..core import devices
from ..core.elements import FLOAT16_TYPES, of_torch
from ..core.errors import OperandError
from ..core.operands import cdiv, operand_of, require_alike, require_cuda_tensors
from ..family import KernelFamily
from .kernel_text import index_constants, kernel_module
from .rms_norm import VECTOR, WHAT, RmsNormConfig, RowAccess, config_for, f32_literal, row_stride

#: Vectors a thread above which the kernel reads its row again after the
#: reductions instead of keeping it in registers through them.
RELOAD_FROM = 2
#: Registers an SM has, and the most a thread of these kernels takes
#: (ptxas -v: 52 to 116 for rows up to 16384 elements; from 24576 on, at
#: 384 to 1024 threads, they spill: correct, slower): the persistent
#: grid's CTAs per SM are SM_REGISTERS / (KERNEL_REGISTERS x threads).
SM_REGISTERS = 65536
KERNEL_REGISTERS = 128


def kernel_name(config: RmsNormConfig) -> str:
    """The backward kernel's name in its module."""
    return "rms_norm_backward" + ("_residual" if config.residual else "")


def rms_norm_backward_source(config: RmsNormConfig) -> str:
    """The module holding @rms_norm_backward (or, adding dh_out,
    @rms_norm_backward_residual) for `config`."""
    config.validate()
    e, hidden, accumulate = config.element, config.hidden, config.residual
    threads, lanes, vectors = config.threads, config.row_threads, config.vectors
    grouped = lanes != threads
    vec, wide = f"vector<{VECTOR}x{e}>", f"vector<{VECTOR}xf32>"
    rows_t = f"memref<?x{hidden}x{e}, strided<[?, 1], offset: ?>>"
    weight_t = f"memref<{hidden}x{e}>"
    partial_t = f"memref<?x{hidden}xf32>"
    body = []
    emit = body.append
    emit(f"%rows = memref.dim %h, %c0 : {rows_t}")
    emit("%grid = gpu.grid_dim x")
    carried = ", ".join(f"%acc{j} = %zeros_f32" for j in range(vectors))
    carried_types = ", ".join([wide] * vectors)
    if grouped:
        # Thread t: slot t / lanes of each group of rows_per_cta rows, its
        # vectors from lane t mod lanes; rows past the last read zeros and
        # write nothing.
        emit(f"%c_lanes = arith.constant {lanes} : index")
        emit(f"%c_rows_per_cta = arith.constant {config.rows_per_cta} : index")
        emit("%slot = arith.divui %tid, %c_lanes : index")
        emit("%lane = arith.remui %tid, %c_lanes : index")
        emit("%groups = arith.ceildivui %rows, %c_rows_per_cta : index")
        emit(f"%sums:{vectors} = scf.for %group = %bid to %groups step %grid "
             f"iter_args({carried}) -> ({carried_types}) {{")
        lane, live = "%lane", "%live"
    else:
        emit(f"%sums:{vectors} = scf.for %row = %bid to %rows step %grid "
             f"iter_args({carried}) -> ({carried_types}) {{")
        lane, live = "%tid", None
    loop = []
    inner = loop.append
    if grouped:
        inner("%first = arith.muli %group, %c_rows_per_cta : index")
        inner("%row = arith.addi %first, %slot : index")
        inner("%live = arith.cmpi ult, %row, %rows : index")
    access = RowAccess(config, inner, "%row", lane, live)
    # Every load first: the row's bytes in flight at once.
    for j in range(vectors):
        access.load(f"%h{j}", "%h", j, rows_t)
        access.load(f"%dy{j}", "%dy", j, rows_t)
        if accumulate:
            access.load(f"%dh_out{j}", "%dh_out", j, rows_t)
    for j in range(vectors):
        access.load(f"%w{j}", "%w", j, weight_t)
    squares = products = None
    for j in range(vectors):
        inner(f"%hf{j} = arith.extf %h{j} : {vec} to {wide}")
        inner(f"%dyf{j} = arith.extf %dy{j} : {vec} to {wide}")
        inner(f"%wf{j} = arith.extf %w{j} : {vec} to {wide}")
        inner(f"%g{j} = arith.mulf %dyf{j}, %wf{j} : {wide}")
        inner(f"%sq{j} = arith.mulf %hf{j}, %hf{j} : {wide}")
        inner(f"%gh{j} = arith.mulf %g{j}, %hf{j} : {wide}")
        if j:
            inner(f"%squares{j} = arith.addf {squares}, %sq{j} : {wide}")
            inner(f"%products{j} = arith.addf {products}, %gh{j} : {wide}")
        squares = f"%squares{j}" if j else "%sq0"
        products = f"%products{j}" if j else "%gh0"
    inner(f"%my_squares = vector.reduction <add>, {squares} : {wide} into f32")
    inner(f"%my_products = vector.reduction <add>, {products} : {wide} into f32")
    if not grouped:
        scope = "block"
    elif lanes > 1:
        scope = f"warp, lanes {lanes}"
    else:
        scope = None
    if scope:
        inner(f"%total_squares = tile.reduce add %my_squares over {scope} : f32")
        inner(f"%total_products = tile.reduce add %my_products over {scope} : f32")
    total_squares = "%total_squares" if scope else "%my_squares"
    total_products = "%total_products" if scope else "%my_products"
    # r = rsqrt(mean(h^2) + eps) as the forward; c = r^3 mean(dy w h).
    inner(f"%mean = arith.mulf {total_squares}, %inv_hidden : f32")
    inner("%var = arith.addf %mean, %eps : f32")
    inner("%r = math.rsqrt %var : f32")
    inner("%r2 = arith.mulf %r, %r : f32")
    inner("%r3 = arith.mulf %r2, %r : f32")
    inner(f"%mean_products = arith.mulf {total_products}, %inv_hidden : f32")
    inner("%c = arith.mulf %r3, %mean_products : f32")
    inner(f"%rs = vector.broadcast %r : f32 to {wide}")
    inner(f"%cs = vector.broadcast %c : f32 to {wide}")
    if vectors > RELOAD_FROM:
        # Four vectors or more a thread: the row's f32 values are not kept
        # through the reductions (they would spill at 128 registers) but
        # read again (from L1: the CTA's rows were just read).
        for j in range(vectors):
            access.load(f"%h_again{j}", "%h", j, rows_t)
            access.load(f"%dy_again{j}", "%dy", j, rows_t)
            access.load(f"%w_again{j}", "%w", j, weight_t)
            inner(f"%hf{j}_again = arith.extf %h_again{j} : {vec} to {wide}")
            inner(f"%dyf{j}_again = arith.extf %dy_again{j} : {vec} to {wide}")
            inner(f"%wf{j}_again = arith.extf %w_again{j} : {vec} to {wide}")
            inner(f"%g{j}_again = arith.mulf %dyf{j}_again, %wf{j}_again : {wide}")
    again = "_again" if vectors > RELOAD_FROM else ""
    for j in range(vectors):
        hf, dyf, g = f"%hf{j}{again}", f"%dyf{j}{again}", f"%g{j}{again}"
        inner(f"%gr{j} = arith.mulf {g}, %rs : {wide}")
        inner(f"%hc{j} = arith.mulf {hf}, %cs : {wide}")
        inner(f"%dhf{j} = arith.subf %gr{j}, %hc{j} : {wide}")
        value = f"%dhf{j}"
        if accumulate:
            inner(f"%dh_outf{j} = arith.extf %dh_out{j} : {vec} to {wide}")
            inner(f"%dh_sum{j} = arith.addf %dhf{j}, %dh_outf{j} : {wide}")
            value = f"%dh_sum{j}"
        inner(f"%dx{j} = arith.truncf {value} : {wide} to {vec}")
        access.store(f"%dx{j}", "%dx", j)
        # dw's share of this row: dy (h r), in f32 registers across rows.
        inner(f"%n{j} = arith.mulf {hf}, %rs : {wide}")
        inner(f"%dw{j} = arith.mulf {dyf}, %n{j} : {wide}")
        inner(f"%next{j} = arith.addf %acc{j}, %dw{j} : {wide}")
    inner(f"scf.yield {', '.join(f'%next{j}' for j in range(vectors))} : {carried_types}")
    body.extend("  " + line for line in loop)
    emit("}")
    # This slot's sums: row b * rows_per_cta + slot of the partial buffer.
    if grouped:
        emit("%partial_first = arith.muli %bid, %c_rows_per_cta : index")
        emit("%partial_row = arith.addi %partial_first, %slot : index")
    else:
        emit("%partial_row = arith.addi %bid, %c0 : index")
    sums = RowAccess(config, emit, "%partial_row", lane, None, prefix="p_")
    for j in range(vectors):
        sums.store(f"%sums#{j}", "%partial", j, partial_t, wide)
    params = [f"%h: {rows_t}", f"%dy: {rows_t}"] + (
        [f"%dh_out: {rows_t}"] if accumulate else []) + [
        f"%w: {weight_t}", f"%dx: {rows_t}", f"%partial: {partial_t}", "%eps: f32"]
    layout = (f"a CTA of {threads} threads, {lanes} a row ({config.rows_per_cta} rows at a "
              f"time)" if grouped else f"one row at a time a CTA of {threads} threads")
    name = kernel_name(config)
    header = [f"// {name}: RMSNorm's derivative for rows of {hidden} {e}"
              f"{', adding dh_out' if accumulate else ''} (tile.ops.rms_norm_backward):",
              f"// {layout}, {vectors} 16-byte vector(s) of the row a thread; a persistent "
              f"grid."]
    constants = index_constants(c0=0, c_vector=VECTOR, c_hidden=hidden) + [
        f"%zeros = arith.constant dense<0.0> : {vec}",
        f"%zeros_f32 = arith.constant dense<0.0> : {wide}",
        f"%inv_hidden = arith.constant {f32_literal(1.0 / hidden)} : f32",
        "%tid = gpu.thread_id x", "%bid = gpu.block_id x"]
    return kernel_module(header, name, params, threads, constants + body)


#: The backward kernels, keyed by RmsNormConfig (residual: dh_out added).
RMS_NORM_BACKWARD = KernelFamily("rms_norm_backward", rms_norm_backward_source)


def backward_grid(config: RmsNormConfig, rows: int, sms: int) -> Tuple[int, int, int]:
    """The persistent grid: a CTA per group of rows, at most as many as the
    SMs hold at once (KERNEL_REGISTERS a thread)."""
    resident = sms * max(1, SM_REGISTERS // (KERNEL_REGISTERS * config.threads))
    return (max(1, min(cdiv(rows, config.rows_per_cta), resident)), 1, 1)


def _rows_view(torch, tensor, rows: int, hidden: int):
    """`tensor` as a (rows, H) view the kernel reads (row_stride's rules),
    else a contiguous copy of it (an autograd gradient may be an expanded
    or transposed view)."""
    try:
        pitch = row_stride("a gradient", operand_of(tensor))
    except OperandError:
        tensor, pitch = tensor.contiguous(), hidden
    return tensor.as_strided((rows, hidden), (pitch, 1))


def rms_norm_backward(torch, dy, h, weight, eps: float,
                      dh_out=None) -> Tuple[object, object]:
    """(dh, dw): the gradients of tile.rms_norm's input rows h (x, or x +
    residual) and of its weight, from the gradient dy of y (and, in the
    residual form, dh_out of h itself, added), on the current stream. dh has
    h's shape and type, dw the weight's. See the module's documentation."""
    index = require_cuda_tensors(torch, WHAT, dy=dy, h=h, weight=weight, dh_out=dh_out)
    require_alike(WHAT, (("dy", operand_of(dy)), ("h", operand_of(h)),
                         ("weight", operand_of(weight)),
                         ("dh_out", None if dh_out is None else operand_of(dh_out))),
                  FLOAT16_TYPES)
    hidden = h.shape[-1]
    for name, tensor in (("dy", dy), ("dh_out", dh_out)):
        if tensor is not None and tuple(tensor.shape) != tuple(h.shape):
            raise OperandError(f"{WHAT}: {name} must have h's shape {tuple(h.shape)}, got "
                               f"{tuple(tensor.shape)}")
    if tuple(weight.shape) != (hidden,) or hidden % VECTOR:
        raise OperandError(f"{WHAT}: the backward takes rows of a multiple of {VECTOR} "
                           f"elements and a weight of shape (H,); got h of shape "
                           f"{tuple(h.shape)} and weight of shape {tuple(weight.shape)}")
    rows = h.numel() // hidden if hidden else 0
    dh = torch.empty(h.shape, device=h.device, dtype=h.dtype)
    if rows == 0:
        return dh, torch.zeros_like(weight)
    device = devices.device(index)
    devices.require_hopper(WHAT, device)
    config = config_for(of_torch(h.dtype).name, hidden, dh_out is not None)
    grid = backward_grid(config, rows, device.sms)
    partial = torch.empty((grid[0] * config.rows_per_cta, hidden), device=h.device,
                          dtype=torch.float32)
    views = [_rows_view(torch, t, rows, hidden) for t in (h, dy)]
    if dh_out is not None:
        views.append(_rows_view(torch, dh_out, rows, hidden))
    arguments = (*views, weight.contiguous(), dh.view(rows, hidden), partial, float(eps))
    RMS_NORM_BACKWARD.kernel(config, kernel_name(config)).launch_on(index, arguments, grid)
    return dh, partial.sum(0).to(weight.dtype)

