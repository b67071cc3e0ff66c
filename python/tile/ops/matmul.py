"""C = A B on the Hopper GEMM kernels, from PyTorch.

    c = tile.matmul(a, b)                    # A (M x K) @ B (K x N)
    c = tile.matmul(a, b, transpose_b=True)  # A (M x K) @ B (N x K)^T
    tile.matmul(a, b, out=c, stream=s)       # into c, on stream s

f16 or bf16 operands, f32 accumulation, C in the operands' type. The kernel
follows from B's layout in memory, not from `transpose_b`: a row-major K x N
B runs @gemm_nn of kernels/gemm_sm90.mlir, a row-major N x K B
(`transpose_b=True`, or the transposed view of one) runs @gemm_nt; for
M <= 96 (decode and small batches), and up to M = 128 where it is estimated
no slower (decode_pays), either layout runs a decode kernel of
tile.ops.decode, which streams B once over ceil(N / 64) CTAs (or
ceil(N / 128) for M > 64 and a large N, or K <= 512). The persistent grids take one
CTA per SM, or per tile (and split along K) where the tiles do not fill the
SMs (tile.ops.persistent.persistent_grid); the kernels' shared memory comes
from their manifest.
A is row-major M x K or M-major (the transpose of a row-major K x M matrix:
a backward pass's A^T), which the persistent kernels read in place
(a_mn_major) and the decode kernels as a staged row-major copy.
Launches run on the device of the operands (all on one), stream-ordered
(PyTorch's current stream there unless `stream` is given), and do not wait.

TMA needs 16-byte aligned base addresses and row strides (T-TMA-9, T-TMA-10):
A and B whose rows are not (a K, or for a K x N B an N, that is not a
multiple of 8) are staged through copies with aligned rows (buffers kept
per stream, shape and device, at most 16) — the kernels then read views of
the copies whose width is the operand's, so TMA zero-fills past it — or,
with `stage=False`, raise MatmulError naming the rule. C of any N is
written in place: by TMA where its rows allow, else by the kernels'
own stores (element by element, at any element address; staged only for
an FP8 C). Rows (an M-major A's columns) must be
contiguous (any pitch) and the GPU an sm_90; anything else raises
MatmulError. FP8 operands go to
tile.ops.scaled_matmul.

`plan_matmul` is the decision on plain shapes, strides and addresses (no
PyTorch, no GPU), for tests and for tools that launch the kernels themselves
(bench/).
"""
import re
import threading
from dataclasses import dataclass, replace
from typing import Dict, Optional, Tuple

from ..core import devices, streams
from ..core.caches import LruCache, placeholders
from ..core.elements import (BY_NAME as ELEMENT_BY_NAME, BY_TORCH, FLOAT16_TYPES,
                             ELEMENTS as ELEMENT_TYPES, dtype_name, of_torch)
from ..core.errors import MatmulError
from ..compiler import redefine_aliases
from ..family import KernelFamily
from ..toolchain import read_kernel
from ..core.operands import (TMA_ALIGNMENT, Operand, columns_contiguous, operand_of,
                             require_cuda_tensors, require_one_device, rows_contiguous,
                             signature)
from ..core.streams import new_output
from . import decode as decode_kernels
from . import persistent
from .decode import ROWS, DecodeConfig, decode_config, decode_grid
from .epilogue import (GATE_BLOCK, Epilogue, activate, apply_epilogue, epilogue_aliases,
                       quantize)
from .scaled_matmul import scaled_matmul
from .staging import stage_rows_grid, stage_rows_kernel
from ..core.routing import no_backward, operators, recorded, routed

def tile_width_aliases(tile_n: int) -> Dict[str, str]:
    """The aliases of kernels/gemm_sm90.mlir that make its tiles `tile_n`
    (256 as written, or one of persistent.TILE_WIDTHS) columns wide, with their
    ring's stages."""
    width = persistent.chunk_columns(tile_n)
    chunks, stages = tile_n // width, persistent.RING_STAGES[tile_n]
    # A B's B: N / W chunks of 64 K rows x W columns a stage, each a
    # swizzle span.
    swizzle = persistent.chunk_swizzle(width, 2)
    return {**persistent.width_aliases(tile_n, 64),
            "#b_chunks": f"{chunks} : index", "#b_chunk": f"{width} : index",
            "#nn_copies": f"{1 + chunks} : i32",
            "!dbt": persistent.chunk_descriptor("!e", width, swizzle),
            "#bt_swizzle": f"#tile.swizzle<{swizzle}>",
            "!ring_bt": f"memref<{stages}x{chunks}x64x{width}x!e, 3>"}


#: A variant's last element for A M-major (a_mn_major).
A_MN = "a_mn"


def pingpong_aliases(tile_n: int, epilogue: Epilogue) -> Dict[str, str]:
    """The aliases of kernels/gemm_sm90.mlir that give each consumer
    warpgroup every other tile `tile_n` (one of persistent.PINGPONG_WIDTHS)
    columns wide, all 128 rows of it (#pingpong): 128 x tile_n / 128
    accumulators a thread, the wgmma, epilogue and store shapes of 128
    rows, and the split-K workspace's columns (one per accumulator)."""
    out_n = tile_n // epilogue.out_div
    return {**persistent.pingpong_aliases(tile_n, 64, out_n, "!ce"),
            "!out": f"vector<{out_n}xf32>", "#out_tile": f"array<i64: 128, {out_n}>"}


def gemm_source(variant: Tuple) -> str:
    """kernels/gemm_sm90.mlir for a variant (element,), (element, tile
    width) or (element, tile width, epilogue), or one of those followed by
    A_MN or by persistent.PINGPONG: its element alias, its tile width's and epilogue's
    aliases when not as written, and A M-major (a_mn_major) with A_MN,
    ping-pong consumers (pingpong_aliases) with persistent.PINGPONG."""
    a_mn, pingpong = variant[-1] == A_MN, variant[-1] == persistent.PINGPONG
    variant = variant[:-1] if a_mn or pingpong else variant
    text = redefine_aliases(read_kernel("gemm_sm90.mlir"), {"!e": variant[0]})
    if len(variant) > 1:
        tile_n = variant[1]
        fused = variant[2] if len(variant) > 2 else Epilogue()
        text = redefine_aliases(text, {**tile_width_aliases(tile_n),
                                       **epilogue_aliases(fused, tile_n),
                                       **(pingpong_aliases(tile_n, fused) if pingpong else {})})
    return a_mn_major(text) if a_mn else text


#: a_mn_major's rewrites of the kernels' text: (written, M-major, count).
_A_MN_REWRITES = (
    # A's box: 64 K rows of a 64-column (one swizzle span) chunk of M.
    ("!da = !tile.tma_desc<memref<?x?x!e>, box = [128, 64], swizzle = b128>",
     "!da = !tile.tma_desc<memref<?x?x!e>, box = [64, 64], swizzle = b128>", 1),
    # Two copies of A a stage (the tile's two 64-row halves of M).
    ("      %copies = arith.constant 2 : i32\n",
     "      %copies = arith.constant 3 : i32\n", 1),
    ("      %copies = arith.constant #nn_copies\n",
     "      %copies_b = arith.constant #nn_copies\n"
     "      %one_more = arith.constant 1 : i32\n"
     "      %copies = arith.addi %copies_b, %one_more : i32\n", 1),
    ("tile.tma_copy %a[%m0, %k0] to %ra[%s], %full[%s] : !da, !ring_a, !bars\n",
     "tile.tma_copy %a[%k0, %m0] to %ra[%s, %c0], %full[%s] : !da, !ring_a, !bars\n"
     "              %m0_hi = arith.addi %m0, %c64 : index\n"
     "              tile.tma_copy %a[%k0, %m0_hi] to %ra[%s, %c1], %full[%s] "
     ": !da, !ring_a, !bars\n", 2),
    # Warpgroup wg reads M chunk wg, MN-major (wgmma's imm-trans-a).
    ("%next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0], %acc\n"
     "                  {shape = #mma, wait = 1 : i32}",
     "%next_acc = tile.warpgroup_mma %ra[%s, %wg, %c0, %c0], %rb[%s, %c0, %c0], %acc\n"
     "                  {shape = #mma, wait = 1 : i32, transpose_a}", 1),
    ("%next_acc = tile.warpgroup_mma %ra[%s, %row, %c0], %rb[%s, %c0, %c0, %c0], %acc\n"
     "                  {shape = #mma, wait = 1 : i32, transpose_b}",
     "%next_acc = tile.warpgroup_mma %ra[%s, %wg, %c0, %c0], %rb[%s, %c0, %c0, %c0], %acc\n"
     "                  {shape = #mma, wait = 1 : i32, transpose_a, transpose_b}", 1))


def a_mn_major(text: str) -> str:
    """gemm_sm90.mlir's kernels (any variant's text) with A M-major: A
    passed as its transpose, a row-major K x M matrix (a backward pass's
    dB = A^T dC takes the row-major activations so), loaded in 64 x 64
    boxes into a ring of (stage, M chunk, K row, span) tiles that each
    consumer warpgroup reads as its chunk with wgmma's imm-trans-a
    (T-WGMMA-1's MN-major descriptor). The stage holds the same bytes. The
    host functions of the file keep their M x K A: a tile-run of this text
    is not its check."""
    ring = re.search(r"!ring_a = memref<(\d+)x128x64x!e, 3>", text)
    assert ring, "gemm_sm90.mlir: !ring_a moved"
    text = text.replace(ring.group(0), f"!ring_a = memref<{ring.group(1)}x2x64x64x!e, 3>")
    for written, rewritten, count in _A_MN_REWRITES:
        assert text.count(written) == count, f"gemm_sm90.mlir: '{written[:60]}' moved"
        text = text.replace(written, rewritten)
    return text


#: The persistent kernels @gemm_nt and @gemm_nn; a variant is (element,) or,
#: for tiles other than 256 wide or a fused epilogue, (element, tile
#: width[, epilogue]).
GEMM = KernelFamily("gemm_sm90.mlir", gemm_source)


def gemm_variant(element: str, tile_n: int, fused: Optional[Epilogue] = None,
                 a_mn: bool = False, pingpong: bool = False) -> Tuple:
    """GEMM's variant of `element`, tiles `tile_n` wide, epilogue `fused`
    and, with `a_mn`, A M-major (a_mn_major), or with `pingpong`, ping-pong
    consumers (pingpong_aliases; not with `a_mn`)."""
    if a_mn and pingpong:
        raise ValueError("ping-pong consumers read A row-major (no a_mn)")
    if a_mn or pingpong:
        return (element, tile_n, fused or Epilogue(), A_MN if a_mn else persistent.PINGPONG)
    if fused is not None and not fused.as_written:
        return (element, tile_n, fused)
    return (element,) if tile_n == persistent.TILE[1] else (element, tile_n)


#: M up to which the decode kernels run, both layouts.
DECODE_MAX_M = ROWS[-1]
#: M above which the persistent kernel runs where its estimated time beats
#: the decode kernel's (decode_pays): with 128 rows, a decode CTA's one
#: consumer warpgroup issues half the persistent kernel's MMA work a slice
#: (NVIDIA H200, bf16, decode / persistent: 128 x 28672 x 4096 86.5 / 67.1
#: µs, 128 x 10240 x 8192 91.7 / 46.7, but 128 x 4096 x 4096 12.1 / 13.7 and
#: M = 96 at 4096 x 4096 10.0 / 14.6).
DECODE_ONLY_M = 96
#: Element types (PyTorch dtype names) of the 16-bit kernels.
ELEMENTS = FLOAT16_TYPES


@dataclass(frozen=True)
class MatmulPlan:
    """One launch: the kernel, its element type, the problem, its grid,
    whether B is passed as the transpose of the logical K x N view, and the
    operands ("A", "B", "C") to stage through a copy whose rows start 16-byte
    aligned (`pitch`: row pitch in elements, a multiple of 8)."""
    kernel: str
    element: str
    m: int
    n: int
    k: int
    grid: Tuple[int, int, int]
    b_transposed: bool
    staged: Tuple[str, ...] = ()
    decode: Optional[DecodeConfig] = None
    #: The CTAs the persistent kernels' split-K workspace is sized for (the
    #: SM count: one workspace per stream for every grid).
    workspace_ctas: int = 0
    #: The persistent kernels' tile columns (persistent.tile_width).
    tile_n: int = persistent.TILE[1]
    #: The fused epilogue (tile.ops.epilogue; C has n / epilogue.out_div
    #: columns).
    epilogue: Epilogue = Epilogue()
    #: A is M-major (the transpose of a row-major K x M matrix, passed to
    #: the kernel as that matrix: a_mn_major).
    a_mn_major: bool = False
    #: Ping-pong consumers (pingpong_aliases): each warpgroup every other
    #: tile, all its rows.
    pingpong: bool = False

    @staticmethod
    def pitch(columns: int, element_bytes: int = 2) -> int:
        """The elements of a row of `columns` rounded up to 16 bytes."""
        per_row = TMA_ALIGNMENT // element_bytes
        return -(-columns // per_row) * per_row

    @property
    def split_k_shape(self) -> Optional[Tuple[Tuple[int, int], int]]:
        """The (workspace rows, columns) and counters of a kernel that sums
        partial tiles with tile.split_k_reduce (None if it does not): a
        split-K decode kernel's tiles x splits, or a persistent kernel's
        (tile.ops.persistent)."""
        if self.decode is not None:
            if not self.decode.split_k:
                return None
            return self.decode.workspace_shape(self.grid[0], self.grid[1])
        return persistent.split_k_workspace_shape(self.workspace_ctas or self.grid[0],
                                                  self.tile_n, self.pingpong)

    def arguments(self, a, b, c, split_k=None, bias=None, residual=None, scale=None,
                  amax=None, unused_c=None):
        """The kernel's arguments for A, B (already in the kernel's layout)
        and C (and the workspace and counters of split_k_shape; the
        persistent kernels' bias view and residual, and an FP8 C's scale
        and amax (int32), placeholders where the epilogue reads none). The
        persistent kernels take C twice, as TMA's (a tensor map) and as
        rows for their own stores (a memref), and write one (epilogue.tma_c):
        `unused_c`, a matrix of C's type with 16-byte rows, stands for the
        other (C itself where not given and TMA writes C)."""
        if self.decode is None:
            workspace, counters = split_k
            if self.epilogue.tma_c:
                by_tma, rows = c, c if unused_c is None else unused_c
            elif unused_c is None:
                raise ValueError("a kernel that stores C without TMA takes unused_c for "
                                 "C's tensor map")
            else:
                by_tma, rows = unused_c, c
            return (a, b, by_tma, self.m, self.n, self.k, workspace, counters, bias, residual,
                    scale, amax, rows)
        return self.decode.arguments(a, b, c, self.k, split_k, bias, residual, scale, amax)

    @property
    def c_index(self) -> int:
        """The position of the C the kernel writes among its arguments."""
        return 2 if self.decode is not None or self.epilogue.tma_c else 12

    @property
    def out_columns(self) -> int:
        """C's columns."""
        return self.n // self.epilogue.out_div

    @property
    def epilogue_indices(self) -> Tuple[int, int, int, int]:
        """The positions of the bias, the residual, and an FP8 C's scale and
        amax among the kernel's arguments."""
        if self.decode is None:
            return (8, 9, 10, 11)
        first = 6 if self.decode.split_k else 4
        return tuple(range(first, first + 4))


def decode_pays(m: int, n: int, k: int, b_transposed: bool, element: str,
                device: devices.Device) -> bool:
    """Whether C = A B of M <= DECODE_MAX_M runs a decode kernel: always up
    to DECODE_ONLY_M, above it where decode_config's kernel is estimated
    (decode.decode_cost) no slower than the persistent kernel of
    persistent.tile_width's width; never above DECODE_MAX_M."""
    if m > DECODE_MAX_M:
        return False
    if m <= DECODE_ONLY_M:
        return True
    width = persistent.tile_width(m, n, k, device.sms)
    config = decode_config(m, n, k, b_transposed, element, device)
    return (decode_kernels.decode_cost(config, n, k, device)
            <= persistent.tile_cost(m, n, k, device.sms, width))


def _tma_ready(operand: Operand, pitch: int, bytes_: int) -> bool:
    """TMA reads rows at 16-byte aligned addresses: the base and the pitch."""
    return operand.address % TMA_ALIGNMENT == 0 and pitch * bytes_ % TMA_ALIGNMENT == 0


def _unaligned(name: str, operand: Operand, pitch: int, bytes_: int) -> MatmulError:
    if operand.address % TMA_ALIGNMENT:
        return MatmulError(f"tile.matmul: {name} starts at an address that is not 16-byte "
                           f"aligned (0x{operand.address:x}): TMA needs 16-byte aligned global "
                           "addresses (T-TMA-10)")
    return MatmulError(f"tile.matmul: {name}'s rows of {pitch} elements are "
                       f"{pitch * bytes_} bytes, not a multiple of 16: TMA needs 16-byte "
                       f"aligned row strides (T-TMA-9), so its row pitch must be a multiple "
                       f"of {TMA_ALIGNMENT // bytes_} elements (stage=True copies such "
                       "operands into aligned rows)")


def plan_matmul(a: Operand, b: Operand, out: Optional[Operand], device: devices.Device,
                shared_bytes: Optional[Dict[str, int]] = None,
                stage: bool = False,
                decode: Optional[DecodeConfig] = None,
                epilogue: Epilogue = Epilogue(), bias: Optional[Operand] = None,
                residual: Optional[Operand] = None) -> MatmulPlan:
    """The launch for C = A B with A (M x K) and the logical B (K x N), in
    whatever layout `b` has; raises MatmulError for what the kernels cannot
    take. Operands whose rows TMA cannot address (a K or N that is not a
    multiple of 8, an unaligned base) are an error, or with `stage` listed
    in the plan's `staged` for a copy into aligned rows. `shared_bytes`
    (kernel name -> dynamic shared memory) is checked against the device's
    opt-in limit where both are known. For M <= 96, and M <= 128 where
    decode_pays, the plan runs a decode kernel: `decode` (e.g. the
    autotuner's, taken at any M <= 128), or `decode_config`'s choice.
    A fused `epilogue` (whose `bias` and `residual` operands it checks)
    runs in either; a gated one in the decode kernels (gate and up rows in
    an m64 block each) for A B^T without a bias or an FP8 C, else the
    persistent kernel."""
    for name, operand in (("A", a), ("B", b)) + ((("out", out),) if out else ()):
        if len(operand.shape) != 2:
            raise MatmulError(f"tile.matmul: {name} must be a matrix, got shape "
                              f"{tuple(operand.shape)}")
    if a.dtype not in ELEMENTS:
        raise MatmulError(f"tile.matmul takes float16 or bfloat16 operands (f32 "
                          f"accumulation), got A of {a.dtype}")
    if b.dtype != a.dtype:
        raise MatmulError(f"tile.matmul: A is {a.dtype} but B is {b.dtype}")
    m, k = a.shape
    if b.shape[0] != k:
        raise MatmulError(f"tile.matmul: A is {m} x {k} but B, as K x N, is "
                          f"{b.shape[0]} x {b.shape[1]}")
    n = b.shape[1]
    epilogue.validate()
    if epilogue.gated and n % (2 * GATE_BLOCK):
        raise MatmulError(f"tile.matmul: gated=True takes B's {GATE_BLOCK}-column gate and up "
                          f"blocks in pairs (interleave_gate_up): N must be a multiple of "
                          f"{2 * GATE_BLOCK}, got {n}")
    n_out = n // epilogue.out_div
    _check_epilogue_operands(epilogue, a, m, n, n_out, bias, residual)
    if not epilogue.trivial:
        epilogue = replace(epilogue, pairs=_pairs_fit(n, n_out, bias, residual))
    # C's type: A's, or an FP8 epilogue's.
    c_dtype = ELEMENT_BY_NAME[epilogue.out].torch if epilogue.out else a.dtype
    if out is not None:
        if tuple(out.shape) != (m, n_out):
            raise MatmulError(f"tile.matmul: out must be {m} x {n_out}, got "
                              f"{out.shape[0]} x {out.shape[1]}")
        if out.dtype != c_dtype:
            raise MatmulError(f"tile.matmul: out must be {c_dtype}"
                              f"{'' if epilogue.out else ' like A and B'}, got {out.dtype}")
    require_one_device("tile.matmul", a, b, out)
    devices.require_hopper("tile.matmul", device)
    element = BY_TORCH[a.dtype]
    bytes_ = element.bytes
    # A's layout: row-major M x K, or M-major (the transpose of a row-major
    # K x M matrix, e.g. a backward pass's A^T), which the persistent
    # kernels read as it is (a_mn_major). B's picks the kernel: row-major K
    # x N (gemm_nn) or row-major N x K, i.e. column-major K x N (gemm_nt).
    a_mn, a_pitch = _layout("A", a, ("M", "K"))
    b_transposed, b_pitch = _layout("B", b, ("K", "N"))
    c = out or Operand((m, n_out), (n_out, 1), c_dtype, 0, a.device)
    c_bytes = BY_TORCH[c_dtype].bytes
    # A gated product runs a decode kernel that loads the gate and the up
    # rows of a CTA's 64 columns of C into one m64 block each (A B^T, no
    # bias, a 16-bit C), else the persistent kernel.
    gated_decode = b_transposed and not epilogue.bias and not epilogue.out
    small_m = m <= DECODE_MAX_M and (not epilogue.gated or gated_decode)
    if small_m and decode is None and m > DECODE_ONLY_M:
        # The persistent kernel where it is estimated faster.
        if not decode_pays(m, n, k, b_transposed, element.name, device):
            small_m = False
    if out is not None and not rows_contiguous(out):
        raise MatmulError(f"tile.matmul: out must be row-major with contiguous rows, got "
                          f"strides {tuple(out.strides)}")
    if out is not None and small_m and out.strides[0] != n_out and m > 1:
        raise MatmulError(f"tile.matmul: the decode kernel (M <= {DECODE_MAX_M}) stores a "
                          f"contiguous out (strides ({n_out}, 1)), got strides "
                          f"{tuple(out.strides)}; pass a contiguous out")
    staged = []
    operands = [("B", b, b_pitch, bytes_)]
    if a_mn and (small_m or not _tma_ready(a, a_pitch, bytes_)):
        # The decode kernels read A K-major, and TMA cannot address this
        # one's rows: a row-major copy of A (aligned rows) instead.
        if not stage:
            raise (_unaligned("A", a, a_pitch, bytes_) if not small_m else MatmulError(
                f"tile.matmul: the decode kernel (M <= {DECODE_MAX_M}) reads A row-major, "
                f"got strides {tuple(a.strides)} (stage=True copies A into aligned rows)"))
        staged.append("A")
        a_mn = False
    else:
        operands.insert(0, ("A", a, a_pitch, bytes_))
    # TMA reads A and B. The persistent kernels write C by TMA, or where its
    # rows are not TMA's to write (an odd N, an odd pitch or an address off
    # 16 bytes), by the warpgroups' own stores (tma_c:
    # tile.warpgroup_coalesced_store, element by element); an FP8 C is staged
    # (that variant spills on the ping-pong consumers); the decode kernels
    # store element by element.
    if not small_m and not _tma_ready(c, c.strides[0], c_bytes):
        if not epilogue.out:
            epilogue = replace(epilogue, tma_c=False)
        else:
            operands.append(("out" if out else "C", c, c.strides[0], c_bytes))
    for name, operand, pitch, element_bytes in operands:
        if _tma_ready(operand, pitch, element_bytes):
            continue
        if not stage:
            raise _unaligned(name, operand, pitch, element_bytes)
        staged.append("C" if name == "out" else name)
    if small_m:
        if decode is None:
            decode = decode_config(m, n, k, b_transposed, element.name, device,
                                   columns=128 if epilogue.gated else None)
        elif (decode.layout == "nt") != b_transposed or decode.rows < m:
            raise MatmulError(f"tile.matmul: {decode.name} takes M <= {decode.rows} and B "
                              f"{'N x K' if decode.layout == 'nt' else 'K x N'}; got M = {m} "
                              f"and B {'N x K' if b_transposed else 'K x N'}")
        decode = replace(decode, element=element.name,
                         epilogue=replace(epilogue, pairs=True, tma_c=True))
        kernel = decode.name
        grid = decode_grid(decode, n, k, device)
        shared_bytes = {kernel: decode.shared_bytes}
    else:
        decode = None
        kernel = "gemm_nt" if b_transposed else "gemm_nn"
        # One CTA per SM, or per tile (and split) where there are fewer
        # tiles: the work units (tile.work_unit) split a mostly idle last
        # wave's tiles along K. A gated epilogue's output tile is half as
        # wide: the widths whose half is whole 64-column chunks. The widths
        # that fit the waves for plain products only (measured there; 224
        # spills with a bias, a residual and GELU).
        widths = tuple(width for width in persistent.TILE_WIDTHS
                       if not epilogue.gated or width // epilogue.out_div % 64 == 0)
        if not epilogue.trivial:
            widths = persistent.unfitted(widths)
        if epilogue.residual:
            # The residual's loads beside 96 accumulators a thread spill
            # (ptxas: 44 bytes), and 256-wide tiles measured 5-13% faster
            # than 192-wide ones with a residual at six shapes (NVIDIA H200,
            # bench/NOTES.md).
            widths = tuple(width for width in widths if width != persistent.MID_TILE)
        tile_n = persistent.tile_width(m, n, k, device.sms, widths)
        # An activation's or an FP8 C's epilogue (the gated one too) under
        # the other warpgroup's MMAs: 128 x 128 tiles on ping-pong consumers
        # (NVIDIA H200, µs against the cooperative plan: gated SiLU 4096 x 2
        # x 14336 x 4096 1261 / 1294, bias + GELU 4096 x 16384 x 4096 742 /
        # 800, FP8 C 16384 x 4096 x 4096 747 / 839; plain products ran
        # level, a residual alone 1-2% slower).
        # (Such an epilogue is no plain product: tile_n is of the unfitted
        # widths, as pingpong_pays takes it.)
        overlapped = epilogue.activation != "identity" or epilogue.gated or bool(epilogue.out)
        pingpong = (overlapped and not a_mn
                    and persistent.pingpong_pays(m, n, k, device.sms, tile_n))
        if pingpong:
            tile_n = persistent.NARROW_TILE
        grid = (persistent.persistent_grid(m, n, k, device.sms, tile_n), 1, 1)
    needed = (shared_bytes or {}).get(kernel)
    if needed is not None and device.shared_optin is not None and needed > device.shared_optin:
        raise MatmulError(f"tile.matmul: @{kernel} needs {needed} bytes of shared memory, the "
                          f"GPU gives a block at most {device.shared_optin}")
    if decode is not None:
        return MatmulPlan(kernel, element.name, m, n, k, grid, b_transposed, tuple(staged),
                          decode, epilogue=epilogue)
    return MatmulPlan(kernel, element.name, m, n, k, grid, b_transposed, tuple(staged),
                      workspace_ctas=device.sms, tile_n=tile_n, epilogue=epilogue,
                      a_mn_major=a_mn, pingpong=pingpong)


def _layout(name: str, operand: Operand, dims: Tuple[str, str]) -> Tuple[bool, int]:
    """(transposed, row pitch) of a matrix operand (`dims` its rows' and
    columns' names): row-major with contiguous rows (False), or the
    transpose of such a matrix (True); else MatmulError."""
    if rows_contiguous(operand):
        return False, operand.strides[0]
    if columns_contiguous(operand):
        return True, operand.strides[1]
    rows, columns = operand.shape
    raise MatmulError(f"tile.matmul: {name} ({dims[0]} x {dims[1]} = {rows} x {columns}) must "
                      f"be row-major or the transpose of a row-major {dims[1]} x {dims[0]} "
                      f"matrix, got strides {tuple(operand.strides)}; pass "
                      f"{name}.contiguous()")


def _check_epilogue_operands(epilogue: Epilogue, a: Operand, m: int, n: int, n_out: int,
                             bias: Optional[Operand], residual: Optional[Operand]) -> None:
    """MatmulError unless the bias (a contiguous vector: n values per
    column, m per row) and the residual (m x n_out) fit the epilogue."""
    if (bias is not None) != (epilogue.bias is not None) or (
            (residual is not None) != epilogue.residual):
        raise MatmulError("tile.matmul: the epilogue's bias and residual must be given with it")
    for name, operand in (("bias", bias), ("residual", residual)):
        if operand is not None and operand.dtype != a.dtype:
            raise MatmulError(f"tile.matmul: {name} must be {a.dtype} like A and B, got "
                              f"{operand.dtype}")
    if bias is not None:
        want = (m, 1) if epilogue.bias == "row" else (n,)
        if tuple(bias.shape) not in (want, (1, n) if epilogue.bias == "column" else want):
            raise MatmulError(f"tile.matmul: a bias is one value per column of A B ({n},) or "
                              f"(1, {n}), or one per row ({m}, 1); got shape "
                              f"{tuple(bias.shape)}")
        if any(s != 1 for s, extent in zip(bias.strides, bias.shape) if extent > 1):
            raise MatmulError(f"tile.matmul: the bias must be contiguous, got strides "
                              f"{tuple(bias.strides)}; pass bias.contiguous()")
    if residual is not None and tuple(residual.shape) != (m, n_out):
        raise MatmulError(f"tile.matmul: residual must be {m} x {n_out} like C, got shape "
                          f"{tuple(residual.shape)}")


def _pairs_fit(n: int, n_out: int, bias: Optional[Operand],
               residual: Optional[Operand]) -> bool:
    """Whether the persistent kernel may read the bias and residual in
    4-byte column pairs (T-TILE-10): even column extents, an even row
    stride with a unit column stride, 4-byte aligned addresses."""
    if bias is not None and (n % 2 or bias.address % 4):
        return False
    if residual is not None:
        rows, columns = residual.strides
        if n_out % 2 or residual.address % 4 or columns != 1 or (
                residual.shape[0] > 1 and rows % 2):
            return False
    return True


# --- PyTorch -----------------------------------------------------------------

def kernel(plan: MatmulPlan):
    """The launchable kernel of `plan`."""
    if plan.decode is not None:
        return decode_kernels.DECODE.kernel(plan.decode, plan.kernel)
    return GEMM.kernel(gemm_variant(plan.element, plan.tile_n, plan.epilogue,
                                    plan.a_mn_major, plan.pingpong), plan.kernel)


def shared_bytes(element: str) -> Dict[str, int]:
    """Dynamic shared memory of each persistent kernel for `element`, from
    the manifest (of the 256-wide tiles: the other widths take as much or
    less)."""
    return {name: GEMM.shared_bytes((element,), name) for name in ("gemm_nt", "gemm_nn")}


def split_k_buffers(torch, plan: MatmulPlan, device: int, stream=None):
    """The workspace and counters of `plan` (None if it needs none), kept per
    stream and device (tile.ops.persistent.split_k_buffers)."""
    shape = plan.split_k_shape
    return None if shape is None else persistent.split_k_buffers(torch, shape, device, stream)


@dataclass
class PlannedCall:
    """A call shape's plan, the operands' device, and its launches by
    stream (Kernel.prepare: the plan's scalars and split-K buffers packed
    once, A, B and C per call)."""
    plan: MatmulPlan
    index: int
    launches: Dict[int, object]


#: PlannedCall by everything a plan depends on (see _plan_key), most recent
#: last.
PLANS = LruCache(256)
_FP8_DTYPES: Tuple[object, ...] = ()


def _fp8_dtypes(torch) -> tuple:
    """PyTorch's 8-bit float dtypes (FP8 operands go to tile.ops.scaled_matmul),
    looked up once (a PyTorch without 8-bit floats has none)."""
    global _FP8_DTYPES
    if not _FP8_DTYPES:
        _FP8_DTYPES = tuple(getattr(torch, e.torch, None) for e in ELEMENT_TYPES if e.is_fp8)
    return _FP8_DTYPES


def _plan_key(a, b, out, transpose_b: bool, stage: bool) -> tuple:
    """What a plan depends on: shapes, strides, dtypes and devices, and the
    addresses only through their 16-byte alignment (T-TMA-10)."""
    return signature(a), signature(b), signature(out), transpose_b, stage


def _plan_tensors(torch, a, b, out, transpose_b: bool, stage: bool,
                  fused: Optional[tuple] = None) -> PlannedCall:
    """The checks and the plan of a call, with the operands' device (cached
    by _plan_key; `fused`: (bias, residual, activation, gated, C's FP8
    dtype or None, saturate) of a fused epilogue)."""
    bias, residual, activation, gated, fp8_out, saturate = fused or (
        None, None, None, False, None, True)
    index = require_cuda_tensors(torch, "tile.matmul", a=a, b=b, out=out, bias=bias,
                                 residual=residual)
    logical_b = b.t() if transpose_b else b
    device = devices.device(index)
    element = of_torch(a.dtype)
    shared = (shared_bytes(element.name)
              if element is not None and dtype_name(a.dtype) in ELEMENTS and device.is_hopper
              else None)
    epilogue = Epilogue()
    if fused is not None:
        # A bias of one value per row is (M, 1); any other, one per column.
        row_bias = (bias is not None and bias.dim() == 2
                    and tuple(bias.shape) == (a.shape[0], 1))
        out_type = ""
        if fp8_out is not None:
            out_type = getattr(of_torch(fp8_out), "name", "")
            if not out_type.startswith("f8"):
                raise MatmulError(f"tile.matmul: out_dtype of {dtype_name(a.dtype)} operands is "
                                  f"float8_e4m3fn or float8_e5m2 (C quantized), or their own "
                                  f"type; got {fp8_out}")
        epilogue = Epilogue(None if bias is None else "row" if row_bias else "column",
                            residual is not None, activation or "identity", bool(gated),
                            out=out_type, saturate=bool(saturate))
    return PlannedCall(plan_matmul(operand_of(a), operand_of(logical_b),
                                   operand_of(out) if out is not None else None, device, shared,
                                   stage=stage, epilogue=epilogue,
                                   bias=None if bias is None else operand_of(bias),
                                   residual=None if residual is None else operand_of(residual)),
                       index, {})


#: Per device: a scale of 1 (an FP8 C without out_scale) and an int32 that
#: takes the amax of an FP8 C without one.
_UNIT_SCALES: Dict[int, object] = {}
_AMAX_SINKS: Dict[int, object] = {}


def _unused_c(torch, c, index: int):
    """A (1, 16 bytes) matrix of C's type: the persistent kernels' C argument
    that a call does not write (MatmulPlan.arguments)."""
    return placeholders(torch, index, torch.bfloat16)[0].view(c.dtype)


def _quantization_arguments(torch, plan: MatmulPlan, out_scale, amax, index: int) -> tuple:
    """The kernel's scale and amax arguments: an FP8 C's (amax as the int32
    view the kernel's atomic max takes; a scale of 1 and a sink where not
    given), placeholders for a C of the operands' type."""
    if not plan.epilogue.out:
        none = placeholders(torch, index, torch.float32)[1]
        return none, none.view(torch.int32)
    if out_scale is None:
        out_scale = _UNIT_SCALES.get(index)
        if out_scale is None:
            out_scale = _UNIT_SCALES[index] = torch.ones(1, device=index, dtype=torch.float32)
    if amax is None:
        amax = _AMAX_SINKS.get(index)
        if amax is None:
            amax = _AMAX_SINKS[index] = torch.zeros(1, device=index, dtype=torch.int32)
        return out_scale, amax
    return out_scale, amax.view(torch.int32)


def _check_fused(fused: bool, fp8: bool, tune: bool) -> None:
    """MatmulError for a fused epilogue (or an FP8 C) with FP8 operands or
    tune=."""
    if fused and (fp8 or tune):
        raise MatmulError("tile.matmul: bias=, residual=, activation=, gated= and an FP8 "
                          "out_dtype apply to f16/bf16 operands without tune= (the kernels' "
                          "fused epilogue)")


def _check_quantization(torch, a, out_scale, amax, quantized: bool) -> None:
    """MatmulError unless `out_scale` and `amax` (float32, shape (1,), on
    A's device) come with an FP8 C."""
    for name, value in (("out_scale", out_scale), ("amax", amax)):
        if value is None:
            continue
        if not quantized:
            raise MatmulError(f"tile.matmul: {name} applies to an FP8 C (out_dtype="
                              "float8_e4m3fn or float8_e5m2 with f16/bf16 operands)")
        if (not isinstance(value, torch.Tensor) or value.dtype != torch.float32
                or tuple(value.shape) != (1,) or value.device != a.device):
            raise MatmulError(f"tile.matmul: {name} must be a float32 tensor of shape (1,) "
                              f"on {a.device}, got "
                              f"{getattr(value, 'dtype', type(value).__name__)} of shape "
                              f"{tuple(getattr(value, 'shape', ()))} on "
                              f"{getattr(value, 'device', '?')}")


def _epilogue_views(torch, plan: MatmulPlan, bias, residual, index: int, dtype) -> tuple:
    """The kernel's bias and residual arguments: the bias as an M x N view
    (zero strides; N x M, and the residual transposed, for a decode kernel's
    C^T), placeholders (of `dtype`) for what the epilogue does not read."""
    none = placeholders(torch, index, dtype)[0]
    m, n = plan.m, plan.n
    if bias is not None:
        column = plan.epilogue.bias == "column"
        bias = bias.reshape((1, n) if column else (m, 1)).expand(m, n)
    if plan.decode is not None:
        bias = None if bias is None else bias.t()
        residual = None if residual is None else residual.t()
    return (none if bias is None else bias, none if residual is None else residual)


def _tuned(key, plan: MatmulPlan, a, b, c) -> MatmulPlan:
    """`plan` with the decode autotuner's config for the kernel's operands,
    remembered beside the call's plan (a tuned call then costs the host what
    an untuned one does)."""
    if plan.decode is None:
        return plan
    return PLANS.get(None if key is None else key + ("tuned",),
                     lambda: decode_kernels.with_config(
                         plan, decode_kernels.decode_tuner().best_config(a, b, c, plan)))


def matmul(a, b, *, out=None, transpose_b: bool = False, stream=None, stage: bool = True,
           tune: bool = False, scale_a=None, scale_b=None, out_dtype=None, bias=None,
           residual=None, activation: Optional[str] = None, gated: bool = False,
           out_scale=None, amax=None, saturate: bool = True):
    """C = A B (B is K x N) or, with `transpose_b`, A B^T (B is N x K), for
    f16/bf16 CUDA tensors on one device; into `out` when given, else a new
    tensor. Returns at once: the kernel runs on `stream` (default: PyTorch's
    current one on the operands' device). Operands whose rows TMA cannot
    address (K or N not a multiple of 8) are copied into aligned rows first
    (one read and write of them, on the same stream); with `stage=False`
    they are an error instead. A call like an earlier one (shapes, strides,
    dtypes, alignment, device) reuses its plan. With `tune`, a decode shape
    (M <= 128 where a decode kernel runs) takes the config `decode_tuner()`
    found fastest for it (timed
    on the first such call, then cached on disk).

    FP8 operands (float8_e4m3fn, float8_e5m2) take `scale_a` and `scale_b`
    (float32: one element, one per row of A / column of B, or block scales
    (M, K/128) and (N/128, K/128)) and give
    diag(scale_a) A B diag(scale_b) in `out_dtype` (bfloat16 or float16),
    as torch._scaled_mm: see tile.ops.scaled_matmul.

    A fused epilogue (f16/bf16; tile.ops.epilogue) computes, on the f32
    accumulators and rounded once, C = act(A B + bias) + residual:
    `bias` one value per column of A B ((N,) or (1, N)) or per row ((M,
    1)), `activation` "relu", "silu", "gelu" or "gelu_tanh", `residual`
    M x N (it may be `out` itself: an in-place residual add). With `gated`,
    B's 8-column blocks alternate gate and up (interleave_gate_up) and C =
    act(gate + bias) * (up + bias) + residual is M x N/2: the gated MLP's
    hidden activation in one GEMM (the decode kernels, M <= 128, gate
    products of B as N x K without a bias or an FP8 C; the persistent kernel
    the others).

    With f16/bf16 operands, `out_dtype` float8_e4m3fn or float8_e5m2 gives
    an FP8 C for the next layer's FP8 GEMM: C = fp8(out_scale * y) of the
    epilogue's float32 values y (`out_scale`: float32, one element; 1 if
    None), clamped to the format's largest magnitude first with `saturate`
    (as Transformer Engine's casts; else NaN / inf beyond it, as
    `.to(float8)`), rounded to nearest even; `amax` (float32, shape (1,),
    holding a value >= 0: zero it to start a new one) is raised to max(amax,
    max |y|) by an atomic max, NaN if y has one (an inf in A or B can make
    it NaN too: 0 * inf in the tile's padding past C).

    Under torch.compile and where autograd records the call (an input
    that requires grad), it runs as the operator tile::matmul, with its
    derivative for f16/bf16 operands (tile.library)."""
    import torch
    a_dtype = getattr(a, "dtype", None)
    # An FP8 C of f16/bf16 operands (the fused epilogue's quantization).
    quantized = (out_dtype is not None and out_dtype != a_dtype and scale_a is None
                 and scale_b is None and a_dtype in (torch.float16, torch.bfloat16))
    if routed(torch, a, b, bias, residual):
        return _through_operators(torch, a, b, out, transpose_b, stream, stage, tune, scale_a,
                                  scale_b, out_dtype, bias, residual, activation, gated,
                                  out_scale, amax, saturate, quantized)
    key = None
    fused = None
    if bias is not None or residual is not None or activation is not None or gated or quantized:
        fused = (bias, residual, activation, gated, out_dtype if quantized else None,
                 saturate)
    if not quantized and (out_scale is not None or amax is not None):
        raise MatmulError(f"tile.matmul: {'out_scale' if out_scale is not None else 'amax'} "
                          "applies to an FP8 C (out_dtype=float8_e4m3fn or float8_e5m2 with "
                          "f16/bf16 operands)")
    extras = () if fused is None else tuple(x for x in (bias, residual) if x is not None)
    if quantized:
        extras += tuple(x for x in (out_scale, amax) if x is not None)
    if scale_a is None and scale_b is None and not tune and (
            out_dtype is None or quantized):
        # The steady state: a call like an earlier one on the same stream
        # packs A, B and C (and a bias and residual) into the launch
        # prepared for it (B's map by its address: b or its transpose
        # alike; the bias's view by its vector's).
        try:
            key = _plan_key(a, b, out, transpose_b, stage)
            if fused is not None:
                key += (activation, gated, signature(bias), signature(residual))
            if quantized:
                key += (out_dtype, saturate, signature(out_scale), signature(amax))
        except (AttributeError, TypeError):  # not tensors: the checks say why
            pass
        planned = PLANS.peek(key)
        if planned is not None:
            launch = planned.launches.get(streams.stream_handle(stream, planned.index) or 0)
            if launch is not None:
                if out is None:
                    out = new_output(torch, (planned.plan.m, planned.plan.out_columns), a,
                                     stream, planned.index,
                                     out_dtype if quantized else None)
                if quantized and amax is not None:
                    extras = extras[:-1] + (amax.view(torch.int32),)
                launch(a, b, out, *extras)
                return out
    fp8_dtypes = _fp8_dtypes(torch)
    fp8 = getattr(a, "dtype", None) in fp8_dtypes or getattr(b, "dtype", None) in fp8_dtypes
    _check_fused(fused is not None, fp8 or scale_a is not None or scale_b is not None, tune)
    _check_quantization(torch, a, out_scale, amax, quantized)
    if fp8 or scale_a is not None or scale_b is not None:
        if scale_a is None or scale_b is None:
            raise MatmulError("tile.matmul: FP8 operands take scale_a and scale_b (float32, "
                              "one element, one per row of A / column of B, or block scales "
                              "(M, K/128) and (N/128, K/128); torch.ones(1) for none)")
        if tune:
            raise MatmulError("tile.matmul: tune= applies to f16/bf16 operands (the decode "
                              "kernels); FP8 runs the persistent kernel")
        no_backward(torch, "tile.matmul with FP8 operands", scale_a, scale_b)
        return scaled_matmul(torch, a, b, scale_a, scale_b, out=out, out_dtype=out_dtype,
                             transpose_b=transpose_b, stream=stream)
    if key is None:  # tune= (or not tensors: _plan_tensors says why)
        try:
            key = _plan_key(a, b, out, transpose_b, stage)
        except (AttributeError, TypeError):
            pass
    planned = PLANS.get(key, lambda: _plan_tensors(torch, a, b, out, transpose_b, stage,
                                                   fused))
    plan, index = planned.plan, planned.index
    launch_stream = None if stream is None else streams.torch_stream(torch, stream, index)
    if out is None:
        out = new_output(torch, (plan.m, plan.out_columns), a, stream, index,
                         out_dtype if quantized else None)
    if plan.m == 0 or plan.n == 0 or plan.k == 0:
        # Nothing to multiply: C is empty, or zero (its epilogue's) for K = 0.
        if plan.k == 0 and plan.m and plan.n:
            with torch.cuda.stream(launch_stream or torch.cuda.current_stream(index)):
                if plan.epilogue.trivial:
                    out.zero_()
                else:
                    zero = torch.zeros((plan.m, plan.n), device=out.device, dtype=torch.float32)
                    y = apply_epilogue(torch, zero, plan.epilogue, bias, residual)
                    out.copy_(quantize(torch, y, plan.epilogue, out_scale, amax)
                              if quantized else y)
        return out
    epilogue_views = _epilogue_views(torch, plan, bias, residual, index, a.dtype)
    epilogue_views += _quantization_arguments(torch, plan, out_scale, amax, index)
    # The varying arguments besides A, B and C: the epilogue's operands.
    extra_indices = tuple(i for i, x in zip(plan.epilogue_indices,
                                            (bias, residual, out_scale, amax))
                          if x is not None)
    # B as the kernel reads it: the logical K x N B (b, or b.t() with
    # transpose_b), transposed again when the kernel takes it as N x K.
    kernel_b = b if transpose_b == plan.b_transposed else b.t()
    # A as the kernel reads it: an M-major A as its row-major K x M transpose
    # (prepared launches take it by address: a stands for it later).
    kernel_a = a.t() if plan.a_mn_major else a
    if not plan.staged:
        if tune:
            plan = _tuned(key, plan, kernel_a, kernel_b, out)
        arguments = plan.arguments(kernel_a, kernel_b, out,
                                   split_k_buffers(torch, plan, index, launch_stream),
                                   *epilogue_views, unused_c=_unused_c(torch, out, index))
        if tune:
            kernel(plan).launch_on(index, arguments, plan.grid, stream)
            return out
        # Prepared for this stream: the next such call takes the steady
        # state above.
        launch = planned.launches[streams.stream_handle(stream, index) or 0] = kernel(
            plan).prepare(index, arguments, plan.grid, stream,
                          varying=(0, 1, plan.c_index) + extra_indices)
        launch()
        return out
    launch_stream = launch_stream or torch.cuda.current_stream(index)

    def aligned_rows(name, matrix):
        """A view of `matrix`'s shape whose rows start 16-byte aligned (the
        padding columns are never read: TMA stops at the view's width), in
        a scratch buffer kept for this stream, shape and device."""
        rows, columns = matrix.shape
        pitch = plan.pitch(columns, matrix.element_size())
        view = persistent.SCRATCH.get(
            ("staging", name, launch_stream.cuda_stream, rows, pitch, matrix.dtype, index),
            lambda: torch.empty((rows, pitch), device=matrix.device, dtype=matrix.dtype)
        )[:, :columns]
        return view

    with STAGING_LOCK, streams.running_on(torch, launch_stream):
        pairs = []
        if "A" in plan.staged:
            pairs.append((a, aligned_rows("A", a)))
            kernel_a = pairs[-1][1]
        if "B" in plan.staged:
            pairs.append((kernel_b, aligned_rows("B", kernel_b)))
            kernel_b = pairs[-1][1]
        stage_copy = _staging_copy(pairs, of_torch(a.dtype).name, index, stream)
        if stage_copy is not None:
            stage_copy(*[source for source, _ in pairs])
        kernel_c = aligned_rows("C", out) if "C" in plan.staged else out
        if tune:
            plan = _tuned(key, plan, kernel_a, kernel_b, kernel_c)
        arguments = plan.arguments(kernel_a, kernel_b, kernel_c,
                                   split_k_buffers(torch, plan, index, launch_stream),
                                   *epilogue_views, unused_c=_unused_c(torch, out, index))
        if tune:
            kernel(plan).launch_on(index, arguments, plan.grid)
        else:
            # Prepared with the staging buffers fixed: the next such call on
            # this stream copies in, launches and copies out (staged_step).
            launch = kernel(plan).prepare(
                index, arguments, plan.grid, stream,
                varying=tuple(i for i, name in zip((0, 1, plan.c_index), "ABC")
                              if name not in plan.staged) + extra_indices)
            launch()
            planned.launches[streams.stream_handle(stream, index) or 0] = staged_step(
                torch, plan, launch, stage_copy, kernel_c, transpose_b, launch_stream, index)
        if kernel_c is not out:
            out.copy_(kernel_c)
    return out


#: Staged calls hold it from their first copy to their last: host threads
#: on one stream would interleave their copies into shared staging buffers.
STAGING_LOCK = threading.RLock()


def _through_operators(torch, a, b, out, transpose_b, stream, stage, tune, scale_a, scale_b,
                       out_dtype, bias, residual, activation, gated, out_scale, amax, saturate,
                       quantized: bool):
    """matmul as PyTorch's operators (tile.library), `quantized` matmul's:
    `out` and `amax` get copies of their results."""
    ops = operators(torch, "tile.matmul", stream)
    scaled = scale_a is not None or scale_b is not None
    if scaled and out_dtype is None and out is not None:
        out_dtype = out.dtype  # as the eager call: an FP8 product in out's type
    # The eager call's checks of what goes together (the operators would
    # drop or misread the rest).
    fused = (bias is not None or residual is not None or activation is not None or gated
             or quantized)
    _check_fused(fused, scaled or a.dtype not in (torch.float16, torch.bfloat16), tune)
    _check_quantization(torch, a, out_scale, amax, quantized)
    if scaled or quantized:
        no_backward(torch, "tile.matmul with FP8 operands or an FP8 C", a, b, bias, residual,
                    scale_a, scale_b, out_scale)
    if (activation not in (None, "identity") or gated) and recorded(torch, a, b, bias,
                                                                    residual):
        # Differentiable in two steps: the product and its bias by tile,
        # kept for the backward; a gate by tile's gated activation kernel
        # (tile.ops.gated_activation), a plain activation by PyTorch in C's
        # type (as its layers); then the residual.
        z = ops.matmul(a, b, transpose_b, bias, None, None, False, None, None, None, None,
                       saturate, stage, tune)
        if gated and activation not in (None, "identity"):
            result = ops.gated_activation(z, activation)
        else:
            result = activate(torch, z, activation or "identity", bool(gated))
        if residual is not None:
            result = result + residual
    elif amax is not None:
        result, raised = ops.matmul_amax(a, b, transpose_b, bias, residual, activation, gated,
                                         out_dtype, out_scale, amax, saturate, stage)
        amax.copy_(raised)
    else:
        result = ops.matmul(a, b, transpose_b, bias, residual, activation, gated, scale_a,
                            scale_b, out_dtype, out_scale, saturate, stage, tune)
    return result if out is None else out.copy_(result)


def _staging_copy(pairs, element: str, index: int, stream):
    """The copy of a staged call's sources into their aligned views (`pairs`
    of (source, view); None for none), called with the sources: one
    prepared launch of tile.ops.staging's kernel where every source's rows
    are contiguous, else PyTorch's copies (an M-major A: its transposing
    copy coalesces what a row-piece copy would not)."""
    if not pairs:
        return None
    if all(source.stride(1) == 1 or source.shape[1] == 1 for source, _ in pairs):
        return stage_rows_kernel(element, len(pairs)).prepare(
            index, [x for pair in pairs for x in pair], stage_rows_grid(pairs), stream,
            varying=tuple(range(0, 2 * len(pairs), 2)))
    views = [view for _, view in pairs]

    def copy(*sources):
        for source, view in zip(sources, views):
            view.copy_(source)
    return copy


def staged_step(torch, plan: MatmulPlan, launch, stage_copy, kernel_c, transpose_b: bool,
                launch_stream, index: int):
    """A staged plan's calls after the first: the prepared staging copy of
    the call's A and B (`stage_copy`: those of them in plan.staged), the
    prepared launch (the operands not staged taken from the call), C
    copied out of kernel_c when staged; on `launch_stream` (the torch
    stream the launches were prepared on; entered only when it is not the
    current one)."""
    staged_a, staged_b, staged_c = (name in plan.staged for name in "ABC")
    handle = launch_stream.cuda_stream

    def step(a, b, out, *extras):
        current = streams.current_stream_handle(index) == handle
        with STAGING_LOCK, streams.running_on(torch, None if current else launch_stream):
            if stage_copy is not None:
                stage_copy(*[x for x, staged in (
                    (a, staged_a), (b if transpose_b == plan.b_transposed else b.t(), staged_b))
                    if staged])
            launch(*[x for x, staged in ((a, staged_a), (b, staged_b), (out, staged_c))
                     if not staged], *extras)
            if staged_c:
                out.copy_(kernel_c)
    return step
