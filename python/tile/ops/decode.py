"""The decode GEMM: C = A B for a small M (M <= 128), in tile IR.

A decode step multiplies a few rows of activations A (M x K) by a large
weight B; the work is streaming B from memory once. The kernel computes
C^T = B^T A^T: 64 or 128 columns of C per CTA (`columns`), with B's
`columns` x 64 K-slices as wgmma's A operand (m64, one or two) and A's
`rows` x 64 slices as its
B operand (n = `rows`, M rounded up to 8), so a stage holds 8 KB of B and
only `rows` x 128 bytes of A (TMA fills the at most 7 rows beyond M with
zeros). Warpgroup 0 (one thread of it)
fills a ring of `stages` stages with TMA; warpgroup 1 multiplies
(m64n`rows`k16, wait depth 1) and stores the `columns` x M tile transposed
(element by element, bounded). Layouts: "nt" (B is N x K, row-major: K-major
for wgmma) and "nn" (B is K x N, row-major: MN-major, wgmma's imm-trans-a).
With 8-bit A and B (FP8, "nt" only: FP8 wgmma reads both operands K-major)
a span is 128 of K (128 bytes, as 64 16-bit elements), wgmma k32, and the
row-wise or per-tensor scales dequantize C^T's accumulators
(tile.warpgroup_scale) before the store in bf16 or f16: tile.matmul's FP8
products of M <= 128 (tile.ops.scaled_matmul).

    python3 -m tile gemm-decode --layout nt --rows 16 --stages 12

prints the module (`tile-opt --tile-to-ptx-pipeline` lowers it).

Besides the generator: the choice of a decode kernel for a shape and device
(`decode_config`: wgmma's n, the columns a CTA computes, K splits, stages),
the kernels' family (DECODE, keyed by DecodeConfig) and their autotuner
(`decode_tuner`, for `tile.matmul(..., tune=True)`).
"""
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Tuple

from ..autotuner import Autotuner, Config
from ..core.devices import Device, device
from ..family import KernelFamily
from ..core.operands import cdiv
from ..toolchain import tool_version
from . import persistent
from ..core.elements import FP8_MAX
from .epilogue import GATE_BLOCK, Epilogue

#: wgmma's n for the M rows of a decode GEMM: M rounded up to 8. TMA
#: zero-fills A's rows beyond M, which costs more than reading rows: on an
#: H200, n = 40 against 64 at M = 33, 104 against 128 at M = 100 measured
#: 1.09-1.54x faster (bench/NOTES.md).
ROWS = tuple(range(8, 129, 8))
#: wgmma's n whose split-K fixup prefetches the next split (64 columns a
#: CTA): on an H200, 64x576x7168 in 7 splits 8.8 -> 7.5 µs, 48x2048x7168
#: 9.3 -> 8.7, 32x576x7168 7.0 -> 6.75; at n = 8 and 16 (1 and 2 loads a
#: thread a split) 1-4% slower (bench/NOTES.md).
PREFETCH_ROWS = range(32, 65)
#: Columns of C (rows of B^T) per CTA: one or two m64 wgmma tiles.
COLUMNS = (64, 128)
#: K per stage: one 128-byte swizzle span of 16-bit elements (of 8-bit
#: ones: FP8_SLICE).
SLICE = 64
FP8_SLICE = 128
#: The 8-bit element types (tile IR) of the FP8 decode kernels' A and B.
FP8_TYPES = ("f8E4M3FN", "f8E5M2")
#: Threads: the producer warpgroup and the consumer warpgroup.
THREADS = 256


@dataclass(frozen=True)
class DecodeConfig:
    """One decode kernel: B's layout ("nt" or "nn"), wgmma's n (`rows`,
    M <= rows), the ring depth, the element type ("f16" or "bf16"), the
    columns of C a CTA computes (`columns`, 64 or 128) and the
    64-wide K spans per stage (`spans`: 1 or 2; two read 256 contiguous
    bytes of each B row of an N x K B per stage). With `split_k` the grid's
    y dimension splits K: CTA (x, y) takes the y-th of gridDim.y shares of
    the stages and tile.split_k_reduce sums the shares (the kernel then takes
    a workspace of (tiles x splits x 128) rows of rows / 2 f32 and a counter
    per tile, zero before the first launch). FP8 (`element` e4m3 or e5m2,
    `b_element` B's if it differs, `out` C's bf16 or f16; layout "nt", as
    FP8 wgmma reads both operands K-major): 128 of K a span, and C =
    diag(sa) A B^T diag(sb) with the row-wise or per-tensor scales as two
    more arguments (tile.warpgroup_scale on C^T's accumulators)."""
    layout: str
    rows: int
    stages: int
    element: str = "f16"
    spans: int = 1
    split_k: bool = False
    columns: int = 64
    #: A fused epilogue (tile.ops.epilogue): the kernel then takes the bias
    #: and residual as N x M views (C^T's layout). Gated (128 columns, nt,
    #: 16-bit, no bias, a 16-bit C): B is read as (N / 16) x 2 x 8 x K, each
    #: stage's gate rows (the even 8-row blocks) by one [8, 1, 8, 64] box
    #: into its first 64 rows and the up rows into the next 64 (T-TMA-25),
    #: so the accumulators' first m64 block is 64 gate columns of C and the
    #: second their up columns, gated element by element into a 64 x M C^T
    #: tile (C's 64 columns N/2 ..).
    epilogue: Epilogue = Epilogue()
    #: FP8: B's element type where it is not A's, and C's type ("" for 16-bit
    #: kernels: C is of `element`).
    b_element: str = ""
    out: str = ""

    @property
    def fp8(self) -> bool:
        return self.element in FP8_TYPES

    @property
    def slice(self) -> int:
        """K elements of a span (128 bytes)."""
        return FP8_SLICE if self.fp8 else SLICE

    @property
    def name(self) -> str:
        suffix = ((f"_k{self.spans}" if self.spans != 1 else "")
                  + (f"_c{self.columns}" if self.columns != 64 else "")
                  + ("_sk" if self.split_k else ""))
        if self.fp8:
            suffix += (f"_{self.element[2:].lower()}_{(self.b_element or self.element)[2:].lower()}"
                       f"_{self.out}")
        return f"gemm_decode_{self.layout}_r{self.rows}_s{self.stages}{suffix}"

    @property
    def stage_bytes(self) -> int:
        return (self.columns + self.rows) * SLICE * 2 * self.spans

    @property
    def accumulators(self) -> int:
        """f32 accumulators a consumer thread holds (the split-K workspace's
        columns)."""
        return self.columns // 64 * self.rows // 2

    @property
    def prefetches_fixup(self) -> bool:
        """Whether the split-K fixup keeps the next split's loads in flight
        (`tile.split_k_reduce ... prefetch`): at 64 columns and n of
        PREFETCH_ROWS (16-32 accumulators a thread)."""
        return self.split_k and self.columns == 64 and self.rows in PREFETCH_ROWS

    @property
    def shared_bytes(self) -> int:
        """Dynamic shared memory: the two tile rings (the barriers are
        static)."""
        return self.stages * self.stage_bytes

    def workspace_shape(self, tiles: int, splits: int) -> Tuple[Tuple[int, int], int]:
        """((rows, columns) of the split-K workspace, counters) for `tiles`
        CTA tiles of `splits` splits: a slot of 128 rows of the consumer's
        accumulators per tile and split, one counter per tile."""
        return (tiles * splits * 128, self.accumulators), tiles

    def arguments(self, a, b, c, k: int, split_k=None, bias=None, residual=None, scale=None,
                  amax=None) -> tuple:
        """The kernel's arguments for A, B (in the kernel's layout), C and,
        with split_k, the workspace and counters of workspace_shape; with a
        fused epilogue, its bias and residual views (N x M, placeholders
        where it reads none); FP8: the scales of A and B (as bias and
        residual); an FP8 C (the epilogue's `out`): C's scale and amax."""
        fused = () if self.epilogue.trivial and not self.fp8 else (bias, residual)
        fused += (scale, amax) if self.epilogue.out else ()
        if self.epilogue.gated:
            # The interleaved N x K weight as its 8-row blocks' pairs.
            b = b.reshape(b.shape[0] // (2 * GATE_BLOCK), 2, GATE_BLOCK, b.shape[1])
        if self.split_k:
            workspace, counters = split_k
            return (a, b, c, k, workspace, counters) + fused
        return (a, b, c, k) + fused

    def validate(self) -> None:
        if self.layout not in ("nt", "nn"):
            raise ValueError(f"decode layout must be 'nt' or 'nn', got {self.layout!r}")
        if self.rows not in ROWS:
            raise ValueError(f"decode rows must be one of {ROWS}, got {self.rows}")
        if not 2 <= self.stages <= 64:
            raise ValueError(f"decode stages must be in [2, 64], got {self.stages}")
        if self.element not in ("f16", "bf16") + FP8_TYPES:
            raise ValueError(f"decode element must be f16, bf16 or an FP8 type "
                             f"{FP8_TYPES}, got {self.element}")
        if self.fp8 and (self.layout != "nt" or self.out not in ("bf16", "f16")
                         or (self.b_element or self.element) not in FP8_TYPES
                         or not self.epilogue.trivial):
            raise ValueError(f"an FP8 decode kernel is nt (both operands K-major), with an "
                             f"FP8 B, a bf16 or f16 C and no fused epilogue, got {self}")
        if self.spans not in (1, 2):
            raise ValueError(f"decode spans must be 1 or 2, got {self.spans}")
        if self.columns not in COLUMNS:
            raise ValueError(f"decode columns must be one of {COLUMNS}, got {self.columns}")
        if self.epilogue.gated and (self.layout != "nt" or self.fp8 or self.columns != 128
                                    or self.epilogue.bias or self.epilogue.out):
            raise ValueError(f"a gated decode kernel is nt with 16-bit operands, 128 columns a "
                             f"CTA (a gate and an up m64 block), no bias and a 16-bit C, got "
                             f"{self}")


def rows_for(m: int) -> int:
    """wgmma's n for M rows of A (M <= 128)."""
    for rows in ROWS:
        if m <= rows:
            return rows
    raise ValueError(f"the decode kernel takes M <= {ROWS[-1]}, got {m}")


#: The epilogue operands' type: N x M views of any strides (C^T's layout).
_VIEW = "memref<?x?x{e}, strided<[?, ?], offset: ?>>"


def fused_epilogue(config: DecodeConfig, value: str, indent: str) -> Tuple[str, str]:
    """(IR, result) of the fused epilogue on the C^T accumulators `value`:
    the bias and residual views added (tile.warpgroup_add, element by
    element: they are transposed) around the activation."""
    fused = config.epilogue
    if fused.trivial:
        return "", value
    vec = f"vector<{config.accumulators}xf32>"
    shape = f"array<i64: {config.columns}, {config.rows}>"
    view = _VIEW.format(e=config.element)
    lines = []
    if fused.bias:
        lines.append(f"%biased = tile.warpgroup_add {value}, %bias[%n0, %c0] {{shape = {shape}}}"
                     f" : {view}, {vec}")
        value = "%biased"
    if fused.gated:
        # The first m64 block holds the gate columns, the second their up
        # columns: act(gate) * up, a 64 x M tile of C^T at C's column %o0.
        half = config.accumulators // 2
        gated_vec, gated_shape = f"vector<{half}xf32>", f"array<i64: 64, {config.rows}>"
        lower, upper = (", ".join(str(i) for i in range(first, first + half))
                        for first in (0, half))
        lines += [f"%gate = vector.shuffle {value}, {value} [{lower}] : {vec}, {vec}",
                  f"%up = vector.shuffle {value}, {value} [{upper}] : {vec}, {vec}",
                  f"%activated = tile.warpgroup_activation <{fused.activation}> %gate "
                  f"{{shape = {gated_shape}}} : {gated_vec} -> {gated_vec}",
                  f"%gated = arith.mulf %activated, %up : {gated_vec}"]
        value, vec, shape = "%gated", gated_vec, gated_shape
    elif fused.activation != "identity":
        lines.append(f"%activated = tile.warpgroup_activation <{fused.activation}> {value} "
                     f"{{shape = {shape}}} : {vec} -> {vec}")
        value = "%activated"
    if fused.residual:
        lines.append(f"%with_residual = tile.warpgroup_add {value}, %residual[{_c_column(config)}, "
                     f"%c0] {{shape = {shape}}} : {view}, {vec}")
        value = "%with_residual"
    return "".join(f"{indent}{line}\n" for line in lines), value


def _c_column(config: DecodeConfig) -> str:
    """The SSA name of the CTA's first column of C: %n0 (= its first row of
    B^T), or for a gated kernel %o0 (half of it)."""
    return "%o0" if config.epilogue.gated else "%n0"


def _scaled(config: DecodeConfig, ir: str, value: str, indent: str) -> Tuple[str, str]:
    """FP8: (`ir` and the dequantization of `value`, C^T's accumulators:
    row factors sb, one per column of C; column factors sa, one per row;
    extent-1 scales are per tensor, T-TILE-8), else (ir, value)."""
    if not config.fp8:
        return ir, value
    return (f"{ir}{indent}%dequantized = tile.warpgroup_scale {value} rows %sb[%n0] : "
            f"memref<?xf32> columns %sa[%c0] : memref<?xf32>\n{indent}    {{shape = array<i64: "
            f"{config.columns}, {config.rows}>}} : vector<{config.accumulators}xf32>\n",
            "%dequantized")


def _quantized(config: DecodeConfig, ir: str, value: str, indent: str) -> Tuple[str, str]:
    """An FP8 C (the epilogue's `out`): (`ir` and C^T's accumulators
    `value` scaled by %scale[0] and, where saturating, clamped to the
    format's largest magnitude; the thread's amax in %peak), else (ir,
    value). Elements outside C are 0 (TMA's zero rows of A, the epilogue
    operands' extents), so the amax may take them (but 0 * inf: an inf in
    B makes it NaN, as C has an inf or NaN there too)."""
    fused = config.epilogue
    if not fused.out:
        return ir, value
    vec = f"vector<{config.accumulators}xf32>"
    lines = [f"%magnitudes = math.absf {value} : {vec}",
             f"%peak = vector.reduction <maximumf>, %magnitudes : {vec} into f32",
             "%scale_c = memref.load %scale[%c0] : memref<?xf32>",
             f"%scales = vector.broadcast %scale_c : f32 to {vec}",
             f"%scaled = arith.mulf {value}, %scales : {vec}"]
    value = "%scaled"
    if fused.saturate:
        largest = FP8_MAX[fused.out]
        lines += [f"%highs = arith.constant dense<{largest}> : {vec}",
                  f"%lows = arith.constant dense<{-largest}> : {vec}",
                  f"%below = arith.minimumf %scaled, %highs : {vec}",
                  f"%clamped = arith.maximumf %below, %lows : {vec}"]
        value = "%clamped"
    return ir + "".join(f"{indent}{line}\n" for line in lines), value


def _raise_amax(config: DecodeConfig, indent: str) -> str:
    """An FP8 C: each warp's largest %peak raises %amax[0] (non-negative
    floats order as their bits), else nothing."""
    if not config.epilogue.out:
        return ""
    lines = ["%peak_signed = arith.bitcast %peak : f32 to i32",
             # The magnitude's bits (a NaN's sign is unspecified): positive.
             "%magnitude = arith.constant 0x7FFFFFFF : i32",
             "%peak_bits = arith.andi %peak_signed, %magnitude : i32",
             "%warp_peak = gpu.subgroup_reduce maxsi %peak_bits uniform : (i32) -> i32",
             "%c32 = arith.constant 32 : index",
             "%warp_lane = arith.remui %tid, %c32 : index",
             "%leads = arith.cmpi eq, %warp_lane, %c0 : index",
             "scf.if %leads {",
             "  %old = memref.atomic_rmw maxs %warp_peak, %amax[%c0] : (i32, memref<?xi32>) -> i32",
             "}"]
    return "".join(f"{indent}{line}\n" for line in lines)


def decode_source(config: DecodeConfig) -> str:
    """The module holding the kernel `config.name`."""
    config.validate()
    e, r, s, w = config.element, config.rows, config.stages, config.spans
    # C: an FP8 epilogue's type, FP8 kernels' `out`, else the operands'.
    eb, ec = config.b_element or e, config.epilogue.out or config.out or e
    cols, chunks, ks = config.columns, config.columns // 64, config.slice
    nn = config.layout == "nn"
    gated = config.epilogue.gated
    # The rings, a stage of `w` K spans: A's r x 64 tiles; B's cols x 64
    # tiles, N x K rows (K-major) for nt, for nn K rows of cols / 64 spans of
    # 64 columns (MN-major chunks, one TMA box each).
    a_ring = f"memref<{s}x{w}x{r}x{ks}x{e}, 3>"
    b_ring = (f"memref<{s}x{w}x{chunks}x64x64x{eb}, 3>" if nn
              else f"memref<{s}x{w}x{cols}x{ks}x{eb}, 3>")
    transpose_a = ", transpose_a" if nn else ""
    copies, mmas = [], []
    for j in range(w):
        span = f"%c{j}" if j else "%c0"
        lines = [f"            %k{j} = arith.addi %kt, %c{ks * j} : index"]
        if nn:
            lines += [f"            tile.tma_copy %b[%k{j}, %n{q}] to %rb[%s, {span}, %c{q}], "
                      f"%full[%s] : !db, {b_ring}, !bars" for q in range(chunks)]
        elif gated:
            # The gate rows (block 0 of each pair) into rows 0..63, the up
            # rows into 64..127 (T-TMA-25).
            lines += [f"            tile.tma_copy %b[%j0, %c{g}, %c0, %k{j}] to %rb[%s, {span}, "
                      f"%c{64 * g}], %full[%s] : !db, {b_ring}, !bars" for g in (0, 1)]
        else:
            lines.append(f"            tile.tma_copy %b[%n0, %k{j}] to %rb[%s, {span}], %full[%s] "
                         f": !db, {b_ring}, !bars")
        lines.append(f"            tile.tma_copy %a[%c0, %k{j}] to %ra[%s, {span}], %full[%s] "
                     f": !da, {a_ring}, !bars")
        copies.append("\n".join(lines))
        b_tile = (f"%rb[%s, {span}, %c0, %c0, %c0]" if nn else f"%rb[%s, {span}, %c0, %c0]")
        into = "%next_sum" if j == w - 1 else f"%sum{j + 1}"
        mmas.append(f"""          {into} = tile.warpgroup_mma {b_tile}, %ra[%s, {span}, %c0, %c0], %sum{j if j else ''}
              {{shape = array<i64: {cols}, {r}, {ks}>, wait = 1 : i32{transpose_a}}}
              : {b_ring}, {a_ring}, vector<{config.accumulators}xf32>""")
    copies_text, mmas_text = "\n".join(copies), "\n".join(mmas)
    half = config.accumulators
    # C's tile: cols x M (C^T), or gated 64 x M at column %o0.
    out_cols, out_half = (64, half // 2) if gated else (cols, half)
    c_column = _c_column(config)
    chunk_columns = "".join(f"      %n{q} = arith.addi %n0, %c{64 * q} : index\n"
                            for q in range(1, chunks if nn else 1))
    if config.split_k:
        split_params = f", %ws: memref<?x{half}xf32>, %counters: memref<?xi32>"
        # Split y of gridDim.y takes stages [y slices / splits, (y + 1)
        # slices / splits): shares differ by at most one stage.
        split_range = """      %by = gpu.block_id y
      %splits = gpu.grid_dim y
      %by1 = arith.addi %by, %c1 : index
      %t0s = arith.muli %by, %slices : index
      %t0 = arith.divui %t0s, %splits : index
      %t1s = arith.muli %by1, %slices : index
      %t1 = arith.divui %t1s, %splits : index
"""
        lo, hi = "%t0", "%t1"
        fused, out = fused_epilogue(config, "%sum", "          ")
        fused, out = _scaled(config, fused, out, "          ")
        fused, out = _quantized(config, fused, out, "          ")
        prefetch = " prefetch" if config.prefetches_fixup else ""
        epilogue = f"""        %last, %sum = tile.split_k_reduce %acc#0, %ws, %counters, tile %bx, split %by of %splits{prefetch}
            : vector<{half}xf32>, memref<?x{half}xf32>, memref<?xi32>
        scf.if %last {{
{fused}          tile.warpgroup_mma_store {out}, %c[%c0, {c_column}] bounds [%m, %n]
              {{shape = array<i64: {out_cols}, {r}>, transpose}} : vector<{out_half}xf32>, memref<?x?x{ec}>
{_raise_amax(config, "          ")}        }}"""
    else:
        split_params, split_range, lo, hi = "", "", "%c0", "%slices"
        fused, out = fused_epilogue(config, "%acc#0", "        ")
        fused, out = _scaled(config, fused, out, "        ")
        fused, out = _quantized(config, fused, out, "        ")
        epilogue = f"""{fused}        tile.warpgroup_mma_store {out}, %c[%c0, {c_column}] bounds [%m, %n]
            {{shape = array<i64: {out_cols}, {r}>, transpose}} : vector<{out_half}xf32>, memref<?x?x{ec}>
{_raise_amax(config, "        ")}"""
    if not config.epilogue.trivial:
        split_params += f", %bias: {_VIEW.format(e=e)}, %residual: {_VIEW.format(e=e)}"
    if config.fp8:
        split_params += ", %sa: memref<?xf32>, %sb: memref<?xf32>"
    if config.epilogue.out:
        split_params += ", %scale: memref<?xf32>, %amax: memref<?xi32>"
    # B's tensor map: N x K rows, K x N chunks (nn), or gated the pairs of
    # 8-row blocks ((N / 16) x 2 x 8 x K) in boxes of one block each.
    b_desc = (f"!tile.tma_desc<memref<?x2x{GATE_BLOCK}x?x{eb}>, box = [{GATE_BLOCK}, 1, "
              f"{GATE_BLOCK}, {ks}], swizzle = b128>" if gated else
              f"!tile.tma_desc<memref<?x?x{eb}>, box = [{64 if nn else cols}, {ks}], "
              f"swizzle = b128>")
    # Gated: the CTA's first pair of 8-row blocks, and its first column of C.
    gated_columns = (f"      %pairs = arith.constant {cols // (2 * GATE_BLOCK)} : index\n"
                     "      %j0 = arith.muli %bx, %pairs : index\n"
                     "      %o0 = arith.muli %bx, %c64 : index\n") if gated else ""
    span_constants = "".join(f"      %c{j} = arith.constant {j} : index\n" for j in range(2, w))
    offset_constants = "".join(f"      %c{ks * j} = arith.constant {ks * j} : index\n"
                               for j in range(2, w))
    return f"""// {config.name}: C = A B{'' if nn else '^T'} for M <= {r} (tile.ops.decode).
!da = !tile.tma_desc<memref<?x?x{e}>, box = [{r}, {ks}], swizzle = b128>
!db = {b_desc}
!bars = !tile.mbarrier<count = {s}>
module attributes {{gpu.container_module}} {{
  gpu.module @kernels {{
    // CTA x computes C[0:M, {cols} x : {cols} x + {cols}] as the transpose of
    // B^T[{cols} x : {cols} x + {cols}, :] A^T, {64 * w} of K a stage.
    gpu.func @{config.name}(%a: !da, %b: !db, %c: memref<?x?x{ec}>, %k: index{split_params}) kernel
        attributes {{known_block_size = array<i32: {THREADS}, 1, 1>}} {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
{span_constants}      %c64 = arith.constant 64 : index
{offset_constants}      %c128 = arith.constant 128 : index
      %cs = arith.constant {s} : index
      %stage_k = arith.constant {ks * w} : index
      %stage_k1 = arith.constant {ks * w - 1} : index
      %copies = arith.constant {w * (1 + (chunks if nn or gated else 1))} : i32
      %consumers = arith.constant 1 : i32
      %false = arith.constant false
      %true = arith.constant true
      %m = memref.dim %c, %c0 : memref<?x?x{ec}>
      %n = memref.dim %c, %c1 : memref<?x?x{ec}>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %cols = arith.constant {cols} : index
      %n0 = arith.muli %bx, %cols : index
{gated_columns}{chunk_columns}      %kr = arith.addi %k, %stage_k1 : index
      %slices = arith.divui %kr, %stage_k : index
{split_range}      %ra = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {a_ring}
      %rb = tile.shared_alloc dynamic {{swizzle = #tile.swizzle<b128>}} : {b_ring}
      %full = tile.mbarrier_alloc : !bars
      %empty = tile.mbarrier_alloc : !bars
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {{
        tile.tma_prefetch_descriptor %a : !da
        tile.tma_prefetch_descriptor %b : !db
        scf.for %i = %c0 to %cs step %c1 {{
          tile.mbarrier_init %full[%i], %copies : !bars
          tile.mbarrier_init %empty[%i], %consumers : !bars
        }}
      }}
      gpu.barrier
      // Launched as a programmatic dependent: global memory only after the
      // grid before this one (T-PDL-1, T-PDL-2). No early trigger
      // (tile.launch_dependents): the next kernel's CTAs, placed beside
      // this grid's last ones, made both slower (bench/NOTES.md).
      tile.grid_dependency_wait
      // Warpgroup 0 produces (its first thread), warpgroup 1 consumes.
      %producer = arith.cmpi ult, %tid, %c128 : index
      scf.if %producer {{
        scf.if %first {{
          %p:2 = scf.for %t = {lo} to {hi} step %c1 iter_args(%s = %c0, %ph = %true) -> (index, i1) {{
            tile.mbarrier_wait_parity %empty[%s], %ph : !bars
            %kt = arith.muli %t, %stage_k : index
{copies_text}
            %next = arith.addi %s, %c1 : index
            %wrap = arith.cmpi eq, %next, %cs : index
            %ns = arith.select %wrap, %c0, %next : index
            %nph = arith.xori %ph, %wrap : i1
            scf.yield %ns, %nph : index, i1
          }}
        }}
      }} else {{
        // The consumer warpgroup's first thread (thread 128) releases a
        // stage once the next stage's wgmmas are issued (wait depth 1).
        %signals = arith.cmpi eq, %tid, %c128 : index
        %zero = arith.constant dense<0.0> : vector<{half}xf32>
        %acc:4 = scf.for %t = {lo} to {hi} step %c1
            iter_args(%sum = %zero, %s = %c0, %ph = %false, %prev = %c0)
            -> (vector<{half}xf32>, index, i1, index) {{
          tile.mbarrier_wait_parity %full[%s], %ph : !bars
{mmas_text}
          %later = arith.cmpi ugt, %t, {lo} : index
          %release = arith.andi %later, %signals : i1
          scf.if %release {{
            %tok = tile.mbarrier_arrive %empty[%prev] : !bars -> !tile.mbarrier_token
          }}
          %next = arith.addi %s, %c1 : index
          %wrap = arith.cmpi eq, %next, %cs : index
          %ns = arith.select %wrap, %c0, %next : index
          %nph = arith.xori %ph, %wrap : i1
          scf.yield %next_sum, %ns, %nph, %s : vector<{half}xf32>, index, i1, index
        }}
        tile.wgmma_wait_group 0
{epilogue}
      }}
      gpu.return
    }}
  }}
}}
"""


#: The decode kernels, one module per DecodeConfig (its name is the kernel's).
DECODE = KernelFamily("gemm_decode", decode_source)

#: Static shared memory of a decode kernel (its mbarriers, 1024-aligned).
STATIC_SHARED = 1024
#: Shared memory the driver reserves per CTA (sm_90), beside the kernel's.
RESERVED_SHARED = 1024
#: Shared memory per SM (sm_90: 228 KB).
SM_SHARED = 233472
#: B bytes a decode kernel keeps in flight per SM, and K spans per stage:
#: 96 KB in stages of two spans measured best on an H200 with one CTA an SM,
#: 128 KB (64 KB each) with two (bench/NOTES.md).
B_IN_FLIGHT = 96 * 1024
B_IN_FLIGHT_SHARED = 128 * 1024
SPANS = 2
#: Split-K: at most this many splits, each at least this many stages.
MAX_SPLITS = 16
MIN_SPLIT_STAGES = 8
#: wgmma n up to which split-K is used wherever it splits: the last CTA of a
#: tile reads every split's partials back, latency-bound, so 32+
#: accumulators a thread (n = 64, 128) measured slower split in 2 than not
#: (bench/NOTES.md). Above it, only where the CTAs are so few that K splits
#: in WIDE_MIN_SPLITS or more (H100, bf16: 64 x 576 x 7168 13.7 -> 9.3 µs
#: in 4 splits, 64 and 128 x 1536 x 7168 1.3-1.4x faster in 4;
#: 64 x 4096 x 4096 in 2 1.1x slower).
SPLIT_K_MAX_ROWS = 32
WIDE_MIN_SPLITS = 4
#: Stages (of SPANS spans) of a ring shallow enough that every CTA of a grid
#: is resident at once, taken where the rule's deeper ring would leave CTAs
#: for a second round (decode_config): NVIDIA H200, bf16 nt, 16 and 32 x
#: 18432 x 7168 1.15x, 16 and 32 x 24576 x 1536 1.04x, 1 x 28672 x 4096
#: 1.06x faster; shallower rings, or grids too large to be resident with
#: this one, measured level or slower (bench/NOTES.md).
RESIDENT_STAGES = 3


def decode_config(m: int, n: int, k: int, b_transposed: bool, element: str,
                  device: Device, slice_k: int = SLICE,
                  columns: Optional[int] = None) -> DecodeConfig:
    """The decode kernel for M <= 128 (`slice_k`: the K elements of a
    128-byte span, FP8_SLICE for 8-bit operands): wgmma's n the smallest
    that holds M;
    64 or 128 columns of C a CTA (decode_columns; 128 with one K span a stage);
    split-K for n <= SPLIT_K_MAX_ROWS, above it in WIDE_MIN_SPLITS or more
    splits only; SPANS K spans a stage and stages for
    B_IN_FLIGHT bytes of B per SM, shared by the CTAs of an SM — one when
    ceil(N / 64) CTAs fit on the SMs, else two — as far as their shared
    memory allows, and RESIDENT_STAGES where that makes a grid resident
    that the deeper ring would not; `columns` where given (a gated kernel's
    128). (`tile.matmul(..., tune=True)` searches the rest.)"""
    rows = rows_for(m)
    columns = columns or decode_columns(rows, n, k, device, slice_k, b_transposed)
    # 128 columns: one K span a stage measured best; split-K only pays where
    # the partials are few (bench/NOTES.md). For n = 64, two spans where the
    # CTAs run one an SM (fewer than the SMs, or more than two an SM's
    # worth) and four stages: 128 KB of B in flight an SM.
    spans = SPANS if columns == 64 else 1
    wide_n64 = columns == 128 and 32 < rows <= 64
    if wide_n64 and k > WIDE_COLUMNS_MAX_K and not (
            device.sms < cdiv(n, 128) <= 2 * device.sms):
        spans = SPANS
    splits = decode_splits(n, k, device, columns, slice_k)
    if rows > SPLIT_K_MAX_ROWS and splits < WIDE_MIN_SPLITS:
        splits = 1
    ctas_per_sm = 1 if cdiv(n, columns) * splits <= device.sms else 2
    if wide_n64:
        ctas_per_sm = 2 if spans == 1 else 1
    limit = SM_SHARED // ctas_per_sm - RESERVED_SHARED - STATIC_SHARED
    if device.shared_optin is not None:
        limit = min(limit, device.shared_optin - STATIC_SHARED)
    probe = DecodeConfig("nt" if b_transposed else "nn", rows, 2, element, spans,
                         columns=columns)
    b_stage_bytes = columns * SLICE * 2 * spans
    in_flight = B_IN_FLIGHT if ctas_per_sm == 1 else B_IN_FLIGHT_SHARED
    stages = max(2, min(in_flight // b_stage_bytes // ctas_per_sm,
                        limit // probe.stage_bytes))
    if wide_n64:
        stages = min(WIDE_STAGES, limit // probe.stage_bytes)
    elif spans == SPANS:
        # A grid beyond what the SMs hold at once with this ring runs its
        # last CTAs in a second round, mostly alone: a ring of
        # RESIDENT_STAGES stages where that holds them all.
        ctas = cdiv(n, columns) * splits
        if ctas > resident_ctas(probe.stage_bytes * stages, device) and ctas <= resident_ctas(
                probe.stage_bytes * RESIDENT_STAGES, device):
            stages = min(stages, RESIDENT_STAGES)
    return replace(probe, stages=stages, split_k=splits > 1)


def resident_ctas(shared_bytes: int, device: Device) -> int:
    """How many decode CTAs of `shared_bytes` of dynamic shared memory the
    SMs hold at once (the decode kernels' 256 threads and registers never
    bound it first)."""
    return SM_SHARED // (shared_bytes + STATIC_SHARED + RESERVED_SHARED) * device.sms


#: K up to which a 16-bit decode kernel of n <= 64 takes 128 columns of C a
#: CTA where that many CTAs still fill the SMs (decode_columns).
WIDE_COLUMNS_MAX_K = 512
#: Ring stages of an n = 64 decode kernel on 128 columns (decode_config).
WIDE_STAGES = 4


def decode_columns(rows: int, n: int, k: int, device: Device, slice_k: int = SLICE,
                   b_transposed: bool = True) -> int:
    """Columns of C a decode CTA computes: for n > 64, 128 where ceil(N /
    128) CTAs still fill 3/4 of the SMs (the A tile then stays a third of
    each stage), else 64 (twice the CTAs, each with less B in flight). For
    16-bit A B^T (an N x K B, as measured): at n = 64, 128 where ceil(N /
    128) CTAs fill 3/5 of the SMs (each CTA's A tile, a third of a stage,
    is read for twice the B); at any n <= 64, 128 where they fill the SMs
    and K <= WIDE_COLUMNS_MAX_K (a 64-column CTA's B of a short K is too
    little to amortize its start). Measured on an H200 (bench/NOTES.md):
    M = 1..64 at 32768 x 512 1.17-1.31x faster; M = 64 at N = 10240-128256
    1.01-1.26x; n <= 32 from K = 768 on level or up to 10% slower, so 64
    there."""
    if rows > 64:
        return 128 if 4 * cdiv(n, 128) >= 3 * device.sms else 64
    if slice_k != SLICE or not b_transposed:
        return 64
    tiles = cdiv(n, 128)
    if (tiles >= device.sms and k <= WIDE_COLUMNS_MAX_K) or (
            rows > 32 and 5 * tiles >= 3 * device.sms):
        return 128
    return 64


def decode_splits(n: int, k: int, device: Device, columns: int = 64,
                  slice_k: int = SLICE) -> int:
    """K splits of a decode GEMM: when ceil(N / columns) CTAs would leave
    half the SMs idle, as many as fill the SMs (at most MAX_SPLITS), each
    with at least MIN_SPLIT_STAGES stages of K (of SPANS spans of
    `slice_k`; an empty N plans one tile, never launched)."""
    tiles = max(1, cdiv(n, columns))
    if 2 * tiles > device.sms:
        return 1
    stages = cdiv(k, slice_k * SPANS)
    return max(1, min(device.sms // tiles, stages // MIN_SPLIT_STAGES, MAX_SPLITS))


#: The decode kernels' cost in persistent.SLICE_COST's units (a 256-wide
#: persistent tile's K-slice, per column), for tile.matmul's choice at M >
#: 96: a CTA's 64 x 64 slice of B against 128 rows of A (one consumer
#: warpgroup; 0.72 of a 128-wide persistent slice's 138 for half its
#: work), and a split CTA's fixup of DECODE_FIXUP_SLICES +
#: DECODE_FIXUP_SLICES_PER_SPLIT x splits slices. Fitted on an NVIDIA H200
#: at twelve bf16 shapes of M = 96 and 128 (bench/NOTES.md).
DECODE_SLICE_COST = 100
DECODE_FIXUP_SLICES, DECODE_FIXUP_SLICES_PER_SPLIT = 12, 9


def decode_cost(config: DecodeConfig, n: int, k: int, device: Device) -> float:
    """The estimated time of `config` on N x K, as persistent.tile_width
    estimates the persistent kernel's: the busiest SM's 64 x 64 slices of B
    (its CTAs' K shares of `columns` / 64 slices, ceil(CTAs / SMs) a SM)
    and a split's fixup, times DECODE_SLICE_COST."""
    columns, splits, _ = decode_grid(config, n, k, device)
    spans = cdiv(cdiv(k, config.slice * config.spans), splits) * config.spans
    slices = spans * config.columns // 64 * cdiv(columns * splits, device.sms)
    fixup = (DECODE_FIXUP_SLICES + DECODE_FIXUP_SLICES_PER_SPLIT * splits) if splits > 1 else 0
    return (slices + fixup) * DECODE_SLICE_COST


def decode_grid(config: DecodeConfig, n: int, k: int, device: Device) -> Tuple[int, int, int]:
    """One CTA per `config.columns` columns of C, times the K splits."""
    return (cdiv(n, config.columns),
            decode_splits(n, k, device, config.columns, config.slice) if config.split_k else 1,
            1)


#: What the autotuner tries (tile.matmul(..., tune=True)): ring depths, K
#: spans a stage and K splits; splits only where the CTAs stay one wave.
TUNE_STAGES = (2, 3, 4, 6, 8, 12)
TUNE_SPANS = (1, 2)
TUNE_SPLITS = (1, 2, 4, 8)
_TUNER = None


def with_config(plan, config: Config):
    """`plan` (a tile.ops.matmul.MatmulPlan of a decode kernel) running the
    decode kernel of a tuner config."""
    decode = replace(plan.decode, rows=config["rows"], stages=config["stages"],
                     spans=config["spans"], columns=config["columns"],
                     split_k=config["splits"] > 1)
    return replace(plan, kernel=decode.name, decode=decode,
                   grid=(cdiv(plan.n, decode.columns), config["splits"], 1))


def decode_tuner() -> Autotuner:
    """The autotuner of the decode kernels, on (A, B, C, plan) with the
    call's MatmulPlan: for each (layout, wgmma n, N, K, element) it times
    the ring depths of TUNE_STAGES, the K spans of TUNE_SPANS, the column
    widths and the K splits of TUNE_SPLITS that fit (shared memory, one wave
    of CTAs) — once per card, tool version and generator; cached on disk."""
    global _TUNER
    if _TUNER is None:
        import torch

        def run(config, a, b, c, plan):
            tuned = with_config(plan, config)
            index = a.get_device()
            split_k = (persistent.split_k_buffers(
                torch, tuned.decode.workspace_shape(*tuned.grid[:2]), index)
                       if tuned.decode.split_k else None)
            DECODE.kernel(tuned.decode, tuned.kernel)(
                *tuned.decode.arguments(a, b, c, plan.k, split_k), grid=tuned.grid)
            return c

        def fits(config, a, b, c, plan):
            """The shape's wgmma n; K splits that keep one wave of CTAs and
            at least two stages a split."""
            if config["rows"] != plan.decode.rows:
                return False
            splits = config["splits"]
            stages = cdiv(plan.k, SLICE * config["spans"])
            tiles = cdiv(plan.n, config["columns"])
            return splits == 1 or (tiles * splits <= device(a.get_device()).sms
                                   and stages // splits >= 2)

        def reference(a, b, c, plan):
            return a.float() @ (b.float().t() if plan.b_transposed else b.float())

        _TUNER = Autotuner(
            run, [Config(rows=r, stages=s, spans=w, columns=c, splits=p) for r in ROWS
                  for c in ((64, 128) if r > 64 else (64,))
                  for s in TUNE_STAGES for w in TUNE_SPANS for p in TUNE_SPLITS],
            key=lambda a, b, c, plan: (plan.decode.layout, plan.decode.rows, plan.n, plan.k,
                                       plan.element),
            prune=fits,
            shared_bytes=lambda config: (DecodeConfig("nt", config["rows"], config["stages"],
                                                      spans=config["spans"],
                                                      columns=config["columns"]).shared_bytes
                                         + STATIC_SHARED),
            reference=reference, name="tile.matmul.decode", version=_version)
    return _TUNER


def _version() -> str:
    """What a tuned decode choice depends on besides the card: tile-opt and
    this generator."""
    generator = Path(__file__).read_bytes()
    return tool_version() + hashlib.sha256(generator).hexdigest()[:16]
